"""Opening a live session from a resume snapshot, and keeping snapshots as it goes.

:func:`load` is how :class:`~seamhost.session.live.Session` gets its records: from a
:class:`~seamhost.session.store.SnapshotWriter` that opened the session from a snapshot the
kernel also trusts (:func:`seamhost.session.snapshot.decode`), it keeps in memory only the
snapshot's window (the records from the last turn boundary on) and the stored tail; the records
before the window are read from the store when something first asks for one of them. Anything
else (no snapshot, a store without them, a snapshot the kernel rejects) is a full replay:
``writer.existing()``. Either way the session holds exactly the records of the log.

:class:`Snapshots` keeps them: after a flush, once `interval` records have become durable since
its last check, it folds the new records into its state, and hands the document to the writer
when the window has moved since the last snapshot (a turn boundary). Each record is folded once,
after a flush, so appends pay nothing for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple, Protocol, overload

from seamhost.errors import SeamhostError
from seamhost.session import snapshot
from seamhost.session.derived import Derived
from seamhost.session.store import SnapshotPiece, snapshot_writer

if TYPE_CHECKING:
    from seamhost.session.record import Record
    from seamhost.session.store import SessionWriter


class RecordList(Protocol):
    """What the live session needs of its records: a list, or :class:`ResumedRecords`."""

    def append(self, record: Record, /) -> None: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int, /) -> Record: ...
    @overload
    def __getitem__(self, index: slice, /) -> list[Record]: ...
    def __iter__(self) -> Iterator[Record]: ...


class Opened(NamedTuple):
    """What :func:`load` found: the records, the last of each type, the snapshot state."""

    records: RecordList
    last_of_type: dict[str, Record]
    derived: Derived | None  # the snapshot state opened from; None after a full replay
    # Reads the snapshot's pieces: the shown records before it, or None if they do not check
    # out (`snapshot.shown_records`); None when the snapshot has no pieces.
    shown: Callable[[], Iterator[Record] | None] | None = None


class ResumedRecords:
    """A session's records with the part before `start` read from the store only on demand.

    Indexing and slicing at or after `start` (the snapshot's window, the tail, every record
    appended since) never read the store; anything before it, ``iter`` and ``list`` of the whole
    do, once. Supports what the live session does with its list: ``append``, ``len``, indexing.
    """

    __slots__ = ("_load", "_memory", "_prefix", "start")

    def __init__(self, start: int, memory: list[Record], load: Callable[[], list[Record]]) -> None:
        self.start = start
        self._memory = memory
        self._load = load
        self._prefix: list[Record] | None = None if start else []

    @property
    def loaded(self) -> bool:
        """Whether the records before the window have been read."""
        return self._prefix is not None

    def prefix(self) -> list[Record]:
        if self._prefix is None:
            head = self._load()[: self.start]
            if len(head) < self.start or any(r.seq != i for i, r in enumerate(head)):
                raise ValueError("the stored records do not reach the snapshot's window")
            self._prefix = head
        return self._prefix

    def append(self, record: Record) -> None:
        self._memory.append(record)

    def __len__(self) -> int:
        return self.start + len(self._memory)

    @overload
    def __getitem__(self, index: int) -> Record: ...
    @overload
    def __getitem__(self, index: slice) -> list[Record]: ...
    def __getitem__(self, index: int | slice) -> Record | list[Record]:
        size = len(self)
        if isinstance(index, slice):
            first, stop, step = index.indices(size)
            if step == 1 and first >= self.start:
                return self._memory[first - self.start : max(stop - self.start, 0)]
            return list(self)[index]
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("record index out of range")
        if index >= self.start:
            return self._memory[index - self.start]
        return self.prefix()[index]

    def __iter__(self) -> Iterator[Record]:
        yield from self.prefix()
        yield from self._memory


def load(writer: SessionWriter) -> Opened:
    """The records of the session `writer` opened, and the snapshot state it opened from."""
    keeper = snapshot_writer(writer)
    stored = keeper.opened_from() if keeper is not None else None
    derived = snapshot.decode(stored.body, writer.header) if stored is not None else None
    if stored is not None and derived is not None and derived.seq == stored.seq:
        tail = list(stored.tail)
        if all(r.seq == derived.seq + i for i, r in enumerate(tail)):
            memory = list(derived.window) + tail
            last = dict(derived.last)
            last.update((r.type, r) for r in tail)
            records = ResumedRecords(derived.window_start, memory, writer.existing)
            pieces = stored.pieces if derived.chain is not None else None
            return Opened(records, last, derived, _shown(pieces, derived) if pieces else None)
    stored_records = writer.existing()
    for expected, record in enumerate(stored_records):
        if record.seq != expected:
            raise ValueError(f"stored records have a seq gap at {expected}")
    return Opened(stored_records, {r.type: r for r in stored_records}, None)


def _shown(pieces: Callable[[], bytes], derived: Derived) -> Callable[[], Iterator[Record] | None]:
    def shown() -> Iterator[Record] | None:
        try:
            data = pieces()
        except (SeamhostError, OSError):
            return None  # unreadable pieces: the conversation is derived from the log
        return snapshot.shown_records(data, derived)

    return shown


class Snapshots:
    """The resume snapshots of one live session (a no-op on a writer without them)."""

    def __init__(
        self, writer: SessionWriter, opened: Derived | None, interval: int | None = None
    ) -> None:
        """`interval` (durable records between two snapshots; 0: none) defaults to the writer's
        ``snapshot_interval``."""
        keeper = snapshot_writer(writer)
        if interval is None:
            interval = keeper.snapshot_interval if keeper is not None else 0
        self.interval = interval
        self._writer = keeper if self.interval else None
        self._header = writer.header
        # Folded without its window (`Derived.fold`): the window is sliced from the session's
        # records when a snapshot is written.
        self.state = opened.copy() if opened is not None else Derived()
        self.state.window = []
        # The seq of the last check: a snapshot saved, tried, or not due for the same window.
        self.checked = opened.seq if opened is not None else 0
        # The window start of the last snapshot saved (or opened from); None before any.
        self._window_start = opened.window_start if opened is not None else None
        # The pieces of the last snapshot saved (or opened from), as (count, chain, seq): the
        # next piece continues them. A full replay starts them at seq 0; None when the snapshot
        # opened from has none (or they did not check out), until they can start over.
        self._chain: tuple[int, str, int] | None = (0, "", 0)
        if opened is not None:
            self._chain = (*opened.chain, opened.seq) if opened.chain is not None else None
        # The piece lines of the records folded since the chain's last piece: the next piece.
        self._unpieced: list[bytes] = []

    def after_flush(self, records: RecordList) -> None:
        """Save a snapshot when one is due; never raises for the store's sake.

        One is due once `interval` records have become durable since the last and the window
        has moved since (a turn boundary): in one long turn, a snapshot would hold the window
        the last one started plus the records after it, which a resume reads from the log as the
        tail anyway, so it would cost a copy of the open turn and save the resume nothing. Each
        snapshot's window then holds only records newer than the last snapshot: keeping them
        copies each record at most once, however long a turn (docs/design.md, "Resume
        snapshots")."""
        writer = self._writer
        if writer is None or len(records) - self.checked < self.interval:
            return  # what a flush pays when no snapshot is due: this check
        mark = writer.snapshot_mark()
        if mark is None or mark.seq - self.checked < self.interval or mark.seq > len(records):
            return
        state, self.checked = self.state, mark.seq
        # Each record is folded once, saved or not: those committed here as their lines.
        columns = getattr(records, "columns", None)
        columns = columns(state.seq, mark.seq) if columns is not None else None
        if columns is not None:
            state.fold_columns(columns)
            if self._chain is not None:  # else the next piece starts over from seq 0
                self._unpieced += snapshot.column_piece_lines(columns)
        else:
            chunk = records[state.seq : mark.seq]
            state.fold(chunk, window=False)
            if self._chain is not None:
                self._unpieced += snapshot.piece_lines(chunk)
        if state.window_start == self._window_start:
            return  # the same window as the last snapshot: wait for the next turn boundary
        piece, chained = self._piece(records, mark.seq)
        state.chain = chained[:2] if chained is not None else None
        state.window = records[state.window_start : mark.seq]
        try:
            body = snapshot.encode(state, self._header)
        finally:
            state.window = []
        try:
            writer.save_snapshot(mark, body, piece)
        except (SeamhostError, OSError):
            return  # the log is untouched: the next one is tried `interval` records on
        self._chain, self._unpieced, self._window_start = chained, [], state.window_start

    def drop_pieces(self) -> None:
        """The pieces opened from did not check out: the next snapshot starts them over."""
        self._chain = None

    def _piece(
        self, records: RecordList, stop: int
    ) -> tuple[SnapshotPiece | None, tuple[int, str, int] | None]:
        """The piece the snapshot at `stop` adds, and the pieces it then has; (None, None) when
        it can have none."""
        if self._chain is None:  # start over, from seq 0, once the records before are read
            if not getattr(records, "loaded", True):
                return None, None
            count, digest, start = 0, "", 0
            data = snapshot.piece(records[0:stop], start, stop)
        else:
            count, digest, start = self._chain
            data = snapshot.pack(self._unpieced, start, stop)
        return SnapshotPiece(start, data), (count + 1, snapshot.chain(digest, data), stop)


__all__ = ["Opened", "RecordList", "ResumedRecords", "Snapshots", "load"]
