"""Merging a profile's kernel-owned tables across its chain, and resolving its secrets.

``[sandbox]`` and ``[require]`` merge key by key, later files winning; ``{"$env" = "NAME"}`` and
``{"$file" = "path"}`` are replaced once merged, so secrets never sit in a file and an overridden
secret is never read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seamhost.errors import ConfigError, join_key
from seamhost.input_limits import SECRET_BYTES, read_capped, user_path
from seamhost.sandbox.policy import SandboxMode, SandboxPolicy

if TYPE_CHECKING:
    from seamhost.kernel.profile.files import ProfileFile
    from seamhost.kernel.profile.provenance import Provenance


def value_at(value: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def resolve_secrets(
    value: Any,
    label: str,
    path: list[str | int],
    environ: Mapping[str, str],
    found: list[str] | None = None,
) -> Any:
    """`value` with its secret markers replaced; each secret resolved is appended to `found`."""
    if isinstance(value, dict):
        if len(value) == 1 and "$env" in value:
            var = value["$env"]
            if not isinstance(var, str) or var not in environ:
                raise ConfigError(
                    label,
                    join_key(path),
                    f"environment variable {var!r} is not set; set it or replace the value",
                )
            secret = environ[var]
        elif len(value) == 1 and "$file" in value:
            secret = _read_secret(str(value["$file"]), label, join_key(path))
        else:
            return {
                k: resolve_secrets(v, label, [*path, k], environ, found) for k, v in value.items()
            }
        if found is not None:
            found.append(secret)
        return secret
    if isinstance(value, list):
        return [resolve_secrets(v, label, [*path, i], environ, found) for i, v in enumerate(value)]
    return value


def _read_secret(written: str, label: str, key: str) -> str:
    target = user_path(written, label, key)
    if not target.is_absolute():
        target = Path(label).parent / target
    data = read_capped(target, SECRET_BYTES, f"secret file {str(target)!r}", label=label, key=key)
    try:
        return data.decode("utf-8").rstrip("\n")
    except UnicodeDecodeError as exc:
        problem = f"secret file {str(target)!r} is not UTF-8 text (byte {exc.start})"
        raise ConfigError(label, key, problem) from None


def merge_keys(
    chain: Iterable[ProfileFile],
    table: str,
    check: Callable[[str, str, Any], Any],
    provenance: Provenance | None = None,
) -> dict[str, Any]:
    """The keys of the kernel table `table` (``limits``, ``recovery``, ``gateway``) across
    `chain`, each file overriding the keys it sets; ``check(file, key, value)`` returns the
    value to keep or raises :class:`ConfigError`. With `provenance`, each setting is noted."""
    values: dict[str, Any] = {}
    for pf in chain:
        for key, value in getattr(pf, table).items():
            values[key] = check(pf.label, key, value)
            if provenance is not None:
                provenance.set(f"{table}.{key}", pf.label, value)
    return values


def merge_sandbox(chain: Iterable[ProfileFile], provenance: Provenance) -> SandboxPolicy:
    mode, network = SandboxMode.READ_ONLY, False
    roots: tuple[Path, ...] = ()
    read_only: tuple[Path, ...] = ()
    for pf in chain:
        for key, value in pf.sandbox.items():
            where = f"sandbox.{key}"
            provenance.set(where, pf.label, value)
            if key == "mode":
                try:
                    mode = SandboxMode(value)
                except ValueError:
                    choices = ", ".join(m.value for m in SandboxMode)
                    raise ConfigError(pf.label, where, f"expected one of {choices}") from None
            elif key == "writable_roots":
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise ConfigError(pf.label, where, "expected a list of paths")
                roots = tuple(user_path(v, pf.label, where) for v in value)
            elif key == "read_only_paths":
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise ConfigError(pf.label, where, "expected a list of paths")
                read_only = tuple(user_path(v, pf.label, where) for v in value)
            elif key == "network":
                if not isinstance(value, bool):
                    raise ConfigError(pf.label, where, "expected true or false")
                network = value
            else:
                raise ConfigError(
                    pf.label,
                    where,
                    "unknown key; expected mode, writable_roots, read_only_paths or network",
                )
    return SandboxPolicy(mode, roots, network, read_only)


def merge_require(
    chain: Iterable[ProfileFile], provenance: Provenance
) -> tuple[list[tuple[str, str]], dict[str, tuple[str, str]]]:
    seams: list[tuple[str, str]] = []
    versions: dict[str, tuple[str, str]] = {}
    for pf in chain:
        for key, value in pf.require.items():
            if key == "seams":
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise ConfigError(pf.label, "require.seams", "expected a list of seam names")
                seams.extend((seam, pf.label) for seam in value)
                provenance.add("require.seams", pf.label, value)
            elif key == "plugins":
                if not isinstance(value, dict):
                    raise ConfigError(pf.label, "require.plugins", "expected a table")
                # Only a profile that pins versions loads their parser.
                from seamhost.kernel.profile.versions import InvalidRequirement, parse_requirement

                for plugin, spec in value.items():
                    where = f"require.plugins.{plugin}"
                    if not isinstance(spec, str):
                        raise ConfigError(pf.label, where, "expected a version requirement string")
                    try:
                        parse_requirement(spec)
                    except InvalidRequirement as exc:
                        raise ConfigError(pf.label, where, str(exc)) from None
                    versions[plugin] = (spec, pf.label)
                    provenance.set(where, pf.label, spec)
            else:
                raise ConfigError(
                    pf.label, f"require.{key}", "unknown key; expected seams or plugins"
                )
    return seams, versions
