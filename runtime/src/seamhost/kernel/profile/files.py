"""Profile files: where a profile name is looked up, one file read and checked, the extends chain.

``extends`` (a shipped profile name or a path, relative to the extending file) is followed
depth-first, parents left to right; each file is applied once, parents before children. A cycle
is an error naming it. :class:`ProfileFile` is a named tuple rather than an attrs class: every
command resolves a profile, and each attrs class costs start-up to create.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from seamhost.errors import ConfigError, ProfileCycle, ProfileNotFound
from seamhost.input_limits import PROFILE_BYTES, parse_toml, read_capped, user_path

PROFILE_PATH_ENV = "SEAMHOST_PROFILE_PATH"
# What a profile given as text is called in errors; as a path it is relative, so what the text's
# own relative paths (``extends``, a store's root) name is found from the current directory.
TEXT_LABEL = "<profile text>"
SHIPPED_DIR = Path(__file__).parents[2] / "profiles"  # the profiles seamhost ships
SECTIONS = (
    "profile",
    "plugins",
    "sandbox",
    "limits",
    "recovery",
    "retention",
    "require",
    "gateway",
    "pricing",
)


def shipped_dirs(environ: Mapping[str, str] | None = None) -> list[Path]:
    """Where profile names are looked up: ``$SEAMHOST_PROFILE_PATH``, then the shipped ones."""
    env = os.environ if environ is None else environ
    dirs = [Path(p) for p in env.get(PROFILE_PATH_ENV, "").split(os.pathsep) if p]
    dirs.append(SHIPPED_DIR)
    return dirs


def shipped_profiles(environ: Mapping[str, str] | None = None) -> dict[str, Path]:
    """Every profile name reachable by name, with the file it resolves to."""
    found: dict[str, Path] = {}
    for directory in shipped_dirs(environ):
        for path in sorted(directory.glob("*.toml")) if directory.is_dir() else ():
            found.setdefault(path.stem, path)
    return found


def looks_like_path(ref: str) -> bool:
    return "/" in ref or os.sep in ref or ref.endswith(".toml")


def locate(
    ref: str,
    *,
    base: Path | None = None,
    referenced_from: str = "",
    environ: Mapping[str, str] | None = None,
) -> Path:
    """The file a profile reference names: a path (relative to `base`) or a shipped name."""
    if looks_like_path(ref):
        path = user_path(ref, referenced_from or ref, "profile.extends" if base else "")
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
    import difflib

    close = difflib.get_close_matches(ref, list(shipped_profiles(environ)), n=3)
    raise ProfileNotFound(ref, referenced_from, tuple(str(d) for d in dirs), tuple(close))


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
    limits: Mapping[str, Any] = {}
    gateway: Mapping[str, Any] = {}
    recovery: Mapping[str, Any] = {}
    retention: Mapping[str, Any] = {}
    pricing: Mapping[str, Any] = {}

    @property
    def label(self) -> str:
        return str(self.path)


def read_file(path: Path, text: str | None = None) -> ProfileFile:
    """Parse and shape-check one profile file (or `text`, labelled by `path`)."""
    label = str(path)
    if text is None:
        data = read_capped(path, PROFILE_BYTES, "profile")
    else:
        data = text.encode("utf-8", "surrogatepass")
        if len(data) > PROFILE_BYTES:
            raise ConfigError(label, "", f"the profile is larger than {PROFILE_BYTES >> 10} KiB")
    doc = parse_toml(data, label)
    for key in doc:
        if key not in SECTIONS:
            raise ConfigError(label, key, f"unknown table; expected one of: {', '.join(SECTIONS)}")
    head = table_of(doc, "profile", label)
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
    plugins = table_of(doc, "plugins", label)
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
        sandbox=table_of(doc, "sandbox", label),
        require=table_of(doc, "require", label),
        limits=table_of(doc, "limits", label),
        gateway=table_of(doc, "gateway", label),
        recovery=table_of(doc, "recovery", label),
        retention=table_of(doc, "retention", label),
        pricing=table_of(doc, "pricing", label),
    )


def table_of(doc: Mapping[str, Any], key: str, label: str) -> dict[str, Any]:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(label, key, "expected a table")
    return value


def load_chain(
    ref: str, environ: Mapping[str, str] | None = None, *, text: str | None = None
) -> list[ProfileFile]:
    """The files of a profile, parents first, each once; raises `ProfileCycle` on a cycle.

    With `text`, the profile is that TOML text instead of the file `ref` names, labelled
    :data:`TEXT_LABEL` (`ref` is ignored); its ``extends`` are looked up as a file's are.
    """
    order: list[ProfileFile] = []
    done: set[Path] = set()

    def visit(path: Path, stack: tuple[Path, ...]) -> None:
        key = path.resolve()
        if key in stack:
            cycle = (*stack[stack.index(key) :], key)
            raise ProfileCycle(tuple(str(p) for p in cycle))
        if key in done:
            return
        pf = read_file(path, text if path == top else None)
        for parent in pf.extends:
            visit(
                locate(parent, base=path.parent, referenced_from=pf.label, environ=environ),
                (*stack, key),
            )
        done.add(key)
        order.append(pf)

    top = Path(TEXT_LABEL) if text is not None else locate(ref, environ=environ)
    visit(top, ())
    return order
