"""The live session: the only place records are committed.

``append`` commits an event in memory, atomically: its data is checked (lossless JSON, the
type's schema), it gets the next `seq` and a `time` that never goes backwards, it is handed to the
store's writer (write-behind) and announced on ``session/event``. It is **not** durable.
``flush`` drives the ``session/flush`` barrier and returns only once every record appended before
the call has crossed the storage boundary; without any implementation of that seam it raises
`SeamUnavailable`, so a checkpoint that needs durability fails closed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

import attrs
import orjson

from seamhost import jsonvalue
from seamhost.errors import EventRejected, SeamUnavailable, UnknownEventType
from seamhost.jsonvalue import is_lossless
from seamhost.session import resumed
from seamhost.session.codec import EventCatalog, core_catalog
from seamhost.session.derived import SHOWN
from seamhost.session.encode import Encoder
from seamhost.session.lines import CommittedRecords
from seamhost.session.record import Record, committed_record

if TYPE_CHECKING:
    import asyncio

    from seamhost.session.events import Event
    from seamhost.session.quickcheck import Quick
    from seamhost.session.store import SessionHeader, SessionWriter


def now_ms() -> int:
    return time.time_ns() // 1_000_000


_time_ns = time.time_ns
_dumps = orjson.dumps
_DUMPS_OPTIONS = jsonvalue.DUMPS_OPTIONS


def _never(event: Event) -> None:
    """The encoder of a class without a fused one: always the generic path."""
    return None


class RecordsView(Sequence[Record]):
    """A read-only, live view of a session's records (no copy; the log only grows)."""

    __slots__ = ("_records",)

    def __init__(self, records: CommittedRecords) -> None:
        self._records = records

    @overload
    def __getitem__(self, index: int) -> Record: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Record]: ...
    def __getitem__(self, index: int | slice) -> Record | Sequence[Record]:
        return self._records[index]

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[Record]:
        return iter(self._records)


EventHook = Callable[["Session", Record], None]
FlushHook = Callable[["Session"], Awaitable[None]]


