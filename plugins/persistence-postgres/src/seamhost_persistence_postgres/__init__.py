"""seamhost plugin ``persistence-postgres``: sessions, leases and a run queue in PostgreSQL.

It provides ``session/store`` (a :class:`~seamhost_persistence_postgres.store.PostgresStore`)
and ``session/flush``. Many workers on many hosts share one schema; one writer per session
holds by lease and fence (design.md §14). Importing this package for its descriptor is cheap:
psycopg is imported when the bundle first asks for the store.

    [plugins.persistence-postgres]
    dsn = { "$env" = "SEAMHOST_POSTGRES_DSN" }
    schema = "seamhost"
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from seamhost import PluginContext, PluginDescriptor
from seamhost.lazy import lazy_exports

if TYPE_CHECKING:
    from seamhost_persistence_postgres.reading import PostgresReader
    from seamhost_persistence_postgres.store import PostgresStore
    from seamhost_persistence_postgres.writing import PostgresWriter

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "dsn": {
            "type": "string",
            "minLength": 1,
            "description": (
                "libpq connection string or URI of the database, e.g. "
                '{ "$env" = "SEAMHOST_POSTGRES_DSN" } (keep passwords out of profiles).'
            ),
        },
        "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 63,
            "description": (
                'PostgreSQL schema holding the tables (default "seamhost"); '
                "create it with `seamhost store migrate --profile P`."
            ),
        },
        "pool_size": {
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
            "description": "Most connections this process opens (default 4).",
        },
        "batch_window_ms": {
            "type": "integer",
            "minimum": 0,
            "maximum": 60000,
            "description": (
                "Write-behind window in milliseconds (default 200), as in persistence-jsonl: "
                "records appended are committed together when it closes; a flush does not wait."
            ),
        },
        "lease_s": {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": 3600,
            "description": (
                "How long a writer's lease on a session runs unless renewed (default 30 s, "
                "renewed every third of it); a stalled writer is taken over once it lapses."
            ),
        },
        "snapshot_every": {
            "type": "integer",
            "minimum": 0,
            "description": (
                "Records made durable between two resume snapshots (default 1000), as in "
                "persistence-jsonl: a session reopens from the newest one plus the records "
                "after it; 0 keeps none (every open replays the whole session)."
            ),
        },
    },
    "required": ["dsn"],
    "additionalProperties": False,
}


def _make_plugin(ctx: PluginContext) -> object:
    from seamhost_persistence_postgres.plugin import PostgresPersistence

    return PostgresPersistence(ctx)


descriptor = PluginDescriptor(
    name="persistence-postgres",
    factory=_make_plugin,
    config_schema=CONFIG_SCHEMA,
    provides=["session/store", "session/flush"],
    description="Sessions in PostgreSQL, one fenced writer per session, and a shared run queue.",
)

_EXPORTS = {
    "PostgresStore": "seamhost_persistence_postgres.store",
    "PostgresReader": "seamhost_persistence_postgres.reading",
    "PostgresWriter": "seamhost_persistence_postgres.writing",
}

__all__ = ["CONFIG_SCHEMA", "PostgresReader", "PostgresStore", "PostgresWriter", "descriptor"]


__getattr__ = lazy_exports(__name__, _EXPORTS)
