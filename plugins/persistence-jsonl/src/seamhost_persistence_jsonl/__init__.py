"""seamhost plugin ``persistence-jsonl``: durable session logs as zstd-framed (or plain) JSONL.

It provides ``session/store`` (a :class:`~seamhost_persistence_jsonl.store.JsonlStore`) and
``session/flush``. Importing this package for its descriptor is cheap: the store and zstandard
are imported when the plugin is instantiated and first writes or reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from seamhost import PluginContext, PluginDescriptor
from seamhost.lazy import lazy_exports

if TYPE_CHECKING:
    from seamhost_persistence_jsonl.store import JsonlReader, JsonlStore
    from seamhost_persistence_jsonl.writing import JsonlWriter

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "root": {
            "type": "string",
            "minLength": 1,
            "description": (
                "Directory holding the sessions (~ expanded; relative to the profile file). "
                "Default: $SEAMHOST_HOME/sessions, else $XDG_DATA_HOME/seamhost/sessions, "
                "else ~/.local/share/seamhost/sessions."
            ),
        },
        "compression": {
            "enum": ["zstd", "none"],
            "description": (
                'How new sessions are written: "zstd" (checksummed zstd frames, the default) '
                'or "none" (plain JSONL). One root holds one encoding.'
            ),
        },
        "level": {
            "type": "integer",
            "minimum": 1,
            "maximum": 19,
            "description": "zstd compression level (default 3).",
        },
        "snapshot_every": {
            "type": "integer",
            "minimum": 0,
            "description": (
                "Records made durable between two resume snapshots (default 1000; 0 keeps none). "
                "A snapshot lets a long session reopen without reading its whole log; the log "
                "stays the only truth."
            ),
        },
        "mac_key_file": {
            "type": "string",
            "minLength": 1,
            "description": (
                "A file holding the key every frame of a new log carries a MAC under, and every "
                "frame read must (~ expanded; relative to the profile file): tamper evidence "
                "against whoever can write the store but not read the key. It must lie outside "
                "the store root, belong to this user with mode 0600, hold at least 16 random "
                'bytes, and needs compression = "zstd". Sessions written without it are refused '
                "while it is set. Default: none (frames are chained, not keyed)."
            ),
        },
        "batch_window_ms": {
            "type": "integer",
            "minimum": 0,
            "maximum": 60000,
            "description": (
                "Write-behind window in milliseconds (default 200): records appended are "
                "written together when it closes; a flush does not wait for it."
            ),
        },
    },
    "additionalProperties": False,
}


def _make_plugin(ctx: PluginContext) -> object:
    from seamhost_persistence_jsonl.plugin import JsonlPersistence

    return JsonlPersistence(ctx)


descriptor = PluginDescriptor(
    name="persistence-jsonl",
    factory=_make_plugin,
    config_schema=CONFIG_SCHEMA,
    provides=["session/store", "session/flush"],
    description="Durable session logs as checksummed zstd-framed JSONL (or plain JSONL).",
)

_EXPORTS = {
    "JsonlStore": "seamhost_persistence_jsonl.store",
    "JsonlReader": "seamhost_persistence_jsonl.store",
    "JsonlWriter": "seamhost_persistence_jsonl.writing",
}

__all__ = ["CONFIG_SCHEMA", "JsonlReader", "JsonlStore", "JsonlWriter", "descriptor"]


__getattr__ = lazy_exports(__name__, _EXPORTS)
