"""Profiles: TOML files that compose a bundle (design.md §3.2).

A profile names the plugins of the bundle (a ``[plugins.<name>]`` table each), the session's
sandbox policy (``[sandbox]``) and what must be present (``[require]``). Resolution:

1. ``extends`` (a shipped profile name or a path, relative to the extending file) is followed
   depth-first, parents left to right; each file is applied once, parents before children (the
   order a class hierarchy's MRO would give for a simple tree). A cycle is an error naming it.
2. Plugin tables merge key by key, later files winning; keys a plugin declares as ``accumulate``
   concatenate instead, and a plugin carrying inherited accumulated entries cannot be disabled.
   ``enabled = false`` removes an inherited plugin; ``distribution`` names what to install.
3. ``{"$env" = "NAME"}`` and ``{"$file" = "path"}`` are replaced by the variable's value or the
   file's contents (trailing newline stripped) once merged, so secrets never sit in the file and
   an overridden secret is never read.
4. Each plugin named is imported, and its table validated against its schema (compiled once);
   unknown keys are errors. ``[require]`` versions and seams are checked.

Every error names the file, the key path and what was expected.

The records built along the way (:class:`ProfileFile`, :class:`PluginEntry`) are named tuples
rather than attrs classes: every command resolves a profile, and each attrs class costs its
start-up a fraction of a millisecond to create.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import attrs

from seamhost import jsonvalue
from seamhost.errors import (
    ConfigError,
    MissingSeams,
    PluginNotInstalled,
    ProfileCycle,
    ProfileNotFound,
    join_key,
)
from seamhost.jsonvalue import FrozenDict, freeze
from seamhost.kernel.plugins import Discovery, InstalledPlugin, PluginDescriptor, discover
from seamhost.sandbox.policy import SandboxMode, SandboxPolicy
from seamhost.schema import compile_schema

PROFILE_PATH_ENV = "SEAMHOST_PROFILE_PATH"
SECTIONS = ("profile", "plugins", "sandbox", "require")
RESERVED_PLUGIN_KEYS = frozenset({"enabled", "distribution"})


def shipped_dirs(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Where profile names are looked up: ``$SEAMHOST_PROFILE_PATH``, then the shipped ones."""
    env = os.environ if environ is None else environ
    dirs = [Path(p) for p in env.get(PROFILE_PATH_ENV, "").split(os.pathsep) if p]
    dirs.append(Path(__file__).parents[2] / "profiles")
    return dirs


def shipped_profiles(environ: Mapping[str, str] | None = None) -> dict[str, Path]:
    """Every profile name reachable by name, with the file it resolves to."""
    found: dict[str, Path] = {}
    for directory in shipped_dirs(environ):
        for path in sorted(directory.glob("*.toml")) if directory.is_dir() else ():
            found.setdefault(path.stem, path)
    return found


def _looks_like_path(ref: str) -> bool:
    return "/" in ref or os.sep in ref or ref.endswith(".toml")


def locate(
    ref: str,
    *,
    base: Path | None = None,
    referenced_from: str = "",
    environ: Mapping[str, str] | None = None,
) -> Path:
    """The file a profile reference names: a path (relative to `base`) or a shipped name."""
    if _looks_like_path(ref):
        path = Path(ref).expanduser()
        if base is not None and not path.is_absolute():
            path = base / path
        if path.is_file():
            return path
        raise ProfileNotFound(ref, referenced_from, (str(path),))
    dirs = shipped_dirs(environ)
    for directory in dirs:
        candidate = directory / f"{ref}.toml"
        if candidate.is_file():
            return candidate
    raise ProfileNotFound(ref, referenced_from, tuple(str(d) for d in dirs))


# --------------------------------------------------------------------------------------------
# one file
# --------------------------------------------------------------------------------------------


class ProfileFile(NamedTuple):
    """One TOML file, checked for shape but not yet merged."""

    path: Path
    name: str
    description: str
    extends: tuple[str, ...]
    plugins: Mapping[str, Mapping[str, Any]]
    sandbox: Mapping[str, Any]
    require: Mapping[str, Any]

    @property
    def label(self) -> str:
        return str(self.path)


