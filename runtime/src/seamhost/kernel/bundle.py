"""Bundles: a resolved profile turned into registered plugins, and its immutable snapshot.

Building a bundle (design.md §3.1, §3.3):

1. refuse two plugins that declare the same single-provider seam, naming both;
2. make a fresh plugin manager (:func:`make_plugin_manager`, never a module global) with the seam
   hook specs and any a plugin adds;
3. call each plugin's factory with its validated config, and register what it returns, in
   **reverse** profile order so that pluggy's call order (last registered first) is the profile
   order; a factory that raises is reported by plugin name with the cause chained;
4. refuse ``hookwrapper``/``wrapper`` implementations, and provider-seam implementations that
   the plugin's descriptor does not declare (or declarations without an implementation);
5. ``check_pending()``, so a misspelt hook implementation fails loudly;
6. collect the tools (``tools/register``), refusing a name registered twice;
7. freeze the identity of it all into a :class:`BundleSnapshot` with a digest, written into
   every session header so a resumed session knows exactly what wrote it.

The snapshot's records (:class:`PluginIdentity`, :class:`ToolIdentity`) are named tuples, not
attrs classes: every command builds a bundle, and each attrs class costs its start-up a fraction
of a millisecond to create.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import attrs
import pluggy

from seamhost import jsonvalue
from seamhost.errors import (
    ConfigError,
    PluginConflict,
    PluginLoadError,
    SeamContractError,
    SeamUnavailable,
    describe,
)
from seamhost.kernel import hookspecs
from seamhost.kernel.catalogue import SEAMS, SINGLE_PROVIDER, hook_name
from seamhost.kernel.modes import Mode
from seamhost.kernel.plugins import PluginContext
from seamhost.kernel.profile.resolve import PluginEntry, Profile
from seamhost.kernel.seams import Seams
from seamhost.tool.declaration import RegisteredTool

if TYPE_CHECKING:
    from types import ModuleType

    from seamhost.jsonvalue import FrozenDict
    from seamhost.sandbox.confinement import ConfinedCommand, ConfineRequest
    from seamhost.sandbox.runner import Confine
    from seamhost.session.codec import EventCatalog
    from seamhost.session.events import Event
    from seamhost.session.store import SessionStore

TRACE_ENV = "SEAMHOST_TRACE_HOOKS"
# Declared in `provides` by a checkpoint policy: sessions of the bundle are written with barriers.
CHECKPOINT_CAPABILITY = "session/checkpoint"
_CATALOGS: dict[tuple[type[Event], ...], EventCatalog] = {}  # event classes → their catalogue


class PluginIdentity(NamedTuple):
    """Exactly which plugin, from which distribution and version, configured how."""

    name: str
    distribution: str
    version: str
    config_digest: str
    provides: tuple[str, ...]


class ToolIdentity(NamedTuple):
    """A tool of the bundle and the digest of its declaration.

    `origin` is a mounted tool's pinned identity (an MCP server's and the upstream descriptor
    with its digest, design.md §13); it is written only when present, so a bundle without
    mounted tools keeps the digest it always had.
    """

    name: str
    plugin: str
    digest: str
    origin: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"name": self.name, "plugin": self.plugin, "digest": self.digest}
        if self.origin is not None:
            body["origin"] = jsonvalue.thaw(self.origin)
        return body


@attrs.frozen
class BundleSnapshot:
    """The immutable identity of a bundle, serialisable into a session header."""

    profile: str  # the profile's name
    sandbox_mode: str  # the profile's sandbox mode
    plugins: tuple[PluginIdentity, ...]
    """each plugin: name, distribution, version, config digest, provides"""
    tools: tuple[ToolIdentity, ...]  # each tool: name, plugin and the digest of its declaration
    # Part of the digest when present, so a session is continued only by what wrote it
    # (design.md §6); a snapshot written before they were recorded has none.
    limits: FrozenDict | None = None  # the profile's resolved [limits]
    recovery: FrozenDict | None = None  # the profile's resolved [recovery]
    model: FrozenDict | None = None  # the llm/adapter's identity, once a session is created

    @property
    def digest(self) -> str:
        return jsonvalue.digest(self._body())

    def _body(self) -> dict[str, Any]:
        body = {
            "profile": self.profile,
            "sandbox_mode": self.sandbox_mode,
            "plugins": [{**p._asdict(), "provides": list(p.provides)} for p in self.plugins],
            "tools": [t.to_json() for t in self.tools],
        }
        for key in ("limits", "recovery", "model"):
            value = getattr(self, key)
            if value is not None:
                body[key] = jsonvalue.thaw(value)
        return body

    def to_json(self) -> dict[str, Any]:
        return {**self._body(), "digest": self.digest}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BundleSnapshot:
        snapshot = cls(
            profile=data["profile"],
            sandbox_mode=data["sandbox_mode"],
            plugins=tuple(
                PluginIdentity(**{**p, "provides": tuple(p["provides"])}) for p in data["plugins"]
            ),
            tools=tuple(
                ToolIdentity(**{**t, "origin": jsonvalue.freeze(t["origin"])})
                if "origin" in t
                else ToolIdentity(**t)
                for t in data["tools"]
            ),
            **{
                key: jsonvalue.freeze(data[key])
                for key in ("limits", "recovery", "model")
                if data.get(key) is not None
            },
        )
        if "digest" in data and data["digest"] != snapshot.digest:
            raise ValueError("bundle snapshot digest does not match its content")
        return snapshot


def make_plugin_manager(extra_specs: tuple[ModuleType | type, ...] = ()) -> pluggy.PluginManager:
    """A fresh plugin manager with the seam hook specs (and `extra_specs`) added."""
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for spec in extra_specs:
        pm.add_hookspecs(spec)
    return pm


@attrs.frozen(eq=False)
class Bundle:
    """A live bundle: the plugin manager, the seam façade, the tools and the snapshot."""

    profile: Profile  # the resolved profile it was built from
    pm: pluggy.PluginManager = attrs.field(repr=False)
    """the pluggy plugin manager; drive seams through `seams`, not `pm.hook`"""
    seams: Seams = attrs.field(repr=False)
    """the typed façade: one method per seam, each in its dispatch mode"""
    tools: Mapping[str, RegisteredTool]
    """tool name → registered tool (its spec and the plugin that registered it)"""
    snapshot: BundleSnapshot  # the bundle's identity, written into every session header
    _store: list[SessionStore] = attrs.field(factory=list, init=False, repr=False)
    _catalog: list[EventCatalog] = attrs.field(factory=list, init=False, repr=False)

    @property
    def catalog(self) -> EventCatalog:
        """The event types sessions of this bundle accept: the core ones and the plugins'."""
        if not self._catalog:
            from seamhost.session.codec import EventCatalog
            from seamhost.session.events import CORE_EVENTS

            extra = (cls for e in self.profile.plugins for cls in e.descriptor.event_types)
            classes = (*CORE_EVENTS, *extra)
            # Building one costs a cattrs converter (tens of ms); it holds nothing of a
            # session's, so bundles of the same event types in one process share it (a matrix
            # builds a bundle per cell).
            if classes not in _CATALOGS:
                _CATALOGS[classes] = EventCatalog(classes)
            self._catalog.append(_CATALOGS[classes])
        return self._catalog[0]

    @property
    def store(self) -> SessionStore:
        """The `session/store` provider's store, or a private in-memory one when none."""
        if not self._store:
            from seamhost.session.memory import MemoryStore

            self._store.append(self.seams.session_store() or MemoryStore())
        return self._store[0]

    @property
    def barriers(self) -> bool:
        """True when a checkpoint policy is in the bundle (it provides ``session/checkpoint``)."""
        return any(
            CHECKPOINT_CAPABILITY in entry.descriptor.provides for entry in self.profile.plugins
        )


