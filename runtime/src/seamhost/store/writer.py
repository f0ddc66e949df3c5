"""What every store's writer does alike, whatever it writes to: :class:`StoreWriter`.

A writer (:class:`~seamhost.session.store.SessionWriter`) is opened on the records stored so far:
all of them (a full replay), or a resume snapshot with the records after it
(:class:`~seamhost.session.store.SnapshotWriter`), the records before it read only when
`existing()` is first called. It then takes records in strict seq order, and none once closed.
Those rules, and the errors that enforce them, are the same in every store; how a batch
becomes durable (files and fsync, or a fenced commit) is the store's own, in its subclass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost.store.errors import BatchRejected, ForeignSession, WriterClosed

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from seamhost.session.live import Session
    from seamhost.session.record import Record
    from seamhost.session.store import SessionHeader, SessionWriter, StoredSnapshot


class StoreWriter:
    """The base of a store's writer: the session's header, the records it was opened on, the
    sequence and closed checks.

    Opened from a resume snapshot (`resumed`), `read_existing` reads the records before it,
    when `existing()` is first called. `torn_records` is 0 unless the subclass recovered some.
    A subclass sets ``_closing`` (guarded by its own lock) when it is closed.
    """

    def __init__(
        self,
        header: SessionHeader,
        *,
        existing: Sequence[Record] = (),
        resumed: StoredSnapshot | None = None,
        read_existing: Callable[[], list[Record]] | None = None,
        snapshot_interval: int = 0,
    ) -> None:
        self._header = header
        self._existing = list(existing)
        self._resumed = resumed
        self._read_existing = read_existing
        self.snapshot_interval = snapshot_interval
        self.torn_records = 0
        self._closing = False

    @property
    def header(self) -> SessionHeader:
        return self._header

    @property
    def session_id(self) -> str:
        return self._header.session_id

    @property
    def opened_on(self) -> int:
        """How many records were stored when the writer was opened (torn ones included)."""
        resumed = self._resumed
        return len(self._existing) if resumed is None else resumed.seq + len(resumed.tail)

    def existing(self) -> list[Record]:
        if self._read_existing is not None:
            self._existing, self._read_existing = self._read_existing(), None
        return list(self._existing)

    def opened_from(self) -> StoredSnapshot | None:
        return self._resumed

    def _check_open(self) -> None:
        """Raise `WriterClosed` once the writer is closed (with the subclass's lock held)."""
        if self._closing:
            raise WriterClosed(self.session_id)

    def _check_next(self, expected: int, record: Record, *, why: str = "") -> None:
        """Raise `BatchRejected` unless `record` has the seq `expected`, the next one; `why`
        says what the store knows of how a seq can arrive out of order."""
        if record.seq != expected:
            raise BatchRejected(self.session_id, expected, record.seq, why)


async def flush_own(
    session: Session, writer_type: type[SessionWriter], store: str, *, advice: str = ""
) -> None:
    """What a store's ``session/flush`` does: return once every record appended to `session`
    so far is durable, when its writer is a `writer_type` (the store's own); else raise
    `ForeignSession`, naming `store` and `advice`, what to do instead."""
    writer = session.writer
    if not isinstance(writer, writer_type):
        raise ForeignSession(session.id, type(writer).__qualname__, store, advice)
    await writer.flush()


__all__ = ["StoreWriter", "flush_own"]
