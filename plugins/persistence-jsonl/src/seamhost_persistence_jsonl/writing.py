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
* Packing ahead: once a full frame's worth (FRAME_TARGET bytes) of lines is queued, the writing
  thread compresses that frame at once, while the window is still open and the appender goes on
  (the compressor releases the GIL), instead of compressing everything when the window closes.
  The frame is cut where the batch would cut it and written, unchanged, with the batch.
* ``close`` writes what is still queued (one attempt), then releases the lock and the claim.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs

from seamhost import jsonvalue
from seamhost_persistence_jsonl import locking
from seamhost_persistence_jsonl.errors import (
    BatchRejected,
    StorageError,
    WriteFailed,
    WriterClosed,
)
from seamhost_persistence_jsonl.format import FRAME_TARGET, LogEncoder, frame_cut
from seamhost_persistence_jsonl.jobs import Batch, Pack, Waiter, future_settler
from seamhost_persistence_jsonl.logfile import LogFile, OpenedLog

if TYPE_CHECKING:
    import asyncio

    from seamhost import Record, SessionHeader
    from seamhost_persistence_jsonl.layout import SessionPaths

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
    packed: int = 0  # frames of the pending records compressed ahead of their write


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
    ) -> None:
        self._header = header
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
        self._durable = len(self._existing) - len(torn)
        # Frames compressed ahead (see the module docstring): they hold _lines[:_packed_lines];
        # _loose counts the bytes of the lines after them, the next frame's content so far.
        self._packed: list[bytes] = []
        self._packed_lines = 0
        self._loose = sum(len(line) + 1 for line in self._lines)
        self._pack_at = FRAME_TARGET if encoder.encoding == "zstd" else float("inf")
        self._deadline: float | None = None
        self._waiters: list[Waiter] = []
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
        return list(self._existing)

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
            loose = self._loose = self._loose + len(line) + 1
            if self._deadline is None:
                self._deadline = time.monotonic() + self._window
                self._wake()
            elif loose >= self._pack_at and loose - len(line) - 1 < self._pack_at:
                self._wake()  # a full frame is queued: the writing thread packs it now

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
                self._waiters.append(Waiter(self._target(), future_settler(loop, future)))
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
                packed=len(self._packed),
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
            if isinstance(job, Pack):
                self._pack(job)
            else:
                self._finish(job, self._attempt(job))

    def _pack(self, job: Pack) -> None:
        """Compress one full frame ahead of its write (the thread holds the `_writing` flag)."""
        try:
            frame = self._encoder.frame(job.lines, job.first_seq)
        except Exception:
            frame = None  # the batch compresses these lines again and reports any failure
        with self._state:
            self._writing = False
            if frame is not None:
                self._packed.append(frame)
                self._packed_lines += len(job.lines)
                self._loose -= sum(len(line) + 1 for line in job.lines)

    def _attempt(self, job: Batch) -> StorageError | None:
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

    def _next_job(self) -> Batch | Pack | None:
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
            if self._loose >= self._pack_at:
                start = self._packed_lines
                end = frame_cut(self._lines, start)
                if end is not None:
                    self._writing = True
                    return Pack(self._lines[start:end], self._durable + start)
            if self._deadline is None:
                self._cond.wait()
                continue
            remaining = self._deadline - time.monotonic()
            if remaining <= 0:
                return self._batch([])
            self._cond.wait(remaining)

    def _batch(self, waiters: list[Waiter]) -> Batch:
        """Everything queued, as the next write (with `_state` held); takes the `_writing` flag."""
        self._deadline = None
        self._writing = True
        return Batch(
            list(self._lines), self._durable, waiters, list(self._packed), self._packed_lines
        )

    def _fail_waiters(self, error: StorageError) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            waiter.settle(error)

    def _finish(self, job: Batch, error: StorageError | None) -> None:
        with self._state:
            self._writing = False
            if self._waiters or self._deadline is not None or self._closing:
                # The writing thread may be waiting for this write to end; wake it only when it
                # has something to do (waking it for nothing costs a flush about 10 us).
                self._cond.notify_all()
            if error is None:
                del self._lines[: len(job.lines)]
                self._durable += len(job.lines)
                # Every packed frame lies in the batch just written: none is left.
                self._packed, self._packed_lines = [], 0
                self._loose = sum(len(line) + 1 for line in self._lines)
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

    def _write(self, job: Batch) -> None:
        """Make the batch durable: publish the log with it, or append it. Raises StorageError."""
        rest = self._encoder.batch(job.lines[job.packed_lines :], job.first_seq + job.packed_lines)
        data = b"".join([*job.packed, rest]) if job.packed else rest
        if self._file.published:
            self._file.append(data, len(job.lines))
        else:
            head = self._encoder.header(jsonvalue.dumps(self._header.to_json()))
            self._file.publish(head + data, len(job.lines))
