"""The write-behind part of the persistence contract (design.md §6): what ``submit`` promises.

Appending is not durable, but it is not forgotten either: a record handed to the writer is
written when the backend's batching window closes, without anyone flushing, and a flush is
never needed for a reader to see it eventually. :class:`~seamhost.testing.persistence.
PersistenceContract` includes these tests; a backend's ``store_backend`` should configure a
short window (the tests wait up to ten seconds).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from seamhost.session.live import Session
from seamhost.testing.persistence_samples import append_all, envelopes, make_header, sample_events

if TYPE_CHECKING:
    from seamhost.session.store import SessionStore

PATIENCE_S = 10.0


class WriteBehindContract:
    """Records submitted without a flush reach storage when the window closes."""

    def test_submitted_records_are_written_without_a_flush(self, store: SessionStore) -> None:
        session = Session(store.create(make_header("s-1")))
        try:
            append_all(session, sample_events())
            written = envelopes(list(session.records))
            deadline = time.monotonic() + PATIENCE_S
            seen: list[bytes] = []
            while time.monotonic() < deadline:
                try:
                    seen = envelopes(store.read("s-1").records())
                except Exception:  # not published yet: the window has not closed
                    seen = []
                if seen == written:
                    break
                time.sleep(0.01)
            assert seen == written, "the window closed and the records were not written"
        finally:
            session.close()

    def test_a_window_does_not_wait_for_later_records(self, store: SessionStore) -> None:
        """The window is fixed: records that keep coming do not postpone the first write."""
        session = Session(store.create(make_header("s-1")))
        try:
            append_all(session, sample_events())
            first = len(session.records)
            deadline = time.monotonic() + PATIENCE_S
            stored = 0
            while time.monotonic() < deadline and stored < first:
                session.append_data("vendor/tick", {"n": session.next_seq}, ignorable=True)
                try:
                    stored = sum(1 for _ in store.read("s-1").records())
                except Exception:
                    stored = 0
                time.sleep(0.005)
            assert stored >= first, "records kept coming and nothing was ever written"
        finally:
            session.close()