def build_bundle(
    profile: Profile,
    *,
    environ: Mapping[str, str] | None = None,
    workspace: Path | None = None,
) -> Bundle:
    """Instantiate and register the plugins of `profile`; see the module docstring.

    `workspace` is the directory the bundle's sessions will work in, when the caller knows it
    (:attr:`PluginContext.workspace`; default: the current directory).
    """
    env = os.environ if environ is None else environ
    where = (workspace or Path.cwd()).resolve()
    entries = profile.plugins
    _check_single_providers(entries)
    pm = make_plugin_manager(
        tuple(spec for entry in entries for spec in entry.descriptor.hookspecs)
    )
    registered: dict[str, str] = {}
    built: list[Seams] = []  # the façade, once it exists: what a plugin's `confine` calls

    async def confine(request: ConfineRequest) -> ConfinedCommand:
        if not built:
            raise SeamUnavailable("sandbox/confine")  # called before the façade exists
        return await built[0].confine(request)

    event_types = tuple(cls for entry in entries for cls in entry.descriptor.event_types)
    for entry in reversed(entries):
        for index, obj in enumerate(
            _instantiate(entry, profile, event_types, env, confine=confine, workspace=where)
        ):
            pm_name = entry.name if index == 0 else f"{entry.name}#{index}"
            try:
                pm.register(obj, name=pm_name)
            except pluggy.PluginValidationError as exc:
                raise PluginLoadError(entry.name, "hooks", str(exc)) from exc
            registered[pm_name] = entry.name
    _check_implementations(pm, entries, registered)
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        plugin = registered.get(pm.get_name(exc.plugin) or "", "?")
        raise PluginLoadError(plugin, "hooks", str(exc)) from exc
    seams = Seams(pm, plugin_names=registered, trace=env.get(TRACE_ENV, "") not in ("", "0"))
    built.append(seams)
    tools = seams.tools_register()
    _check_status_queries(seams.implementers("tools/reconcile"), tools)
    snapshot = BundleSnapshot(
        profile=profile.name,
        sandbox_mode=str(profile.sandbox.mode),
        plugins=tuple(
            PluginIdentity(
                name=e.name,
                distribution=e.installed.distribution,
                version=e.installed.version,
                config_digest=jsonvalue.digest(jsonvalue.thaw(e.declared)),
                provides=tuple(sorted(e.descriptor.provides)),
            )
            for e in entries
        ),
        tools=tuple(
            ToolIdentity(
                name,
                tool.plugin,
                tool.digest,
                None if tool.spec.origin is None else jsonvalue.freeze(dict(tool.spec.origin)),
            )
            for name, tool in sorted(tools.items())
        ),
        limits=jsonvalue.freeze(profile.limits.to_json()),
        recovery=jsonvalue.freeze(profile.recovery.to_json()),
    )
    return Bundle(profile, pm, seams, tools, snapshot)


