"""The write handle of one session: write-behind batches, flushes, publication, appends.

Protocol, as the writing thread of a :class:`JsonlWriter` runs it:

* ``submit`` never touches storage: it formats the record's envelope line, checks that its seq
  is the next one and queues it; the first record queued after a write opens a **window**
  (default 200 ms), fixed, not reset by later records: when it closes, everything queued is
  written as one batch. An idle thread polls for a new window rather than being rung (a ring
  cost a small flush 30 µs of its ~220: the thread woke into the GIL as the flush wrote), so a
  window may close up to half a window late.
* ``flush`` bypasses the window: it asks for a write of everything queued now and returns when
  that is durable (it raises the write's error otherwise). The blocking work, the sync above
  all, happens in the writing thread, so the caller's event loop keeps running. The hand-off is
  most of what a small flush costs beyond its write and sync, so it is kept lean (the thread
  waits on a bare lock, its bell, and settles a finished flush as the last thing before it
  waits again, so that the loop, once woken, finds the GIL free), and skipped when the loop has
  nothing else to run or watch (:mod:`~seamhost_persistence_jsonl.idle`) and no other write is
  in progress: the flush then writes and syncs in the caller's thread, keeping nobody waiting;
  a small one (one frame, appended, nothing packed ahead) by a lean path: no `Batch`, no search
  for cuts, and its accounting and any ring of the thread under one hold of the lock.
* The first write publishes the log, after taking the session lock; until then nothing of the
  session exists on disk. Later writes are appended and synced; a failed write or sync
  truncates the log back to its last complete frame and keeps the batch queued
  (:mod:`~seamhost_persistence_jsonl.logfile`). A failed background write is not retried on a
  timer: the next record submitted (with a new window) or the next flush retries it.
* Records recovered from a torn tail when the session was opened are queued first: the torn
  bytes are cut and those records written again with the next batch.
* Packing ahead (:class:`~seamhost_persistence_jsonl.jobs.Pack`): full frames are compressed
  while the window is still open; a closed window goes first. A write that a flush waits for
  compresses its frames on every core.
* ``close`` writes what is still queued (one attempt), then releases the lock and the claim.
* Resume snapshots (``SnapshotWriter``): a mark is the durable seq and the end of the last
  complete frame, taken only between writes; the side file is :mod:`.snapshots`'.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from seamhost import SnapshotMark, jsonvalue
from seamhost.store import StorageError, StoreWriter, WriterClosed
from seamhost_persistence_jsonl import locking, snapshots
from seamhost_persistence_jsonl.format import FRAME_TARGET, LogEncoder, content_size, frame_cuts
from seamhost_persistence_jsonl.idle import loop_is_idle
from seamhost_persistence_jsonl.jobs import Batch, Pack, Waiter, WriterStatus
from seamhost_persistence_jsonl.logfile import LogFile, OpenedLog

if TYPE_CHECKING:
    import asyncio

    from seamhost import Record, SessionHeader, SnapshotPiece, StoredSnapshot
    from seamhost_persistence_jsonl.layout import SessionPaths


IDLE_POLLS, MIN_POLL_S = 20, 0.01  # an idle thread's half-window polls before it sleeps
# What `BatchRejected` tells of a seq out of order: the session numbers records, not the writer.
OUT_OF_SEQUENCE = "records were lost or submitted twice upstream"


class JsonlWriter(StoreWriter):
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
        super().__init__(
            header,
            existing=existing,
            resumed=resumed,
            read_existing=read_existing,
            snapshot_interval=snapshot_interval,
        )
        self._paths = paths
        self._kept = snapshots.kept_pieces(resumed)  # (seq, bytes) of the kept snapshot's pieces
        self._encoder = encoder
        self._window = window
        self._claim: str | None = claim
        self._pid = os.getpid()
        torn = opened.tail.torn_records if opened else ()
        self.torn_records = len(torn)
        self._state = threading.Lock()
        # The writing thread's bell: released (with `_state` held) to wake it, acquired to wait;
        # a bare lock wakes faster than a threading.Condition (Python code).
        self._bell = threading.Lock()
        self._bell.acquire()
        self._thread: threading.Thread | None = None
        # Guarded by _state. The queue: the envelope lines of the records not yet durable.
        self._lines: list[bytes] = [record.envelope() for record in torn]
        self._durable = self.opened_on - len(torn)
        # Frames packed ahead hold _lines[:_packed_lines]; _loose counts the bytes of the rest.
        self._packed: list[bytes] = []
        self._packed_lines, self._loose = 0, content_size(self._lines)
        self._pack_target = FRAME_TARGET if encoder.encoding == "zstd" else math.inf
        self._pack_at = self._pack_target  # math.inf after a failed pack, until the next write
        self._deadline: float | None = None
        # An idle thread polls every `_poll` s for a new window (None: never), IDLE_POLLS times.
        self._poll = window / 2 if window >= 2 * MIN_POLL_S else None
        self._idle_polls = 0
        self._asleep = True  # whether submit must ring the bell to open a window
        self._waiters: list[Waiter] = []
        # True while a batch is written or frames packed (by the thread or an idle loop's flush).
        self._writing = False
        self._published = opened is not None
        self._close_attempted = False
        self._failures = 0
        self._last_error: StorageError | None = None
        # Used by whoever holds the `_writing` flag (and by close() once the thread has ended):
        head, durable = jsonvalue.dumps(header.to_json()), self._durable
        self._file = LogFile(
            paths, encoder, head, prepare_root=prepare_root, opened=opened, durable=durable
        )

    # -- the SessionWriter protocol (the header and `existing()` are StoreWriter's) -----------

    @property
    def path(self) -> str:
        return str(self._file.path)

    # -- resume snapshots (the SnapshotWriter protocol; `opened_from()` is StoreWriter's) -----

    def snapshot_mark(self) -> SnapshotMark | None:
        with self._state:
            if self._writing or not self._published or self._closing:
                return None
            token = {"offset": self._file.length, "chain": self._file.chain.hex()}
            return SnapshotMark(self._durable, token)

    def save_snapshot(
        self, mark: SnapshotMark, body: bytes, piece: SnapshotPiece | None = None
    ) -> None:
        point = snapshots.Point(mark.seq, mark.token["offset"], bytes.fromhex(mark.token["chain"]))
        fd, key = self._file.fd, self._encoder.key
        self._kept = snapshots.save(self._paths, fd, point, body, piece, self._kept, key)

    def submit(self, record: Record) -> None:
        """Queue `record`; raises `BatchRejected` unless its seq is the next one."""
        line = record.envelope()  # formatted here: the writing thread only packs and syncs
        with self._state:
            self._check_open()
            self._check_next(self._durable + len(self._lines), record, why=OUT_OF_SEQUENCE)
            self._lines.append(line)
            loose = self._loose = self._loose + len(line) + 1
            if self._deadline is None:
                self._deadline = time.monotonic() + self._window
                if self._asleep:  # a polling thread finds the window by itself
                    self._wake()
            elif loose >= self._pack_at and loose - len(line) - 1 < self._pack_at:
                self._wake()  # a full frame is queued: the writing thread packs it now

    async def flush(self) -> None:
        """Return once every record submitted before the call is durable; raise otherwise.

        The writing thread compresses, writes and syncs the batch (see the module docstring):
        the event loop runs other work meanwhile, however long the sync takes. When the loop has
        nothing else to do and no other write is in progress, the flush does it in place.
        """
        import asyncio  # here, not at import: instantiating the plugin stays cheap

        loop = asyncio.get_running_loop()
        with self._state:
            self._check_usable()
            if self._published and not self._lines:
                return
            inline = not self._writing and not self._waiters and loop_is_idle(loop)
            if not inline:
                future: asyncio.Future[None] = loop.create_future()
                self._waiters.append(Waiter(self._target(), loop, future))
                self._wake()
            elif self._published and not self._packed and self._loose < FRAME_TARGET:
                # A small flush's lean path (design.md §6): one frame, appended, no Batch.
                lines, first = list(self._lines), self._durable
                self._deadline, self._writing = None, True
                job = None
            else:
                job = self._batch([], inline=True)
        if not inline:
            await future
            return
        if job is None:
            count = len(lines)
            error = self._file.commit(partial(self._encoder.small_batch, lines, first), count)
        else:
            count, error = len(job.lines), self._attempt(job)
        for waiter in self._finish(count, [], error, inline=True):  # other threads' flushes
            waiter.settle(error)
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
        self._check_open()
        if os.getpid() != self._pid:
            raise WriterClosed(
                self.session_id, f"belongs to process {self._pid}, of which this is a fork"
            )

    def _wake(self) -> None:
        """Start the writing thread, or wake it (with `_state` held)."""
        self._asleep = False
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=f"seamhost-jsonl:{self.session_id}", daemon=True
            )
            self._thread.start()
        elif self._bell.locked():
            self._bell.release()

    def _run(self) -> None:
        settled: list[Waiter] = []
        error: StorageError | None = None
        while True:
            with self._state:
                job = self._next_job()
            for waiter in settled:  # the last thing before waiting or working again
                waiter.settle(error)
            settled = []
            if job is None:
                return
            if isinstance(job, float):
                if job == math.inf:
                    self._bell.acquire()
                else:
                    self._bell.acquire(timeout=min(job, threading.TIMEOUT_MAX))
            elif isinstance(job, Pack):
                self._pack(job)
            else:
                error = self._attempt(job)
                settled = self._finish(len(job.lines), job.waiters, error)

    def _pack(self, job: Pack) -> None:
        """Compress full frames ahead of their write (in the writing thread)."""
        try:
            frames = self._encoder.frames(job.lines, job.first_seq, job.cuts, job.prev)
        except Exception:
            frames = None  # the batch compresses these lines again and reports any failure
        with self._state:
            self._writing = False
            if frames is None:
                self._pack_at = math.inf  # no retrying in a loop: the next write tries again
            else:
                self._packed.extend(frames)
                self._packed_lines += len(job.lines)
                self._loose -= content_size(job.lines)

    def _attempt(self, job: Batch) -> StorageError | None:
        """Make `job` durable: publish the log with it, or append it; the error, if it failed."""
        return self._file.commit(partial(job.pieces, self._encoder), len(job.lines))

    def _next_job(self) -> Batch | Pack | float | None:
        """The thread's next job (with `_state` held): a write, a frame to pack, how long to
        wait for the bell (`math.inf`: until it rings), or None when the thread ends."""
        if self._writing:  # a flush in its own thread rings when done (or a submit does)
            self._asleep = True
            return math.inf
        if self._closing:
            if self._close_attempted or not self._lines:
                if self._waiters:  # built only when owed: an error class is built when first made
                    self._fail_waiters(WriterClosed(self.session_id, "was closed"))
                return None
            self._close_attempted = True
            return self._batch(list(self._waiters))
        if self._waiters:
            return self._batch(list(self._waiters))
        remaining = math.inf if self._deadline is None else self._deadline - time.monotonic()
        if remaining <= 0:  # before packing: an appender that outruns the packer must not
            return self._batch([])  # keep the window from ever closing
        if self._loose >= self._pack_at:
            start = self._packed_lines  # every full frame queued, in one job (one GIL wait)
            cuts = frame_cuts(self._lines, start, full_only=True)
            if cuts:
                self._writing = True
                lines = self._lines[start : start + cuts[-1]]
                packed = self._packed
                prev = self._encoder.chain_of(packed[-1]) if packed else self._file.chain
                return Pack(lines, self._durable + start, cuts, prev)
        if remaining < math.inf:
            self._idle_polls = 0
            return remaining
        self._idle_polls += 1  # nothing to time: poll for a window, or sleep until rung
        if self._poll is None or self._idle_polls > IDLE_POLLS:
            self._asleep = True
            return math.inf
        return self._poll

    def _batch(self, waiters: list[Waiter], *, inline: bool = False) -> Batch:
        """Everything queued, as the next write (with `_state` held); takes `_writing`."""
        self._deadline = None
        self._writing = True
        packed = list(self._packed)
        return Batch(list(self._lines), self._durable, waiters, packed, self._packed_lines, inline)

    def _fail_waiters(self, error: StorageError) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            waiter.settle(error)

    def _finish(
        self, count: int, waiters: list[Waiter], error: StorageError | None, *, inline: bool = False
    ) -> list[Waiter]:
        """Account for the write of the first `count` queued records, which `waiters` waited
        for; the flushes it settles (the caller settles them). `inline`: written by a flush in
        its caller's thread, which the writing thread may be waiting for (rung only if busy)."""
        with self._state:
            self._writing = False
            if error is None:
                del self._lines[:count]
                self._durable += count
                if self._packed_lines:  # every packed frame lay in the batch just written
                    self._packed, self._packed_lines = [], 0
                self._loose = content_size(self._lines)
                self._pack_at = self._pack_target
                self._published = True
                self._failures = 0
                self._last_error = None
                settled = [w for w in self._waiters if w.target <= self._durable]
            else:
                self._failures += 1
                self._last_error = error
                settled = [w for w in waiters if w in self._waiters]
            if settled:
                self._waiters = [w for w in self._waiters if w not in settled]
            busy = self._waiters or self._deadline is not None or self._closing
            if inline and self._thread is not None and (busy or self._loose >= self._pack_at):
                self._wake()
        return settled
