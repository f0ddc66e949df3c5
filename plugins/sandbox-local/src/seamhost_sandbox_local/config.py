"""The ``[plugins.sandbox-local]`` table: its schema and its validated form."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

BACKEND_NAMES = ("bwrap", "landlock")
DEFAULT_BACKENDS = BACKEND_NAMES

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "backends": {
            "type": "array",
            "items": {"enum": list(BACKEND_NAMES)},
            "uniqueItems": True,
            "description": (
                "Backends to use, in order of preference; the first that works here confines "
                'every command. Default ["bwrap", "landlock"]; [] disables confinement, so '
                "every confined call ends SANDBOX_UNAVAILABLE."
            ),
        },
        "network": {
            "type": "boolean",
            "description": (
                "Whether confined commands may use the network (default false). A command gets "
                "it only when this and the profile's [sandbox] network both allow it."
            ),
        },
        "bwrap_path": {
            "type": "string",
            "pattern": "^/",
            "description": "The bubblewrap executable, an absolute path (default: bwrap on PATH).",
        },
    },
    "additionalProperties": False,
}


class Settings(NamedTuple):
    """The validated table.

    A named tuple rather than an attrs class: every bundle with this plugin builds one, and
    creating an attrs class costs start-up a fraction of a millisecond.
    """

    backends: tuple[str, ...] = DEFAULT_BACKENDS
    network: bool = False
    bwrap_path: str | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        return cls(
            backends=tuple(config.get("backends", DEFAULT_BACKENDS)),
            network=bool(config.get("network", False)),
            bwrap_path=config.get("bwrap_path"),
        )
