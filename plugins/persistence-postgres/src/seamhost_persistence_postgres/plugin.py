"""The plugin object registered with pluggy: it provides ``session/store`` and ``session/flush``.

Building a bundle instantiates it without importing psycopg or connecting: the store is made
(and the database checked) when the bundle first asks for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import hookimpl

if TYPE_CHECKING:
    from seamhost import PluginContext, Session
    from seamhost_persistence_postgres.store import PostgresStore


class PostgresPersistence:
    """One store per plugin instance, configured by the profile table."""

    def __init__(self, ctx: PluginContext) -> None:
        self._config = ctx.config
        self._event_types = ctx.event_types
        self._store: PostgresStore | None = None

    @hookimpl
    def session_store(self) -> PostgresStore:
        if self._store is None:
            from seamhost.store import DEFAULT_SNAPSHOT_EVERY, DEFAULT_WINDOW_MS, reader_catalog
            from seamhost_persistence_postgres import store as module

            config = self._config
            self._store = module.PostgresStore(
                config["dsn"],
                schema=config.get("schema", module.DEFAULT_SCHEMA),
                pool_size=config.get("pool_size", module.DEFAULT_POOL_SIZE),
                batch_window_ms=config.get("batch_window_ms", DEFAULT_WINDOW_MS),
                lease_s=config.get("lease_s", module.DEFAULT_LEASE_S),
                snapshot_every=config.get("snapshot_every", DEFAULT_SNAPSHOT_EVERY),
                catalog=reader_catalog(self._event_types),
            )
        return self._store

    @hookimpl
    async def session_flush(self, session: Session) -> None:
        """Return once every record appended to `session` so far is committed."""
        from seamhost.store import flush_own
        from seamhost_persistence_postgres.writing import PostgresWriter

        await flush_own(session, PostgresWriter, "persistence-postgres")
