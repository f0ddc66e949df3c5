"""Profiles: TOML files that compose a bundle (design.md §3.2).

A profile names the plugins of the bundle (a ``[plugins.<name>]`` table each), the session's
sandbox policy (``[sandbox]``), what must be present (``[require]``), bounds on its work
(``[limits]``), what ``mcp serve`` lets its clients decide (``[gateway]``) and what its
models' tokens cost (``[pricing]``). Resolution:

1. ``extends`` (a shipped profile name or a path, relative to the extending file) is followed
   depth-first, parents left to right; each file is applied once, parents before children (the
   order a class hierarchy's MRO would give for a simple tree). A cycle is an error naming it.
2. Plugin tables merge key by key, later files winning; keys a plugin declares as ``accumulate``
   concatenate instead, and a plugin carrying inherited accumulated entries cannot be disabled;
   keys it declares as ``merge`` (rules, where the first match decides) put a child's entries
   before its parents', unless the child's table says ``replace = ["KEY"]``.
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
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import attrs

from seamhost import jsonvalue
from seamhost.errors import (
    ConfigError,
    MissingSeams,
    PluginNotInstalled,
    join_key,
)
from seamhost.jsonvalue import FrozenDict, freeze
from seamhost.kernel.plugins import Discovery, InstalledPlugin, PluginDescriptor, discover
from seamhost.kernel.profile.files import ProfileFile, load_chain
from seamhost.kernel.profile.gateway import GatewaySettings, merge_gateway
from seamhost.kernel.profile.limits import Limits, merge_limits
from seamhost.kernel.profile.merge import merge_require, merge_sandbox, resolve_secrets, value_at
from seamhost.kernel.profile.pricing import Pricing, merge_pricing
from seamhost.kernel.profile.provenance import Provenance
from seamhost.kernel.profile.recovery import Recovery, merge_recovery
from seamhost.kernel.profile.retention import Retention, merge_retention
from seamhost.kernel.profile.tables import merge_plugin_tables
from seamhost.sandbox.policy import SandboxPolicy
from seamhost.schema import compile_schema

if TYPE_CHECKING:
    from seamhost.redaction import Redactor

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
    entry_files: Mapping[str, tuple[str, ...]] = {}
    """for each key that merges, the file each of its entries came from (profile show)"""


@attrs.frozen
class Profile:
    """A resolved, validated profile."""

    name: str  # the profile's name ([profile] name, else the file's stem)
    path: Path  # the file it was resolved from
    description: str  # [profile] description
    files: tuple[str, ...]  # every file of its extends chain, base first
    plugins: tuple[PluginEntry, ...]  # the enabled plugins, in profile order, configs validated
    sandbox: SandboxPolicy  # the merged [sandbox]
    require_seams: tuple[str, ...]  # seams that must have a provider ([require] seams)
    require_plugins: FrozenDict  # version requirements by plugin ([require] plugins)
    limits: Limits = attrs.field(factory=Limits)  # the merged [limits]
    gateway: GatewaySettings = attrs.field(factory=GatewaySettings)  # the merged [gateway]
    recovery: Recovery = attrs.field(factory=Recovery)  # the merged [recovery]
    retention: Retention = attrs.field(factory=Retention)  # the merged [retention]
    pricing: Pricing = attrs.field(factory=Pricing)  # the merged [pricing]
    provenance: Provenance = attrs.field(factory=Provenance, eq=False, repr=False)
    """which file set each key (for `profile show --why`); a profile built in code has none"""
    secrets: tuple[str, ...] = attrs.field(default=(), eq=False, repr=False)
    """the values its secret markers resolved to, for the bundle's redactor (never shown)"""

    @property
    def redactor(self) -> Redactor:
        """What keeps this profile's secrets out of the errors a session records."""
        from seamhost.redaction import Redactor

        return Redactor(self.secrets)

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
                    **(
                        {"entry_files": {k: list(v) for k, v in p.entry_files.items()}}
                        if p.entry_files
                        else {}
                    ),
                }
                for p in self.plugins
            },
            "sandbox": {
                "mode": str(self.sandbox.mode),
                "writable_roots": [str(r) for r in self.sandbox.writable_roots],
                "read_only_paths": [str(r) for r in self.sandbox.read_only_paths],
                "network": self.sandbox.network,
            },
            "limits": self.limits.to_json(),
            "gateway": self.gateway.to_json(),
            "recovery": self.recovery.to_json(),
            "retention": self.retention.to_json(),
            "pricing": self.pricing.to_json(),
            "require": {
                "seams": list(self.require_seams),
                "plugins": jsonvalue.thaw(self.require_plugins),
            },
        }


