"""Merging the plugin tables of a profile's ``extends`` chain (design.md §3.2).

Keys merge one by one, later files winning, except the keys a plugin declares: ``accumulate``
keys (floors) concatenate, parents first, and a table carrying inherited entries cannot be
disabled; ``merge`` keys (rules, where the first match decides) put a child's entries before its
parents', unless the child's table says ``replace = ["KEY"]``. Each merged entry remembers the
file it came from, for ``seamhost profile show``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from seamhost.errors import ConfigError

if TYPE_CHECKING:
    from seamhost.kernel.plugins import InstalledPlugin, PluginDescriptor
    from seamhost.kernel.profile.files import ProfileFile
    from seamhost.kernel.profile.provenance import Provenance

RESERVED_PLUGIN_KEYS = frozenset({"enabled", "distribution", "replace"})


class Table:
    """One plugin's table while the chain is merged: values, and the file each key came from."""

    __slots__ = ("distribution", "enabled", "entry_files", "file", "origins", "values")

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.origins: dict[str, str] = {}
        self.entry_files: dict[str, tuple[str, ...]] = {}
        self.enabled = True
        self.distribution: str | None = None
        self.file = ""


def merge_plugin_tables(
    chain: list[ProfileFile],
    descriptors: Mapping[str, tuple[InstalledPlugin, PluginDescriptor]],
    provenance: Provenance,
) -> dict[str, Table]:
    tables: dict[str, Table] = {}
    for pf in chain:
        for name, raw in pf.plugins.items():
            table = tables.setdefault(name, Table())
            table.file = pf.label
            where = f"plugins.{name}"
            provenance.table(where, pf.label, raw)
            descriptor = descriptors[name][1] if name in descriptors else None
            accumulate = descriptor.accumulate if descriptor else frozenset()
            merge = descriptor.merge if descriptor else frozenset()
            replace = _replaced_keys(pf.label, name, raw, accumulate, merge)
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
                    provenance.set(f"{where}.{key}", pf.label, value)
                    continue
                if (key in accumulate or key in merge) and not isinstance(value, list):
                    how = "it accumulates" if key in accumulate else "it merges"
                    raise ConfigError(pf.label, f"{where}.{key}", f"expected a list ({how})")
                if key in accumulate:
                    provenance.add(f"{where}.{key}", pf.label, value)
                    table.values[key] = [*table.values.get(key, []), *value]
                    table.origins.setdefault(key, pf.label)
                elif key in merge:
                    replacing = key in replace
                    provenance.merge(f"{where}.{key}", pf.label, value, replace=replacing)
                    kept = [] if replacing else table.values.get(key, [])
                    kept_files = () if replacing else table.entry_files.get(key, ())
                    table.values[key] = [*value, *kept]
                    table.entry_files[key] = (pf.label,) * len(value) + kept_files
                    table.origins[key] = pf.label
                else:
                    table.values[key] = value
                    table.origins[key] = pf.label
                    provenance.set(f"{where}.{key}", pf.label, value)
    return tables


def _replaced_keys(
    label: str,
    name: str,
    raw: Mapping[str, Any],
    accumulate: frozenset[str],
    merge: frozenset[str],
) -> frozenset[str]:
    """The keys `raw`'s ``replace`` names, each checked to be one that merges."""
    where = f"plugins.{name}.replace"
    replace = raw.get("replace", [])
    if not isinstance(replace, list) or not all(isinstance(k, str) for k in replace):
        raise ConfigError(label, where, 'expected a list of key names, e.g. replace = ["rules"]')
    for key in replace:
        if key in accumulate:
            raise ConfigError(
                label,
                where,
                f"{key!r} accumulates: a child profile adds to the {key!r} entries it inherits "
                "and can never replace them",
            )
        if key not in merge:
            merging = ", ".join(sorted(merge)) or "none"
            raise ConfigError(
                label,
                where,
                f"{key!r} does not merge, so there is nothing to replace (a child's value "
                f"already replaces its parents'); keys of {name!r} that merge: {merging}",
            )
        if key not in raw:
            raise ConfigError(
                label,
                where,
                f"replace names {key!r} but this table sets no {key!r}: set "
                f"{key} = [] to drop every inherited entry",
            )
    return frozenset(replace)
