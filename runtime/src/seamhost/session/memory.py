"""The in-memory store: what sessions use when no plugin provides `session/store`.

Nothing it holds survives the process; it does not implement `session/flush`, so a checkpoint
that requires durability fails closed on it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import attrs

from seamhost.errors import SeamhostError
from seamhost.session.lines import CommittedRecords
from seamhost.session.store import SessionCheck, SessionHeader, SessionStat

if TYPE_CHECKING:
    from pathlib import Path

    from seamhost.session.record import Record


class MemorySessionError(SeamhostError, LookupError):
    """A memory session is missing, already exists, or already has a writer."""

    session_id: str
    problem: str

    def __str__(self) -> str:
        return f"session {self.session_id!r}: {self.problem}"


def _no_records() -> CommittedRecords:
    return CommittedRecords([])


@attrs.define
class _Stored:
    header: SessionHeader
    # Kept as envelope lines, not as records: a record is an object the garbage collector
    # walks at every full collection, and a long memory session made each later allocation pay
    # for all of them (2-4 µs a governed call at 60k records, measured; docs/design.md §9).
    records: CommittedRecords = attrs.Factory(_no_records)
    writer: MemoryWriter | None = None


class MemoryWriter:
    """The write handle of a memory session; records are stored as they are submitted."""

    def __init__(self, store: MemoryStore, stored: _Stored) -> None:
        self._store = store
        self._stored = stored
        self._existing = list(stored.records)
        self._closed = False
        self.torn_records = 0  # memory is never torn

    @property
    def header(self) -> SessionHeader:
        return self._stored.header

    def existing(self) -> list[Record]:
        return list(self._existing)

    def submit(self, record: Record) -> None:
        if self._closed:
            raise MemorySessionError(self.header.session_id, "the writer is closed")
        records = self._stored.records
        expected = len(records)
        if record.seq != expected:
            raise MemorySessionError(
                self.header.session_id, f"record seq {record.seq} is not the next seq {expected}"
            )
        records.commit(record.type, record.time, record.envelope(), record.ignorable)

    async def flush(self) -> None:
        """Nothing to do: memory is as durable as this store gets."""

    def close(self) -> None:
        with self._store._lock:
            if not self._closed and self._stored.writer is self:
                self._stored.writer = None
            self._closed = True


class MemoryReader:
    def __init__(self, stored: _Stored) -> None:
        self._header = stored.header
        self._records = list(stored.records)

    @property
    def header(self) -> SessionHeader:
        return self._header

    def records(self) -> Iterator[Record]:
        return iter(self._records)


class MemoryStore:
    """Sessions kept in this process's memory."""

    name = "memory"
    durable = False
    location: Path | None = None  # nothing on disk

    def __init__(self) -> None:
        # Reentrant: `delete` holds it while its check reads the session through this store.
        self._lock = threading.RLock()
        self._sessions: dict[str, _Stored] = {}

    def create(self, header: SessionHeader) -> MemoryWriter:
        with self._lock:
            if header.session_id in self._sessions:
                raise MemorySessionError(header.session_id, "already exists")
            stored = _Stored(header)
            stored.writer = MemoryWriter(self, stored)
            self._sessions[header.session_id] = stored
            return stored.writer

    def open(self, session_id: str) -> MemoryWriter:
        with self._lock:
            stored = self._get(session_id)
            if stored.writer is not None:
                raise MemorySessionError(session_id, "already has a writer in this process")
            stored.writer = MemoryWriter(self, stored)
            return stored.writer

    def read(self, session_id: str) -> MemoryReader:
        with self._lock:
            return MemoryReader(self._get(session_id))

    def ids(self) -> Iterator[str]:
        with self._lock:
            return iter(sorted(self._sessions))

    def list(self) -> Iterator[SessionStat]:
        with self._lock:
            stats = [self._stat(s) for s in self._sessions.values()]
        return iter(sorted(stats, key=lambda s: (s.header.created, s.header.session_id)))

    def stat(self, session_id: str) -> SessionStat:
        with self._lock:
            return self._stat(self._get(session_id))

    def verify(self, session_id: str) -> SessionCheck:
        """Memory is never damaged: the check counts the records."""
        with self._lock:
            stored = self._get(session_id)
            return SessionCheck(session_id, len(stored.records), self._stat(stored).size, "memory")

    def delete(self, session_id: str, *, check: Callable[[], None] | None = None) -> None:
        """Forget a session; its writer, while open, refuses it (see `SessionStore.delete`)."""
        with self._lock:
            stored = self._get(session_id)
            if stored.writer is not None:
                raise MemorySessionError(
                    session_id, "is open for writing in this process; close its writer first"
                )
            if check is not None:
                stored.writer = held = MemoryWriter(self, stored)  # held, as a writer holds it
                try:
                    check()
                finally:
                    held.close()
            del self._sessions[session_id]

    def _get(self, session_id: str) -> _Stored:
        try:
            return self._sessions[session_id]
        except KeyError:
            raise MemorySessionError(session_id, "no such session in memory") from None

    @staticmethod
    def _stat(stored: _Stored) -> SessionStat:
        size = stored.records.size()
        last = stored.records[-1].time if stored.records else stored.header.created
        return SessionStat(stored.header, "memory", size, last)
