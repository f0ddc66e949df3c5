"""What every store is configured with alike: the write-behind window, resume snapshots, and
the event types its readers accept.

Both first-party stores take ``batch_window_ms`` and ``snapshot_every`` with the same defaults
and limits, and read the records of every event type the bundle's plugins add; a third-party
store configured the same way behaves the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from seamhost.session.codec import EventCatalog
    from seamhost.session.events import Event

DEFAULT_WINDOW_MS = 200  # records appended are written together when this window closes
DEFAULT_SNAPSHOT_EVERY = 1000  # records made durable between two resume snapshots


def check_write_options(batch_window_ms: float, snapshot_every: int) -> None:
    """Raise `ValueError` for a negative window or snapshot interval (0 turns either off)."""
    if batch_window_ms < 0:
        raise ValueError("batch_window_ms must not be negative")
    if snapshot_every < 0:
        raise ValueError("snapshot_every must not be negative")


def reader_catalog(event_types: Sequence[type[Event]]) -> EventCatalog | None:
    """The catalog a store's readers accept: the core event types and `event_types`, those
    the bundle's plugins add; None when they add none (the store then uses the core catalog)."""
    if not event_types:
        return None
    from seamhost.session.codec import EventCatalog  # here: building a bundle stays cheap
    from seamhost.session.events import CORE_EVENTS

    return EventCatalog((*CORE_EVENTS, *event_types))


__all__ = [
    "DEFAULT_SNAPSHOT_EVERY",
    "DEFAULT_WINDOW_MS",
    "check_write_options",
    "reader_catalog",
]
