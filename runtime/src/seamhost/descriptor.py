"""What a plugin distribution exposes through its ``seamhost.plugins`` entry point.

The entry point names a :class:`PluginDescriptor`; its ``name`` must equal the entry-point name
(the name profiles use). The kernel validates the plugin's profile table against
``config_schema`` (unknown keys are always refused), then calls ``factory`` with a
:class:`PluginContext`; the object(s) it returns are registered with pluggy.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.jsonvalue import FrozenDict, freeze

if TYPE_CHECKING:
    from types import ModuleType

    from seamhost.sandbox import SandboxPolicy
    from seamhost.session.events import Event

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

    name: str
    config: FrozenDict
    profile_path: Path
    sandbox: SandboxPolicy
    event_types: tuple[type[Event], ...] = ()
    environ: Mapping[str, str] = attrs.field(factory=lambda: os.environ, eq=False, repr=False)


def _names(value: Sequence[str] | frozenset[str]) -> frozenset[str]:
    return frozenset(value)


@attrs.frozen
class PluginDescriptor:
    """A plugin: its name, config schema, seams provided and required, and factory.

    `accumulate` names list-valued config keys that concatenate across ``extends`` instead of
    being replaced, and that a child profile can neither drop nor disable (floors).
    `event_types` adds session event types; `hookspecs` adds seams of the plugin's own.
    """

    name: str
    factory: Callable[[PluginContext], object] = attrs.field(eq=False)
    config_schema: Mapping[str, Any] = attrs.field(default=EMPTY_SCHEMA, converter=freeze)
    provides: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    requires: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    description: str = ""
    accumulate: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    event_types: tuple[type[Event], ...] = ()
    hookspecs: tuple[ModuleType | type, ...] = attrs.field(default=(), eq=False)

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
        return out

    @property
    def config_keys(self) -> frozenset[str]:
        properties: Mapping[str, Any] = self.config_schema.get("properties", {})
        return frozenset(properties)
