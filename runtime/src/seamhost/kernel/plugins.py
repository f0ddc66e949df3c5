"""Plugins: what a distribution exposes through its entry point, and how the kernel finds it.

**Descriptors.** The ``seamhost.plugins`` entry point names a :class:`PluginDescriptor`; its
``name`` must equal the entry-point name (the name profiles use). The kernel validates the
plugin's profile table against ``config_schema`` (unknown keys are always refused), then calls
``factory`` with a :class:`PluginContext`; the object(s) it returns are registered with pluggy.

**Discovery.** Listing reads distribution metadata only: it scans
``*.dist-info/entry_points.txt`` on ``sys.path`` directly (faster than importing
:mod:`importlib.metadata`, which matters for the CLI's start-up) and imports nothing. A plugin's
module is imported only by :meth:`InstalledPlugin.load`. ``SEAMHOST_DISABLE_PLUGINS=a,b`` blocks
names: they are reported as blocked, never imported. What it finds are named tuples, cheaper than
attrs classes to create at every start-up.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import attrs

from seamhost.errors import PluginConflict, PluginLoadError, describe
from seamhost.jsonvalue import FrozenDict, freeze
from seamhost.schema import SchemaReferenceError, check_references

if TYPE_CHECKING:
    from types import ModuleType

    from seamhost.sandbox.policy import SandboxPolicy
    from seamhost.sandbox.runner import Confine
    from seamhost.session.events import Event

GROUP = "seamhost.plugins"
DISABLE_ENV = "SEAMHOST_DISABLE_PLUGINS"
_GROUP_BYTES = GROUP.encode()
_DIST_INFO = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)\.dist-info$")

SEAM_NAME = re.compile(r"^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)+$")
PLUGIN_NAME = re.compile(r"^[a-z][a-z0-9-]*$")

EMPTY_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}


@attrs.frozen
class PluginContext:
    """What a plugin factory receives.

    `event_types` are the event classes the plugins of the bundle add to the core ones (a store
    must accept them when it reads). `environ` is the environment the profile was resolved
    with: plugins read it, not ``os.environ``, so a caller can resolve a profile for another
    environment (tests, embedding applications).
    """

    name: str  # the plugin's name (the profile's table name)
    config: FrozenDict
    """its profile table, validated against the config schema; no defaults filled in"""
    profile_path: Path  # the profile file; resolve relative paths against its directory
    sandbox: SandboxPolicy  # the profile's validated [sandbox] table
    event_types: tuple[type[Event], ...] = ()
    """the event classes the bundle's plugins add to the core ones"""
    environ: Mapping[str, str] = attrs.field(factory=lambda: os.environ, eq=False, repr=False)
    """the environment the profile was resolved with; read it, not os.environ"""
    confine: Confine | None = attrs.field(default=None, eq=False, repr=False)
    """the bundle's `sandbox/confine` provider, for a plugin that keeps a subprocess of its own
    (an MCP server): usable from `tools/register` on, raises when there is no provider"""
    workspace: Path = attrs.field(factory=Path.cwd, eq=False)
    """the directory the session's tools will work in, as far as the command building the
    bundle knows it (`--workspace`, a resumed session's own, a worker's run); the current
    directory otherwise. A plugin that starts a process at build time (an MCP server listed)
    starts it there, not wherever the command happens to run"""


def _names(value: Sequence[str] | frozenset[str]) -> frozenset[str]:
    return frozenset(value)


@attrs.frozen
class PluginDescriptor:
    """A plugin: its name, config schema, seams provided and required, and factory.

    `accumulate` names list-valued config keys that concatenate across ``extends`` instead of
    being replaced, and that a child profile can neither drop nor disable (floors). `merge` names
    list-valued keys whose entries a child puts before its parents' (first-match rules), unless
    its table says ``replace = ["KEY"]``.
    `event_types` adds session event types; `hookspecs` adds seams of the plugin's own.
    """

    name: str  # the plugin's name; must equal its entry-point name
    factory: Callable[[PluginContext], object] = attrs.field(eq=False)
    """called with a PluginContext; returns the object(s) to register"""
    config_schema: Mapping[str, Any] = attrs.field(default=EMPTY_SCHEMA, converter=freeze)
    """JSON Schema of its profile table; unknown keys are always refused"""
    provides: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    """the seams it implements (and capabilities such as session/checkpoint)"""
    requires: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    """seams another plugin of the bundle must provide"""
    description: str = ""  # one line, shown by `seamhost plugins`
    accumulate: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    """list keys that concatenate across `extends` (floors)"""
    merge: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    """list keys whose child entries come first across `extends` (rules); `replace` drops them"""
    event_types: tuple[type[Event], ...] = ()  # session event types it adds
    hookspecs: tuple[ModuleType | type, ...] = attrs.field(default=(), eq=False)
    """hook-spec modules or classes: seams of its own"""

    def problems(self) -> list[str]:
        """What is wrong with this descriptor, if anything."""
        out = []
        if not PLUGIN_NAME.match(self.name):
            out.append(f"name {self.name!r} must be lowercase letters, digits and dashes")
        for seam in sorted(self.provides | self.requires):
            if not SEAM_NAME.match(seam):
                out.append(f"seam {seam!r} is not of the form area/verb")
        schema = self.config_schema
        if schema.get("type") != "object" or not isinstance(schema.get("properties"), Mapping):
            out.append('config_schema must be {"type": "object", "properties": {...}}')
        try:
            check_references(schema, "config_schema")
        except SchemaReferenceError as exc:
            out.append(str(exc))
        return out

    @property
    def config_keys(self) -> frozenset[str]:
        properties: Mapping[str, Any] = self.config_schema.get("properties", {})
        return frozenset(properties)