OVERRIDE_ORIGIN = "<command line>"


def resolve_profile(
    ref: str,
    *,
    discovery: Discovery | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    text: str | None = None,
) -> Profile:
    """Resolve a profile name or path into a validated :class:`Profile`.

    With `text`, the profile is that TOML text, named ``<profile text>`` in errors
    (:func:`~seamhost.kernel.profile.files.load_chain`); `ref` is then ignored.

    `overrides` (plugin name → keys) is applied last, to plugins the profile enables, as if
    written in one more file (``<command line>``); it is how ``seamhost run`` hands the scenario
    to a scripted model. Overridden values are validated like any other.
    """
    env = os.environ if environ is None else environ
    chain = load_chain(ref, env, text=text)
    top = chain[-1]
    found = discovery if discovery is not None else discover(environ=env)

    descriptors = _load_descriptors(chain, found)
    provenance = Provenance()
    provenance.profiles = {pf.label: pf.name for pf in chain}
    provenance.set("profile.name", top.label, top.name)
    if top.description:
        provenance.set("profile.description", top.label, top.description)
    tables = merge_plugin_tables(chain, descriptors, provenance)
    for name, values in (overrides or {}).items():
        table = tables.get(name)
        if table is not None and table.enabled:
            table.values.update(values)
            table.origins.update(dict.fromkeys(values, OVERRIDE_ORIGIN))
            for key, value in values.items():
                provenance.set(f"plugins.{name}.{key}", OVERRIDE_ORIGIN, value)
    entries = []
    secrets: list[str] = []
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
            secrets=secrets,
        )
        entries.append(
            PluginEntry(
                name,
                installed,
                descriptor,
                freeze(declared),
                freeze(config),
                table.file,
                table.entry_files,
            )
        )
    sandbox = merge_sandbox(chain, provenance)
    seams, versions = merge_require(chain, provenance)
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
        limits=merge_limits(chain),
        gateway=merge_gateway(chain, provenance),
        recovery=merge_recovery(chain),
        retention=merge_retention(chain),
        pricing=merge_pricing(chain),
        provenance=provenance,
        secrets=tuple(secrets),
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


def _validate(
    *,
    name: str,
    descriptor: PluginDescriptor,
    declared: dict[str, Any],
    origins: Mapping[str, str],
    table_file: str,
    environ: Mapping[str, str],
    secrets: list[str],
) -> dict[str, Any]:
    known = descriptor.config_keys
    for key in declared:
        if key not in known:
            expected = ", ".join(sorted(known)) or "no keys (this plugin takes no configuration)"
            raise ConfigError(
                origins[key], f"plugins.{name}.{key}", f"unknown key; expected {expected}"
            )
    found: list[str] = []
    config = {
        key: resolve_secrets(value, origins[key], ["plugins", name, key], environ, found)
        for key, value in declared.items()
    }
    if found:  # known before anything can quote them (the schema's message below, to begin with)
        from seamhost.redaction import remember_secrets

        remember_secrets(found)
        secrets += found
    violation = compile_schema(descriptor.config_schema)(config)
    if violation is not None:
        path = ("plugins", name, *violation.path)
        origin = origins.get(str(violation.path[0])) if violation.path else None
        problem = violation.problem
        if violation.path:
            problem += f" (got {value_at(declared, violation.path)!r})"
        raise ConfigError(origin or table_file, join_key(path), problem)
    return config


def _check_versions(
    versions: Mapping[str, tuple[str, str]],
    entries: Mapping[str, PluginEntry],
    found: Discovery,
) -> None:
    if not versions:
        return
    from seamhost.kernel.profile.versions import InvalidRequirement, satisfies  # see merge

    for plugin, (spec, label) in versions.items():
        entry = entries.get(plugin)
        installed = entry.installed if entry else found.get(plugin)
        where = f"require.plugins.{plugin}"
        if installed is None:
            raise PluginNotInstalled(plugin, f"seamhost-{plugin}", label)
        try:
            ok = satisfies(installed.version, spec)
        except InvalidRequirement as exc:
            raise ConfigError(label, where, str(exc)) from None
        if not ok:
            pinned = "".join(spec.split())
            raise ConfigError(
                label,
                where,
                f"requires {plugin} {spec}, but {installed.distribution} {installed.version} "
                f"is installed; install a matching version (pip install "
                f"'{installed.distribution}{pinned}')",
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
