"""The write handle of one session: write-behind batches, flushes, publication, appends.

Protocol, as the writing thread of a :class:`JsonlWriter` runs it:

* ``submit`` never touches storage: it formats the record's envelope line, checks that its seq
  is the next one and queues it; the first record queued after a write opens a **window**
  (default 200 ms). The window is fixed, not reset by later records: when it closes, everything
  queued is written as one batch.
* ``flush`` bypasses the window: it asks for a write of everything queued now and returns when
  that is durable (it raises the write's error otherwise). The blocking work happens in the
  writing thread, so the caller's event loop keeps running.
* The first write publishes the log, after taking the session lock; until then nothing of the
  session exists on disk. Later writes are appended and synced; a failed write or sync
  truncates the log back to its last complete frame and keeps the batch queued
  (:mod:`~seamhost_persistence_jsonl.logfile`). A failed background write is not retried on a
  timer: the next record submitted (with a new window) or the next flush retries it.
* Records recovered from a torn tail when the session was opened are queued first: the torn
  bytes are cut and those records written again with the next batch.
* ``close`` writes what is still queued (one attempt), then releases the lock and the claim.
* Resume snapshots (``SnapshotWriter``): a mark is the durable seq and the end of the last
  complete frame, taken only between writes; the side file is :mod:`.snapshots`'.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs

from seamhost import SnapshotMark, jsonvalue
from seamhost_persistence_jsonl import locking, snapshots
from seamhost_persistence_jsonl.errors import (
    BatchRejected,
    StorageError,
    WriteFailed,
    WriterClosed,
)
from seamhost_persistence_jsonl.format import LogEncoder
from seamhost_persistence_jsonl.logfile import LogFile, OpenedLog

if TYPE_CHECKING:
    import asyncio

    from seamhost import Record, SessionHeader, StoredSnapshot
    from seamhost_persistence_jsonl.layout import SessionPaths

Settle = Callable[[StorageError | None], None]


# The largest batch flush() writes in the caller's thread; larger ones go to the writing thread.
INLINE_BYTES = 64 * 1024


@attrs.frozen
class WriterStatus:
    """A snapshot of a writer's progress, for UIs and diagnostics."""

    durable: int  # records durable in the log (the next seq it stores)
    pending: int  # records handed over and not yet durable
    published: bool  # whether the log exists on disk
    failed_attempts: int  # writes that failed since the last one that succeeded
    last_error: StorageError | None


@attrs.frozen
class _Batch:
    """A write: the envelope lines of every queued record, and the flushes waiting for it."""

    lines: list[bytes]
    first_seq: int
    waiters: list[_Waiter]


@attrs.frozen(eq=False)
class _Waiter:
    target: int  # the flush is done once this many records are durable
    settle: Settle