def read_file(path: Path) -> ProfileFile:
    """Parse and shape-check one profile file."""
    label = str(path)
    try:
        with open(path, "rb") as fh:
            doc = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(label, "", f"not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(label, "", f"cannot read the file: {exc.strerror}") from None
    for key in doc:
        if key not in SECTIONS:
            raise ConfigError(label, key, f"unknown table; expected one of: {', '.join(SECTIONS)}")
    head = _table(doc, "profile", label)
    for key in head:
        if key not in ("name", "extends", "description"):
            raise ConfigError(
                label, f"profile.{key}", "unknown key; expected one of: name, extends, description"
            )
    extends = head.get("extends", [])
    if isinstance(extends, str):
        extends = [extends]
    if not isinstance(extends, list) or not all(isinstance(e, str) and e for e in extends):
        raise ConfigError(label, "profile.extends", "expected a profile name or a list of them")
    name = head.get("name", path.stem)
    description = head.get("description", "")
    for key, value in (("name", name), ("description", description)):
        if not isinstance(value, str):
            raise ConfigError(label, f"profile.{key}", f"expected a string, got {value!r}")
    plugins = _table(doc, "plugins", label)
    for plugin, table in plugins.items():
        if not isinstance(table, dict):
            raise ConfigError(label, f"plugins.{plugin}", "expected a table ([plugins.NAME])")
        if "enabled" in table and not isinstance(table["enabled"], bool):
            raise ConfigError(label, f"plugins.{plugin}.enabled", "expected true or false")
        if "distribution" in table and not isinstance(table["distribution"], str):
            raise ConfigError(label, f"plugins.{plugin}.distribution", "expected a string")
    return ProfileFile(
        path=path,
        name=name,
        description=description,
        extends=tuple(extends),
        plugins=plugins,
        sandbox=_table(doc, "sandbox", label),
        require=_table(doc, "require", label),
    )


def _table(doc: Mapping[str, Any], key: str, label: str) -> dict[str, Any]:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(label, key, "expected a table")
    return value


def load_chain(ref: str, environ: Mapping[str, str] | None = None) -> list[ProfileFile]:
    """The files of a profile, parents first, each once; raises `ProfileCycle` on a cycle."""
    order: list[ProfileFile] = []
    done: set[Path] = set()

    def visit(path: Path, stack: tuple[Path, ...]) -> None:
        key = path.resolve()
        if key in stack:
            cycle = (*stack[stack.index(key) :], key)
            raise ProfileCycle(tuple(str(p) for p in cycle))
        if key in done:
            return
        pf = read_file(path)
        for parent in pf.extends:
            visit(
                locate(parent, base=path.parent, referenced_from=pf.label, environ=environ),
                (*stack, key),
            )
        done.add(key)
        order.append(pf)

    visit(locate(ref, environ=environ), ())
    return order


# --------------------------------------------------------------------------------------------
# the resolved profile
# --------------------------------------------------------------------------------------------


class PluginEntry(NamedTuple):
    """One plugin of the resolved profile, with its validated configuration."""

    name: str
    installed: InstalledPlugin
    descriptor: PluginDescriptor
    declared: FrozenDict  # as written: secret markers intact (shown, digested)
    config: FrozenDict  # secrets resolved (handed to the factory only)
    file: str  # the last file that configured it


@attrs.frozen
class Profile:
    """A resolved, validated profile."""

    name: str
    path: Path
    description: str
    files: tuple[str, ...]
    plugins: tuple[PluginEntry, ...]
    sandbox: SandboxPolicy
    require_seams: tuple[str, ...]
    require_plugins: FrozenDict

    def plugin(self, name: str) -> PluginEntry | None:
        return next((p for p in self.plugins if p.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": str(self.path),
            "description": self.description,
            "files": list(self.files),
            "plugins": {
                p.name: {
                    "distribution": p.installed.distribution,
                    "version": p.installed.version,
                    "provides": sorted(p.descriptor.provides),
                    "requires": sorted(p.descriptor.requires),
                    "config": jsonvalue.thaw(p.declared),
                }
                for p in self.plugins
            },
            "sandbox": {
                "mode": str(self.sandbox.mode),
                "writable_roots": [str(r) for r in self.sandbox.writable_roots],
                "network": self.sandbox.network,
            },
            "require": {
                "seams": list(self.require_seams),
                "plugins": jsonvalue.thaw(self.require_plugins),
            },
        }


class _Table:
    """One plugin's table while the chain is merged: values, and the file each key came from."""

    __slots__ = ("distribution", "enabled", "file", "origins", "values")

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.origins: dict[str, str] = {}
        self.enabled = True
        self.distribution: str | None = None
        self.file = ""


OVERRIDE_ORIGIN = "<command line>"


def resolve_profile(
    ref: str,
    *,
    discovery: Discovery | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> Profile:
    """Resolve a profile name or path into a validated :class:`Profile`.

    `overrides` (plugin name → keys) is applied last, to plugins the profile enables, as if
    written in one more file (``<command line>``); it is how ``seamhost run`` hands the scenario
    to a scripted model. Overridden values are validated like any other.
    """
    env = os.environ if environ is None else environ
    chain = load_chain(ref, env)
    top = chain[-1]
    found = discovery if discovery is not None else discover(environ=env)

    descriptors = _load_descriptors(chain, found)
    tables = _merge_plugins(chain, descriptors)
    for name, values in (overrides or {}).items():
        table = tables.get(name)
        if table is not None and table.enabled:
            table.values.update(values)
            table.origins.update(dict.fromkeys(values, OVERRIDE_ORIGIN))
    entries = []
    for name, table in tables.items():
        if not table.enabled:
            continue
        installed, descriptor = descriptors[name]
        declared = dict(table.values.items())
        config = _validate(
            name=name,
            descriptor=descriptor,
            declared=declared,
            origins=table.origins,
            table_file=table.file,
            environ=env,
        )
        entries.append(
            PluginEntry(name, installed, descriptor, freeze(declared), freeze(config), table.file)
        )
    sandbox = _merge_sandbox(chain)
    seams, versions = _merge_require(chain)
    _check_versions(versions, {e.name: e for e in entries}, found)
    _check_seams(top.label, seams, entries)
    return Profile(
        name=top.name,
        path=top.path,
        description=top.description,
        files=tuple(pf.label for pf in chain),
        plugins=tuple(entries),
        sandbox=sandbox,
        require_seams=tuple(sorted({seam for seam, _ in seams})),
        require_plugins=freeze({name: spec for name, (spec, _) in versions.items()}),
    )


def _load_descriptors(
    chain: list[ProfileFile], found: Discovery
) -> dict[str, tuple[InstalledPlugin, PluginDescriptor]]:
    """Import every plugin the chain names that ends enabled, or that is installed."""
    final: dict[str, tuple[bool, str, str | None]] = {}
    for pf in chain:
        for name, table in pf.plugins.items():
            enabled, _, dist = final.get(name, (True, pf.label, None))
            final[name] = (
                table.get("enabled", enabled),
                pf.label,
                table.get("distribution", dist),
            )
    out: dict[str, tuple[InstalledPlugin, PluginDescriptor]] = {}
    for name, (enabled, label, dist) in final.items():
        installed = found.get(name)
        if installed is None:
            if enabled:
                hint = dist or f"seamhost-{name}"
                raise PluginNotInstalled(name, hint, label, disabled=name in found.blocked)
            continue
        out[name] = (installed, installed.load())
    return out


def _merge_plugins(
    chain: list[ProfileFile], descriptors: Mapping[str, tuple[InstalledPlugin, PluginDescriptor]]
) -> dict[str, _Table]:
    tables: dict[str, _Table] = {}
    for pf in chain:
        for name, raw in pf.plugins.items():
            table = tables.setdefault(name, _Table())
            table.file = pf.label
            accumulate = descriptors[name][1].accumulate if name in descriptors else frozenset()
            if raw.get("enabled") is False:
                carried = [k for k in accumulate if table.values.get(k)]
                if carried:
                    origin = table.origins[carried[0]]
                    raise ConfigError(
                        pf.label,
                        f"plugins.{name}.enabled",
                        f"cannot disable {name!r}: it carries {carried[0]!r} entries inherited "
                        f"from {origin}, which a child profile can neither remove nor disable",
                    )
            if "enabled" in raw:
                table.enabled = raw["enabled"]
            if "distribution" in raw:
                table.distribution = raw["distribution"]
            for key, value in raw.items():
                if key in RESERVED_PLUGIN_KEYS:
                    continue
                if key in accumulate:
                    if not isinstance(value, list):
                        raise ConfigError(
                            pf.label, f"plugins.{name}.{key}", "expected a list (it accumulates)"
                        )
                    table.values[key] = [*table.values.get(key, []), *value]
                    table.origins.setdefault(key, pf.label)
                else:
                    table.values[key] = value
                    table.origins[key] = pf.label
    return tables


def _validate(
    *,
    name: str,
    descriptor: PluginDescriptor,
    declared: dict[str, Any],
    origins: Mapping[str, str],
    table_file: str,
    environ: Mapping[str, str],
) -> dict[str, Any]:
    known = descriptor.config_keys
    for key in declared:
        if key not in known:
            expected = ", ".join(sorted(known)) or "no keys (this plugin takes no configuration)"
            raise ConfigError(
                origins[key], f"plugins.{name}.{key}", f"unknown key; expected {expected}"
            )
    config = {
        key: _resolve_secrets(value, origins[key], ["plugins", name, key], environ)
        for key, value in declared.items()
    }
    violation = compile_schema(descriptor.config_schema)(config)
    if violation is not None:
        path = ("plugins", name, *violation.path)
        origin = origins.get(str(violation.path[0])) if violation.path else None
        problem = violation.problem
        if violation.path:
            problem += f" (got {_at(declared, violation.path)!r})"
        raise ConfigError(origin or table_file, join_key(path), problem)
    return config


def _at(value: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _resolve_secrets(
    value: Any, label: str, path: list[str | int], environ: Mapping[str, str]
) -> Any:
    if isinstance(value, dict):
        if len(value) == 1 and "$env" in value:
            var = value["$env"]
            if not isinstance(var, str) or var not in environ:
                raise ConfigError(
                    label,
                    join_key(path),
                    f"environment variable {var!r} is not set; set it or replace the value",
                )
            return environ[var]
        if len(value) == 1 and "$file" in value:
            target = Path(str(value["$file"])).expanduser()
            if not target.is_absolute():
                target = Path(label).parent / target
            try:
                return target.read_text(encoding="utf-8").rstrip("\n")
            except OSError as exc:
                raise ConfigError(
                    label,
                    join_key(path),
                    f"cannot read secret file {str(target)!r}: {exc.strerror}",
                ) from None
        return {k: _resolve_secrets(v, label, [*path, k], environ) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve_secrets(v, label, [*path, i], environ) for i, v in enumerate(value)]
    return value


def _merge_sandbox(chain: Iterable[ProfileFile]) -> SandboxPolicy:
    mode, network = SandboxMode.READ_ONLY, False
    roots: tuple[Path, ...] = ()
    for pf in chain:
        for key, value in pf.sandbox.items():
            where = f"sandbox.{key}"
            if key == "mode":
                try:
                    mode = SandboxMode(value)
                except ValueError:
                    choices = ", ".join(m.value for m in SandboxMode)
                    raise ConfigError(pf.label, where, f"expected one of {choices}") from None
            elif key == "writable_roots":
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise ConfigError(pf.label, where, "expected a list of paths")
                roots = tuple(Path(v).expanduser() for v in value)
            elif key == "network":
                if not isinstance(value, bool):
                    raise ConfigError(pf.label, where, "expected true or false")
                network = value
            else:
                raise ConfigError(
                    pf.label, where, "unknown key; expected mode, writable_roots or network"
                )
    return SandboxPolicy(mode, roots, network)


def _merge_require(
    chain: Iterable[ProfileFile],
) -> tuple[list[tuple[str, str]], dict[str, tuple[str, str]]]:
    seams: list[tuple[str, str]] = []
    versions: dict[str, tuple[str, str]] = {}
    for pf in chain:
        for key, value in pf.require.items():
            if key == "seams":
                if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                    raise ConfigError(pf.label, "require.seams", "expected a list of seam names")
                seams.extend((seam, pf.label) for seam in value)
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
            else:
                raise ConfigError(
                    pf.label, f"require.{key}", "unknown key; expected seams or plugins"
                )
    return seams, versions


def _check_versions(
    versions: Mapping[str, tuple[str, str]],
    entries: Mapping[str, PluginEntry],
    found: Discovery,
) -> None:
    if not versions:
        return
    from seamhost.kernel.profile.versions import satisfies  # see _merge_require

    for plugin, (spec, label) in versions.items():
        entry = entries.get(plugin)
        installed = entry.installed if entry else found.get(plugin)
        where = f"require.plugins.{plugin}"
        if installed is None:
            raise PluginNotInstalled(plugin, f"seamhost-{plugin}", label)
        if not satisfies(installed.version, spec):
            raise ConfigError(
                label,
                where,
                f"requires {plugin} {spec}, but {installed.distribution} {installed.version} "
                f"is installed; install a matching version (pip install "
                f"'{installed.distribution}{spec.split(',')[0].strip()}')",
            )


def _check_seams(label: str, seams: list[tuple[str, str]], entries: list[PluginEntry]) -> None:
    provided = {seam for entry in entries for seam in entry.descriptor.provides}
    wanted = [(seam, f"profile {origin}") for seam, origin in seams]
    wanted += [
        (seam, f'plugin "{entry.name}"')
        for entry in entries
        for seam in sorted(entry.descriptor.requires)
    ]
    missing: dict[str, str] = {}
    for seam, who in wanted:
        if seam not in provided:
            missing[seam] = f"{missing[seam]}, {who}" if seam in missing else who
    if missing:
        raise MissingSeams(label, tuple(sorted(missing.items())))