class Session:
    """One session log, open for writing through its store's writer.

    `on_event` is told of every committed record (a bundle passes its ``session/event`` notify);
    `flush` makes the log durable (its ``session/flush`` barrier). Without `flush`, a flush
    raises `SeamUnavailable`: a checkpoint that needs durability fails closed.

    A writer that keeps resume snapshots (``SnapshotWriter``) opens the session from one:
    `resumed` is then the state it covers, and the records before its window are read only when
    asked for (:mod:`seamhost.session.resumed`); after a flush, a snapshot is saved every
    `snapshot_interval` records (default: the writer's).
    """

    def __init__(
        self,
        writer: SessionWriter,
        *,
        on_event: EventHook | None = None,
        flush: FlushHook | None = None,
        catalog: EventCatalog | None = None,
        clock: Callable[[], int] = now_ms,
        snapshot_interval: int | None = None,
    ) -> None:
        self._writer = writer
        self._on_event = on_event
        self._flush = flush
        self._catalog = catalog or core_catalog()
        # The data function of each event class whose type the catalogue knows: asking the
        # catalogue on every append costs three appends a call about 0.35 µs (measured).
        self._encoders: dict[type[Event], Encoder] = {}
        self._quick: dict[str, Quick] = {}  # by type: the catalogue's schema pre-checks
        self._clock = clock
        self._lock = threading.Lock()
        # From a resume snapshot when the store kept a sound one, else a full replay.
        opened = resumed.load(writer)
        self._records = CommittedRecords(opened.records)
        self._next_seq = len(self._records)
        self.resumed = opened.derived  # the snapshot state it was opened from, if any
        self._snapshots = resumed.Snapshots(writer, opened.derived, snapshot_interval)
        self._shown = opened.shown  # reads the snapshot's pieces, when it has them
        self._last_time = self._records[-1].time if len(self._records) else 0
        self._last_of_type = opened.last_of_type
        self._listeners: list[Callable[[Record], None]] = []
        self._closed = False
        # Records [0, _durable) are known durable: a flush covering them has succeeded. -1 until
        # one has: the first flush always reaches the store (it may publish the log).
        self._durable = -1
        self._pending: _Pending | None = None  # the flush being made, which others may join

    # -- identity ---------------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self.header.session_id

    @property
    def header(self) -> SessionHeader:
        return self._writer.header

    @property
    def writer(self) -> SessionWriter:
        """The store's write handle (persistence backends flush through it)."""
        return self._writer

    @property
    def catalog(self) -> EventCatalog:
        return self._catalog

    @property
    def records(self) -> RecordsView:
        return RecordsView(self._records)

    def shown_records(self) -> Iterator[Record]:
        """The records the conversation the model is shown is derived from (the types in
        `derived.SHOWN`), in order. Opened from a snapshot whose pieces check out, those are
        the pieces' records and the ones after the snapshot, and the log before it is not read;
        else every record is (docs/design.md, "Resume snapshots")."""
        shown, opened = self._shown, self.resumed
        head = shown() if shown is not None and opened is not None else None
        rest: Iterable[Record]
        if head is not None and opened is not None:
            yield from head
            rest = self._records[opened.seq : len(self._records)]
        else:
            if shown is not None:  # they did not check out: the next snapshot starts them over
                self._shown = None
                self._snapshots.drop_pieces()
            rest = self._records
        yield from (record for record in rest if record.type in SHOWN)

    def last(self, type_: str) -> Record | None:
        """The most recent record of `type_`, in constant time."""
        return self._last_of_type.get(type_)

    def listen(self, listener: Callable[[Record], None]) -> None:
        """Call `listener` with every record committed from now on (after the append).

        For the process that owns the session (a live transcript); plugins use the
        ``session/event`` seam instead. A raising listener propagates to the appender.
        """
        self._listeners.append(listener)

    @property
    def next_seq(self) -> int:
        return self._next_seq

    @property
    def last_time(self) -> int:
        return self._last_time

    # -- committing -------------------------------------------------------------------------

    def append(self, event: Event, *, ignorable: bool = False, time: int | None = None) -> Record:
        """Commit a typed event in memory and return its record (not yet durable)."""
        # A typed event's shape is its class's (checked statically); its data is still checked
        # for losslessness below. Raw data is checked against the schema as well.
        # The class's fused encoder answers for losslessness when it can (docs/design.md §9).
        encode = self._encoders.get(type(event))
        if encode is None:
            known = event.TYPE in self._catalog
            if not known and not ignorable:
                raise UnknownEventType(event.TYPE)
            encode = self._catalog.encoder(type(event)) or _never
            if known:
                self._encoders[type(event)] = encode
        data = encode(event)
        if data is not None:  # surely lossless
            return self._commit(event.TYPE, data, ignorable, time, lossless=True)
        data = self._catalog.unstructure(event)
        return self._commit(event.TYPE, data, ignorable, time)

    def append_data(
        self,
        type_: str,
        data: Mapping[str, Any],
        *,
        ignorable: bool = False,
        time: int | None = None,
    ) -> Record:
        """Commit an event given as its type and data.

        A type the catalogue does not know is accepted only when `ignorable`. `time` may be given
        to reuse an earlier time (repair does, so as not to invent one); it is clamped so that
        time never goes backwards.
        """
        # The type's accept-only pre-check, looked up once per type: what it passes the schema
        # surely passes; anything else is judged by the catalogue's validator (docs/design.md §4).
        quick = self._quick.get(type_)
        if quick is None:
            if type_ in self._catalog:
                quick = self._quick[type_] = self._catalog.quick(type_)
            elif not ignorable:
                raise UnknownEventType(type_)
        if type(data) is not dict:
            data = jsonvalue.thaw(data)
        if quick is not None and quick(data):  # valid and lossless (it answers for both)
            return self._commit(type_, data, ignorable, time, lossless=True)
        if quick is not None:
            self._catalog.validate(type_, data)
        return self._commit(type_, data, ignorable, time)

    def _commit(
        self, type_: str, data: Any, ignorable: bool, time: int | None, *, lossless: bool = False
    ) -> Record:
        """Commit checked `data` (`lossless`: already known to be lossless JSON)."""
        # The hot path of every append: attribute lookups and calls are kept few on purpose.
        if self._closed:
            raise RuntimeError(f"session {self.id!r} is closed")
        if not lossless and not is_lossless(data):
            try:
                jsonvalue.check_lossless(data, "data")
            except jsonvalue.LossyValue as exc:
                raise EventRejected(type_, exc.path, exc.problem) from None
        with self._lock:
            if time is None:
                clock = self._clock
                time = _time_ns() // 1_000_000 if clock is now_ms else clock()
            last = self._last_time
            # Time never goes backwards. Not max(): it parses keyword arguments, 0.1 µs a call.
            if time < last:  # noqa: PLR1730
                time = last
            seq = self._next_seq
            envelope = {"seq": seq, "type": type_, "time": time, "data": data}
            if ignorable:
                envelope["ignorable"] = True
            # The envelope is serialised once, with the data, and kept by the record for the
            # life of the session. orjson hands back a buffer it over-allocated and then shrank;
            # keeping thousands of those fragments the heap and made every later allocation
            # slower (1.5 us per record, measured), so keep an exact copy.
            line = b"%b" % _dumps(envelope, option=_DUMPS_OPTIONS)
            record = committed_record(seq, type_, time, line, ignorable=ignorable)
            self._writer.submit(record)
            self._records.commit(type_, time, line, ignorable)
            self._next_seq = seq + 1
            self._last_of_type[type_] = record
            self._last_time = time
        if self._on_event is not None:
            self._on_event(self, record)
        for listener in self._listeners:
            listener(record)
        return record

    async def flush(self) -> None:
        """Return once every record appended before the call is durable (``session/flush``).

        A flush that finds nothing appended since the last one that succeeded returns at once:
        what it would wait for is already durable. (The checkpoint before each of a batch's
        bodies is one flush for the whole batch and a check for each later call.)
        """
        if self._flush is None:
            raise SeamUnavailable("session/flush")
        while True:
            target = len(self._records)
            if target <= self._durable:
                return
            pending = self._pending
            if pending is None or (pending.started and pending.target < target):
                break
            # A flush about to start, or one covering these records: wait for it (False: its
            # caller was cancelled before it ended, so flush anew).
            if await _shield(pending.done):
                return
        await self._lead()

    async def _lead(self) -> None:
        """Flush, letting the tasks ready now join first: the parallel calls of a step reach
        their checkpoints in turn, and each would otherwise start a write while the others are
        still ready to run, so that the store hands the sync to its thread (a wake-up each way,
        about 150 µs, measured). After one loop turn they wait for this flush, and a store may
        then find nothing left to run and sync in place (docs/design.md §6)."""
        import asyncio  # here: importing the session module stays cheap

        flush = self._flush
        assert flush is not None  # flush() refused a session without one
        loop = asyncio.get_running_loop()
        pending = self._pending = _Pending(loop.create_future())
        try:
            if getattr(loop, "_ready", None):  # asyncio's own loops: callbacks ready to run
                await asyncio.sleep(0)
            pending.started = True
            target = pending.target = len(self._records)
            await flush(self)
        except Exception as exc:
            pending.done.set_exception(exc)
            pending.done.exception()  # retrieved: the joiners raise it, if any joined
            raise
        except BaseException:  # cancelled (or interrupted): the joiners flush anew
            pending.done.set_result(False)
            raise
        finally:
            if self._pending is pending:
                self._pending = None
        self._durable = max(self._durable, target)
        pending.done.set_result(True)
        self._snapshots.after_flush(self._records)

    def close(self) -> None:
        """Release the writer. Records not flushed may be lost with a durable store."""
        if not self._closed:
            self._closed = True
            self._writer.close()


class _Pending:
    """A flush a session is making: what it covers once `started`, and when it is `done`
    (True: made; False: abandoned, its caller cancelled; or the flush's error)."""

    __slots__ = ("done", "started", "target")

    def __init__(self, done: asyncio.Future[bool]) -> None:
        self.done = done
        self.started = False
        self.target = 0


def _shield(future: asyncio.Future[bool]) -> Awaitable[bool]:
    """`future`, shielded: a waiter cancelled is not the flush cancelled."""
    import asyncio

    return asyncio.shield(future)


@attrs.frozen
class StepContext:
    """A step about to start: the session it belongs to and its turn and step numbers."""

    session: Session  # the session the step belongs to
    turn: int  # the turn number (1-based)
    step: int  # the step number within the turn (1-based)


StepNext = Callable[[StepContext], Awaitable[None]]
