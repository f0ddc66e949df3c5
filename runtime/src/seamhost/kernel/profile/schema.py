"""The JSON Schema of a profile for a set of plugins (``seamhost profile schema``).

Editors use it for completion and validation of profile TOML. Each plugin contributes its own
config schema under ``plugins.<name>``, extended with the reserved keys (``enabled``,
``distribution``); every config value may also be a secret marker (``{"$env": ...}``,
``{"$file": ...}``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from seamhost.jsonvalue import thaw
from seamhost.kernel.plugins import PluginDescriptor
from seamhost.kernel.profile.gateway import SCHEMA as GATEWAY
from seamhost.kernel.profile.limits import SCHEMA as LIMITS
from seamhost.kernel.profile.pricing import PRICE_SCHEMA
from seamhost.kernel.profile.pricing import SCHEMA as PRICING
from seamhost.kernel.profile.recovery import SCHEMA as RECOVERY
from seamhost.kernel.profile.retention import SCHEMA as RETENTION
from seamhost.sandbox.policy import SandboxMode

SECRET: dict[str, Any] = {  # a value may be a secret marker instead
    "oneOf": [
        {
            "type": "object",
            "properties": {"$env": {"type": "string"}},
            "required": ["$env"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"$file": {"type": "string"}},
            "required": ["$file"],
            "additionalProperties": False,
        },
    ]
}


def plugin_table_schema(descriptor: PluginDescriptor) -> dict[str, Any]:
    schema: dict[str, Any] = thaw(descriptor.config_schema)
    properties: dict[str, Any] = {
        key: {"anyOf": [value, SECRET]} for key, value in schema.get("properties", {}).items()
    }
    properties["enabled"] = {"type": "boolean", "description": "false removes an inherited plugin"}
    properties["distribution"] = {
        "type": "string",
        "description": "the distribution to install when the plugin is missing",
    }
    schema["properties"] = properties
    schema["additionalProperties"] = False
    schema.pop("required", None)  # a child profile may set only some keys of a parent's table
    if descriptor.description:
        schema.setdefault("description", descriptor.description)
    return schema


def profile_schema(descriptors: Iterable[PluginDescriptor]) -> dict[str, Any]:
    plugins = {d.name: plugin_table_schema(d) for d in sorted(descriptors, key=lambda d: d.name)}
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "seamhost profile",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "profile": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "extends": {
                        "anyOf": [
                            {"type": "string"},
                            {"type": "array", "items": {"type": "string"}},
                        ],
                        "description": "shipped profile names or paths, merged left to right",
                    },
                },
            },
            "plugins": {"type": "object", "additionalProperties": False, "properties": plugins},
            "sandbox": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "mode": {"enum": [m.value for m in SandboxMode]},
                    "writable_roots": {"type": "array", "items": {"type": "string"}},
                    "read_only_paths": {"type": "array", "items": {"type": "string"}},
                    "network": {"type": "boolean"},
                },
            },
            "limits": {
                "type": "object",
                "additionalProperties": False,
                "properties": LIMITS,
            },
            "gateway": {
                "type": "object",
                "additionalProperties": False,
                "properties": GATEWAY,
            },
            "recovery": {
                "type": "object",
                "additionalProperties": False,
                "properties": RECOVERY,
            },
            "retention": {"type": "object", "additionalProperties": False, "properties": RETENTION},
            "pricing": {
                "type": "object",
                "properties": PRICING,
                "additionalProperties": PRICE_SCHEMA,
            },
            "require": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "seams": {"type": "array", "items": {"type": "string"}},
                    "plugins": {"type": "object", "additionalProperties": {"type": "string"}},
                },
            },
        },
    }
