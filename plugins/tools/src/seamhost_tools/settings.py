"""The ``[plugins.tools]`` profile table: its JSON Schema and the settings read from it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from seamhost.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

TOOL_NAMES = ("read_file", "list_dir", "write_file", "edit_file", "shell")

KIB = 1024

CONFIG_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "tools": {
            "type": "array",
            "items": {"type": "string"},
            "uniqueItems": True,
            "description": (
                "The tools to register, a subset of " + ", ".join(TOOL_NAMES) + " (default: all)."
            ),
        },
        "max_read_bytes": {
            "type": "integer",
            "minimum": 1,
            "default": 256 * KIB,
            "description": "The most bytes read_file returns in one call; the rest is marked cut.",
        },
        "max_edit_bytes": {
            "type": "integer",
            "minimum": 1,
            "default": 8 * KIB * KIB,
            "description": "The largest file edit_file loads to edit; bigger ones are refused.",
        },
        "max_list_entries": {
            "type": "integer",
            "minimum": 1,
            "default": 1000,
            "description": "The most entries list_dir returns; the rest are counted, not listed.",
        },
        "output_limit_bytes": {
            "type": "integer",
            "minimum": 1,
            "default": 64 * KIB,
            "description": "The most bytes of stdout, and of stderr, shell returns per call.",
        },
        "shell_timeout_seconds": {
            "type": "number",
            "exclusiveMinimum": 0,
            "default": 120,
            "description": "How long a shell command may run when the call names no timeout.",
        },
        "shell_max_timeout_seconds": {
            "type": "number",
            "exclusiveMinimum": 0,
            "default": 1800,
            "description": "The longest timeout a shell call may ask for.",
        },
    },
    "additionalProperties": False,
}


def _default(key: str) -> Any:
    return CONFIG_SCHEMA["properties"][key]["default"]


class ToolSettings(NamedTuple):
    """The validated table, defaults filled in.

    A named tuple rather than an attrs class: every bundle with this plugin builds one, and
    creating an attrs class costs start-up a fraction of a millisecond.
    """

    tools: tuple[str, ...] = TOOL_NAMES
    max_read_bytes: int = _default("max_read_bytes")
    max_edit_bytes: int = _default("max_edit_bytes")
    max_list_entries: int = _default("max_list_entries")
    output_limit_bytes: int = _default("output_limit_bytes")
    shell_timeout_seconds: float = _default("shell_timeout_seconds")
    shell_max_timeout_seconds: float = _default("shell_max_timeout_seconds")

    @classmethod
    def from_config(cls, config: Mapping[str, Any], source: str) -> ToolSettings:
        """Settings from a table already valid against `CONFIG_SCHEMA`.

        Raises `ConfigError` (naming `source`, the profile file) for what the schema cannot say:
        an unknown tool name, or a default timeout longer than the allowed maximum.
        """
        values = {key: value for key, value in config.items() if key != "tools"}
        tools = tuple(config.get("tools", TOOL_NAMES))
        unknown = [name for name in tools if name not in TOOL_NAMES]
        if unknown:
            raise ConfigError(
                source,
                "plugins.tools.tools",
                f"unknown tool(s) {', '.join(map(repr, unknown))}; "
                f"choose among {', '.join(TOOL_NAMES)}",
            )
        settings = cls(tools=tools, **values)
        if settings.shell_timeout_seconds > settings.shell_max_timeout_seconds:
            raise ConfigError(
                source,
                "plugins.tools.shell_timeout_seconds",
                f"{settings.shell_timeout_seconds:g} exceeds shell_max_timeout_seconds "
                f"({settings.shell_max_timeout_seconds:g}); lower it or raise the maximum",
            )
        return settings