def _check_status_queries(probing: Sequence[str], tools: Mapping[str, RegisteredTool]) -> None:
    """A ``status_query`` tool's plugin implements ``tools/reconcile``, and only such a plugin.

    A plugin that registered no tool at all (one that mounts tools from elsewhere, with nothing
    configured to mount yet) has nothing to probe and nothing it forgot to declare: it passes.
    """
    declaring = {tool.plugin for tool in tools.values() if tool.spec.status_query}
    registering = {tool.plugin for tool in tools.values()}
    for plugin in sorted(declaring - set(probing)):
        names = sorted(n for n, t in tools.items() if t.plugin == plugin and t.spec.status_query)
        raise SeamContractError(
            "tools/reconcile",
            plugin,
            f"declares status_query for {', '.join(names)} but implements no tools/reconcile hook",
        )
    for plugin in sorted((set(probing) & registering) - declaring):
        raise SeamContractError(
            "tools/reconcile",
            plugin,
            "implements tools/reconcile but registers no tool with status_query=True",
        )


def _check_single_providers(entries: tuple[PluginEntry, ...]) -> None:
    for seam in sorted(SINGLE_PROVIDER):
        claimants = tuple(e.name for e in entries if seam in e.descriptor.provides)
        if len(claimants) > 1:
            raise PluginConflict(f"seam {seam}", claimants)


def _instantiate(
    entry: PluginEntry,
    profile: Profile,
    event_types: tuple[type[Event], ...],
    environ: Mapping[str, str],
    *,
    confine: Confine,
    workspace: Path,
) -> list[object]:
    context = PluginContext(
        entry.name,
        entry.config,
        profile.path,
        profile.sandbox,
        event_types=event_types,
        environ=environ,
        confine=confine,
        workspace=workspace,
    )
    try:
        made = entry.descriptor.factory(context)
    except ConfigError:
        raise  # already names the file and key the user must fix
    except Exception as exc:
        raise PluginLoadError(entry.name, "factory", describe(exc)) from exc
    objects = list(made) if isinstance(made, (list, tuple)) else [made]
    if not objects:
        raise PluginLoadError(entry.name, "factory", "the factory returned no plugin object")
    return objects


def _check_implementations(
    pm: pluggy.PluginManager, entries: tuple[PluginEntry, ...], registered: Mapping[str, str]
) -> None:
    declared = {e.name: e.descriptor.provides for e in entries}
    for seam_name, seam in SEAMS.items():
        implementers: set[str] = set()
        for impl in getattr(pm.hook, hook_name(seam_name)).get_hookimpls():
            plugin = registered[impl.plugin_name]
            if impl.hookwrapper or impl.wrapper:
                raise SeamContractError(
                    seam_name, plugin, "wrapper implementations are refused; use an around seam"
                )
            # The façade calls these without awaiting: a coroutine implementation would never run.
            if seam.synchronous and inspect.iscoroutinefunction(impl.function):
                raise SeamContractError(
                    seam_name, plugin, "is called synchronously at start-up; use a plain function"
                )
            implementers.add(plugin)
            if seam.mode is Mode.PROVIDER and seam_name not in declared[plugin]:
                raise SeamContractError(
                    seam_name, plugin, "implements a provider seam its descriptor does not declare"
                )
        for entry in entries:
            if (
                seam.mode is Mode.PROVIDER
                and seam_name in entry.descriptor.provides
                and entry.name not in implementers
            ):
                raise SeamContractError(
                    seam_name, entry.name, "declares the seam in `provides` but implements no hook"
                )