# -- discovery
# --------------------------------------------------------------------------------------


class InstalledPlugin(NamedTuple):
    """An entry point of the group, with the distribution that declares it."""

    name: str
    value: str  # "module:attribute"
    distribution: str
    version: str

    def load(self) -> PluginDescriptor:
        """Import the plugin and return its validated descriptor."""
        module_name, _, attribute = self.value.partition(":")
        try:
            obj: object = importlib.import_module(module_name.strip())
            for part in attribute.strip().split(".") if attribute.strip() else ():
                obj = getattr(obj, part)
        except Exception as exc:
            raise PluginLoadError(self.name, "import", describe(exc)) from exc
        if not isinstance(obj, PluginDescriptor):
            raise PluginLoadError(
                self.name, "descriptor", f"{self.value} is {obj!r}, not a PluginDescriptor"
            )
        problems = obj.problems()
        if obj.name != self.name:
            problems.append(f"descriptor name {obj.name!r} differs from entry point {self.name!r}")
        if problems:
            raise PluginLoadError(self.name, "descriptor", "; ".join(problems))
        return obj


class Discovery(NamedTuple):
    """The installed plugins by name, the blocked names, and duplicated names."""

    plugins: Mapping[str, InstalledPlugin]
    blocked: frozenset[str]
    duplicates: Mapping[str, tuple[str, ...]]

    def get(self, name: str) -> InstalledPlugin | None:
        if name in self.duplicates:
            raise PluginConflict(f"plugin name {name!r}", self.duplicates[name])
        return self.plugins.get(name)


def blocked_names(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    raw = (environ if environ is not None else os.environ).get(DISABLE_ENV, "")
    return frozenset(name.strip() for name in raw.split(",") if name.strip())


def discover(
    paths: Iterable[str] | None = None, environ: Mapping[str, str] | None = None
) -> Discovery:
    """Scan `paths` (default ``sys.path``) for distributions declaring seamhost plugins."""
    blocked = blocked_names(environ)
    found: dict[str, InstalledPlugin] = {}
    claimants: dict[str, list[str]] = {}
    seen_dists: set[str] = set()
    for entry in sys.path if paths is None else paths:
        for dist_info, name, version in _dist_infos(entry or "."):
            key = name.lower().replace("-", "_").replace(".", "_")
            if key in seen_dists:
                continue  # shadowed by an earlier sys.path entry, as importlib does
            seen_dists.add(key)
            for ep_name, value in _entry_points(dist_info / "entry_points.txt"):
                dist = _display_name(dist_info) or name
                if ep_name in blocked:
                    continue
                if ep_name in found:
                    claimants.setdefault(ep_name, [found[ep_name].distribution]).append(dist)
                    continue
                found[ep_name] = InstalledPlugin(ep_name, value, dist, version)
    duplicates = {name: tuple(dists) for name, dists in claimants.items()}
    return Discovery(found, blocked, duplicates)


def _dist_infos(entry: str) -> Iterable[tuple[Path, str, str]]:
    try:
        names = os.listdir(entry)
    except OSError:
        return
    for item in sorted(name for name in names if name.endswith(".dist-info")):
        match = _DIST_INFO.match(item)
        if match:
            yield Path(entry, item), match["name"], match["version"]


def _entry_points(path: Path) -> Iterable[tuple[str, str]]:
    """The ``name = value`` lines of the ``[seamhost.plugins]`` section of entry_points.txt."""
    try:
        data = path.read_bytes()
    except OSError:
        return
    if _GROUP_BYTES not in data:  # most distributions: decide before decoding
        return
    section = None
    for raw in data.decode("utf-8").splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        if section == GROUP and "=" in line:
            name, _, value = line.partition("=")
            yield name.strip(), value.strip()


def _display_name(dist_info: Path) -> str | None:
    """The distribution's ``Name:`` as published (the dist-info directory name is normalised)."""
    try:
        with open(dist_info / "METADATA", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("Name:"):
                    return line[5:].strip()
                if not line.strip():
                    break
    except OSError:
        return None
    return None
