"""The plugin object registered with pluggy: it provides ``session/store`` and ``session/flush``.

Building a bundle instantiates it without touching the store's modules or the disk: the store
is made when the bundle first asks for it (``seamhost profile check`` never does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import hookimpl

if TYPE_CHECKING:
    from seamhost import PluginContext, Session
    from seamhost_persistence_jsonl.store import JsonlStore


class JsonlPersistence:
    """One store per plugin instance, configured by the profile table."""

    def __init__(self, ctx: PluginContext) -> None:
        self._config = ctx.config
        self._profile_path = ctx.profile_path
        self._event_types = ctx.event_types
        self._environ = ctx.environ
        self._store: JsonlStore | None = None

    @hookimpl
    def session_store(self) -> JsonlStore:
        if self._store is None:
            from seamhost import ConfigError
            from seamhost.store import DEFAULT_SNAPSHOT_EVERY, DEFAULT_WINDOW_MS, reader_catalog
            from seamhost_persistence_jsonl.errors import MacKeyRefused
            from seamhost_persistence_jsonl.layout import configured_path, configured_root
            from seamhost_persistence_jsonl.store import JsonlStore

            config = self._config
            key_file = config.get("mac_key_file")
            try:
                self._store = JsonlStore(
                    configured_root(config.get("root"), self._profile_path, self._environ),
                    compression=config.get("compression", "zstd"),
                    level=config.get("level", 3),
                    batch_window_ms=config.get("batch_window_ms", DEFAULT_WINDOW_MS),
                    snapshot_every=config.get("snapshot_every", DEFAULT_SNAPSHOT_EVERY),
                    catalog=reader_catalog(self._event_types),
                    mac_key_file=configured_path(key_file, self._profile_path)
                    if key_file
                    else None,
                )
            except (MacKeyRefused, ValueError) as exc:
                key = "plugins.persistence-jsonl.mac_key_file"
                raise ConfigError(str(self._profile_path), key, str(exc)) from exc
        return self._store

    @hookimpl
    async def session_flush(self, session: Session) -> None:
        """Return once every record appended to `session` so far is durable in its log."""
        from seamhost.store import flush_own
        from seamhost_persistence_jsonl.writing import JsonlWriter

        advice = "open the session on the bundle's own store"
        await flush_own(session, JsonlWriter, "persistence-jsonl", advice=advice)