class JsonlWriter:
    """The exclusive write handle of one session of a :class:`JsonlStore`."""

    def __init__(
        self,
        paths: SessionPaths,
        header: SessionHeader,
        *,
        encoder: LogEncoder,
        window: float,
        claim: str,
        prepare_root: Callable[[], None],
        existing: Sequence[Record] = (),
        opened: OpenedLog | None = None,
        resumed: StoredSnapshot | None = None,
        read_existing: Callable[[], list[Record]] | None = None,
        snapshot_interval: int = 0,
    ) -> None:
        self._header = header
        self._paths = paths
        # Opened from a resume snapshot: the records before it are read when first asked for.
        self._resumed = resumed
        self._read_existing = read_existing
        self.snapshot_interval = snapshot_interval
        self._encoder = encoder
        self._window = window
        self._claim: str | None = claim
        self._existing = list(existing)
        self._pid = os.getpid()
        torn = opened.tail.torn_records if opened else ()
        self.torn_records = len(torn)
        # submit() takes the bare lock (cheaper than the condition's Python-level methods).
        self._state = threading.Lock()
        self._cond = threading.Condition(self._state)
        self._thread: threading.Thread | None = None
        # Guarded by _state. The queue: the envelope lines of the records not yet durable.
        self._lines: list[bytes] = [record.envelope() for record in torn]
        stored = len(self._existing) if resumed is None else resumed.seq + len(resumed.tail)
        self._durable = stored - len(torn)
        self._deadline: float | None = None
        self._waiters: list[_Waiter] = []
        # True while a batch is being written, by the thread or inline by flush(): one at a time.
        self._writing = False
        self._published = opened is not None
        self._closing = False
        self._close_attempted = False
        self._failures = 0
        self._last_error: StorageError | None = None
        # Used by whoever holds the `_writing` flag (and by close() once the thread has ended):
        self._file = LogFile(paths, encoder.encoding, prepare_root=prepare_root, opened=opened)

    # -- the SessionWriter protocol ---------------------------------------------------------

    @property
    def header(self) -> SessionHeader:
        return self._header

    @property
    def path(self) -> str:
        return str(self._file.path)

    def existing(self) -> list[Record]:
        if self._read_existing is not None:
            self._existing, self._read_existing = self._read_existing(), None
        return list(self._existing)

    # -- resume snapshots (the SnapshotWriter protocol) ---------------------------------------

    def opened_from(self) -> StoredSnapshot | None:
        return self._resumed

    def snapshot_mark(self) -> SnapshotMark | None:
        with self._state:
            if self._writing or not self._published or self._closing:
                return None
            return SnapshotMark(self._durable, {"offset": self._file.length})

    def save_snapshot(self, mark: SnapshotMark, body: bytes) -> None:
        offset = mark.token["offset"]
        snapshots.save(self._paths, self._file.fd, mark.seq, offset, body)

    def submit(self, record: Record) -> None:
        """Queue `record`; raises `BatchRejected` unless its seq is the next one."""
        line = record.envelope()  # formatted here: the writing thread only packs and syncs
        with self._state:
            if self._closing:
                raise WriterClosed(self._header.session_id, "is closed")
            expected = self._durable + len(self._lines)
            if record.seq != expected:
                raise BatchRejected(self._header.session_id, expected, record.seq)
            self._lines.append(line)
            if self._deadline is None:
                self._deadline = time.monotonic() + self._window
                self._wake()

    async def flush(self) -> None:
        """Return once every record submitted before the call is durable; raise otherwise.

        A small batch (at most `INLINE_BYTES` of JSON) is written right here, in the caller's
        thread, when no other write is in progress and nobody else waits: the caller is blocked
        on durability anyway, compressing a few kilobytes takes microseconds, and handing the
        write to the writing thread and being woken again costs more than that on a fast disk
        (the runtime flushes at checkpoints, where nothing else runs). A larger batch, or one
        behind another write, goes to the writing thread, so the event loop keeps running while
        it is compressed, written and synced.
        """
        import asyncio  # here, not at import: instantiating the plugin stays cheap

        with self._state:
            self._check_usable()
            if self._published and not self._lines:
                return
            inline = (
                not self._writing
                and not self._waiters
                and sum(map(len, self._lines)) <= INLINE_BYTES
            )
            if inline:
                job = self._batch([])
            else:
                loop = asyncio.get_running_loop()
                future: asyncio.Future[None] = loop.create_future()
                self._waiters.append(_Waiter(self._target(), _future_settler(loop, future)))
                self._wake()
        if not inline:
            await future
            return
        error = self._attempt(job)
        self._finish(job, error)
        if error is not None:
            raise error

    def close(self) -> None:
        """Write what is still queued (one attempt), then release the session.

        Raises the storage error of that last write, if it failed, once the session is released.
        """
        with self._state:
            if self._closing:
                return
            self._closing = True
            mine = os.getpid() == self._pid
            if mine and (self._thread is not None or self._lines):
                self._wake()  # to write what is queued, or just to end
            thread = self._thread
        if not mine:
            self._file.forget()  # the parent process still holds the lock and the claim
            return
        if thread is not None:
            thread.join()
        with self._state:
            error = self._last_error if self._lines else None
        self._file.close()
        if self._claim is not None:
            locking.release(self._claim)
            self._claim = None
        if error is not None:
            raise error

    # -- beyond the protocol ----------------------------------------------------------------

    def status(self) -> WriterStatus:
        with self._state:
            return WriterStatus(
                durable=self._durable,
                pending=len(self._lines),
                published=self._published,
                failed_attempts=self._failures,
                last_error=self._last_error,
            )

    # -- the writing thread -----------------------------------------------------------------

    def _target(self) -> int:
        return self._durable + len(self._lines)

    def _check_usable(self) -> None:
        if self._closing:
            raise WriterClosed(self._header.session_id, "is closed")
        if os.getpid() != self._pid:
            raise WriterClosed(
                self._header.session_id, f"belongs to process {self._pid}, of which this is a fork"
            )

    def _wake(self) -> None:
        """Start the writing thread, or wake it (with `_state` held)."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=f"seamhost-jsonl:{self._header.session_id}", daemon=True
            )
            self._thread.start()
        else:
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._state:
                job = self._next_job()
            if job is None:
                return
            self._finish(job, self._attempt(job))

    def _attempt(self, job: _Batch) -> StorageError | None:
        """Write `job` (its caller holds the `_writing` flag); the error, if it failed."""
        try:
            self._write(job)
        except StorageError as exc:
            return exc
        except Exception as exc:  # a waiter must hear of any failure, even a bug
            return WriteFailed(
                self._header.session_id, self.path, "write", repr(exc), len(job.lines)
            )
        return None

    def _next_job(self) -> _Batch | None:
        """Wait (with `_state` held) for the thread's next job; None when the thread ends."""
        while True:
            if self._writing:  # flush() is writing inline; wait for it to finish
                self._cond.wait()
                continue
            if self._closing:
                if self._close_attempted or not self._lines:
                    self._fail_waiters(WriterClosed(self._header.session_id, "was closed"))
                    return None
                self._close_attempted = True
                return self._batch(list(self._waiters))
            if self._waiters:
                return self._batch(list(self._waiters))
            if self._deadline is None:
                self._cond.wait()
                continue
            remaining = self._deadline - time.monotonic()
            if remaining <= 0:
                return self._batch([])
            self._cond.wait(remaining)

    def _batch(self, waiters: list[_Waiter]) -> _Batch:
        """Everything queued, as the next write (with `_state` held); takes the `_writing` flag."""
        self._deadline = None
        self._writing = True
        return _Batch(list(self._lines), self._durable, waiters)

    def _fail_waiters(self, error: StorageError) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            waiter.settle(error)

    def _finish(self, job: _Batch, error: StorageError | None) -> None:
        with self._state:
            self._writing = False
            if self._waiters or self._deadline is not None or self._closing:
                # The writing thread may be waiting for this write to end; wake it only when it
                # has something to do (waking it for nothing costs a flush about 10 us).
                self._cond.notify_all()
            if error is None:
                del self._lines[: len(job.lines)]
                self._durable += len(job.lines)
                self._published = True
                self._failures = 0
                self._last_error = None
                settled = [w for w in self._waiters if w.target <= self._durable]
            else:
                self._failures += 1
                self._last_error = error
                settled = [w for w in job.waiters if w in self._waiters]
            self._waiters = [w for w in self._waiters if w not in settled]
        for waiter in settled:
            waiter.settle(error)

    def _write(self, job: _Batch) -> None:
        """Make the batch durable: publish the log with it, or append it. Raises StorageError."""
        data = self._encoder.batch(job.lines, job.first_seq)
        if self._file.published:
            self._file.append(data, len(job.lines))
        else:
            head = self._encoder.header(jsonvalue.dumps(self._header.to_json()))
            self._file.publish(head + data, len(job.lines))


def _future_settler(loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]) -> Settle:
    def settle(error: StorageError | None) -> None:
        def resolve() -> None:
            if future.done():
                return  # the flush was cancelled; the write went on regardless
            if error is None:
                future.set_result(None)
            else:
                future.set_exception(error)

        # A closed loop raises RuntimeError: nobody awaits this flush any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(resolve)

    return settle
