"""The write handle of one session: write-behind batches, fenced flushes, the lease.

Protocol (design.md §14):

* ``submit`` never touches the database: it checks that the record's seq is the next one and
  queues its envelope; the first record queued after a write opens the **window** (default
  200 ms, fixed, not reset by later records), and the writer's thread writes everything queued
  when it closes. ``flush`` skips the window and returns once what was queued is committed.
* A write is one statement (:mod:`.queries`, ``append``): it moves the session row's
  ``next_seq`` only while the row's lease epoch is the writer's, and inserts the records only
  through that row, so a writer whose lease was taken over commits nothing. The first write of
  a new session inserts the row with epoch 1 instead.
* A connection that drops mid-commit leaves the outcome unknown: before retrying, the writer
  reads the row back, and a batch the server did commit (``next_seq`` past it, at the writer's
  epoch) counts as written; it is never inserted twice.
* Once fenced out (a write or a renewal finds another epoch) the writer is **lost** for good:
  every later flush raises :class:`~.errors.FencedOut` (``LEASE_LOST``), and nothing it queued
  or is handed later is written (``submit`` drops it, so the session in memory can still close
  its turn for the caller to see what happened).
* Resume snapshots (``SnapshotWriter``, :mod:`.snapshots`): a mark is the durable seq and the
  digest of the last durable record's bytes; saving one (with its piece) is fenced like a
  write (a writer fenced out saves none) and serialised with the writes.
* The thread also renews the lease every third of its duration (a write renews it too).
  ``close`` writes what is queued (one attempt) and releases the lease, so the next writer need
  not wait for it to lapse.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
import zlib
from typing import TYPE_CHECKING, Any

import psycopg

from seamhost import SnapshotMark, jsonvalue
from seamhost.store import BatchRejected, SessionExists, StorageError, StoreWriter, WriteFailed
from seamhost_persistence_postgres import snapshots
from seamhost_persistence_postgres.errors import FencedOut, QueryFailed, cause_of

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from seamhost import Record, SessionHeader, SnapshotPiece, StoredSnapshot
    from seamhost_persistence_postgres.database import Database
    from seamhost_persistence_postgres.queries import Queries


class Lease:
    """Who holds a session and until when: the epoch this writer holds, its owner name."""

    def __init__(self, owner: str, seconds: float, epoch: int = 0) -> None:
        self.owner = owner
        self.seconds = seconds
        self.epoch = epoch  # 0: a new session, whose first write takes epoch 1


class PostgresWriter(StoreWriter):
    """The exclusive, fenced write handle of one session of a :class:`PostgresStore`.

    `last_body` is the stored bytes of the last stored record (what a snapshot mark's digest is
    taken of). A commit is all or nothing: it never leaves a torn record to recover.
    """

    def __init__(
        self,
        database: Database,
        queries: Queries,
        header: SessionHeader,
        lease: Lease,
        *,
        window: float,
        existing: Sequence[Record] = (),
        on_close: Callable[[], None] = lambda: None,
        resumed: StoredSnapshot | None = None,
        read_existing: Callable[[], list[Record]] | None = None,
        last_body: bytes | None = None,
        snapshot_interval: int = 0,
    ) -> None:
        super().__init__(
            header,
            existing=existing,
            resumed=resumed,
            read_existing=read_existing,
            snapshot_interval=snapshot_interval,
        )
        self._db = database
        self._q = queries
        self._header_bytes = jsonvalue.dumps(header.to_json())
        self.lease = lease
        self._window = window
        self._on_close = on_close
        self._state = threading.Lock()
        self._cond = threading.Condition(self._state)
        self._io = threading.Lock()  # one write (or renewal) at a time
        # Guarded by _state:
        self._pending: list[tuple[int, int, bytes]] = []  # (seq, crc, envelope)
        self._durable = self.opened_on
        self._last_body = last_body  # the stored bytes of record _durable - 1
        self._deadline: float | None = None
        self.lost: FencedOut | None = None
        self._thread: threading.Thread | None = None
        # The writer's own connection, used under `_io` (a checkout per flush costs more than
        # the pool saves); dropped after any error, so a broken one is never used again.
        self._conn: psycopg.Connection[tuple[Any, ...]] | None = None
        if lease.epoch:
            self._start_thread()

    # -- resume snapshots (the SnapshotWriter protocol; `opened_from()` is StoreWriter's) -----

    def snapshot_mark(self) -> SnapshotMark | None:
        with self._state:
            if self._closing or self.lost is not None or self._last_body is None:
                return None
            digest = hashlib.sha256(self._last_body).hexdigest()
            return SnapshotMark(self._durable, {"digest": digest})

    def save_snapshot(
        self, mark: SnapshotMark, body: bytes, piece: SnapshotPiece | None = None
    ) -> None:
        """Keep `body` (and `piece`) as the session's snapshot, fenced by the lease like a write."""
        with self._io:
            if self.lost is not None:
                raise self.lost
            conn = self._held()
            try:
                epoch = self.lease.epoch
                if not snapshots.save(
                    conn, self._q, self.session_id, mark, body, epoch=epoch, piece=piece
                ):
                    self._diagnose(conn, mark.seq)
            except psycopg.Error as exc:
                self._drop()
                raise QueryFailed(self._db.where, cause_of(exc)) from exc

    def submit(self, record: Record) -> None:
        """Queue `record`; raises `BatchRejected` unless its seq is the next one."""
        body = record.envelope()
        with self._state:
            self._check_open()
            if self.lost is not None:
                return  # fenced out: nothing more is written, and flush says why
            self._check_next(self._durable + len(self._pending), record)
            self._pending.append((record.seq, zlib.crc32(body), body))
            if self._deadline is None:
                self._deadline = time.monotonic() + self._window
                self._wake()

    async def flush(self) -> None:
        """Return once every record submitted before the call is committed; raise otherwise.

        The commit runs in the caller's thread: the caller waits on it anyway, and one
        statement's round trip costs less than handing it to another thread and back.
        """
        with self._state:
            self._check_open()
            target = self._durable + len(self._pending)
        self._write_until(target)

    def close(self) -> None:
        """Write what is still queued (one attempt), release the lease, end the thread."""
        with self._state:
            if self._closing:
                return
            self._closing = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()
        error: StorageError | None = None
        try:
            if self.lost is None:
                try:
                    self._write_until(None)
                except StorageError as exc:
                    error = exc
            self._release()
        finally:
            self._on_close()
        if error is not None and not isinstance(error, FencedOut):
            raise error

    # -- writing ----------------------------------------------------------------------------

    def _write_until(self, target: int | None) -> None:
        """Write what is queued until `target` records are durable (None: everything queued)."""
        with self._io:
            with self._state:
                if self.lost is not None:
                    raise self.lost
                if target is not None and self._durable >= target:
                    return  # written meanwhile by the thread
                batch = list(self._pending)
                first = self._durable
                self._deadline = None
            if not batch:
                return
            try:
                self._commit(batch, first)
            except psycopg.Error as exc:
                self._drop()
                if not self._committed_anyway(batch, first):
                    try:
                        self._commit(batch, first)  # once more, on a fresh connection
                    except psycopg.Error:
                        self._drop()
                        raise WriteFailed(
                            self.session_id, "the commit", cause_of(exc), len(batch)
                        ) from exc
            with self._state:
                del self._pending[: len(batch)]
                self._durable = first + len(batch)
                self._last_body = batch[-1][2]

    def _commit(self, batch: list[tuple[int, int, bytes]], first: int) -> None:
        lease = self.lease
        params: dict[str, Any] = {
            "id": self.session_id,
            "first": first,
            "end": first + len(batch),
            "bytes": sum(len(body) for _, _, body in batch),
            "modified": int(time.time() * 1000),
            "lease": lease.seconds,
            "epoch": lease.epoch,
            "seqs": [seq for seq, _, _ in batch],
            "crcs": [crc for _, crc, _ in batch],
            "bodies": [body for _, _, body in batch],
        }
        conn = self._held()
        if lease.epoch == 0:
            params.update(
                created=self._header.created, header=self._header_bytes, owner=lease.owner
            )
            params["bytes"] += len(self._header_bytes)
            inserted = conn.execute(self._q["insert_session"], params).rowcount
            if inserted != len(batch):
                raise SessionExists(self.session_id)
            lease.epoch = 1
            self._start_thread()
            return
        if conn.execute(self._q["append"], params).rowcount == len(batch):
            return
        self._diagnose(conn, first)

    def _diagnose(self, conn: psycopg.Connection[tuple[Any, ...]], first: int) -> None:
        """The fenced write inserted nothing: raise why (taken over, or out of sequence)."""
        row = conn.execute(self._q["lease_state"], (self.session_id,)).fetchone()
        epoch, owner, next_seq = (row[0], row[1], row[2]) if row else (-1, None, -1)
        if epoch != self.lease.epoch:
            self._lose(epoch, owner)
        raise BatchRejected(self.session_id, next_seq, first)

    def _committed_anyway(self, batch: list[tuple[int, int, bytes]], first: int) -> bool:
        """After a failed commit: did the server commit it before the connection dropped?"""
        with contextlib.suppress(psycopg.Error), self._db.connection() as conn:
            row = conn.execute(self._q["lease_state"], (self.session_id,)).fetchone()
            if row is None:
                return False
            epoch, owner, next_seq = row[0], row[1], row[2]
            if self.lease.epoch == 0 and epoch == 1 and owner == self.lease.owner:
                self.lease.epoch = 1  # the session row is ours: the first write went through
                self._start_thread()
            elif epoch != self.lease.epoch:
                self._lose(epoch, owner)
            return bool(epoch == self.lease.epoch and next_seq >= first + len(batch))
        return False

    def _held(self) -> psycopg.Connection[tuple[Any, ...]]:
        if self._conn is None:
            self._conn = self._db.getconn()
        return self._conn

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                self._db.putconn(conn)

    def _lose(self, epoch: int, owner: str | None) -> None:
        lost = FencedOut(self.session_id, self.lease.epoch, epoch, owner)
        with self._state:
            self.lost = lost
            self._pending.clear()
        raise lost

    # -- the lease --------------------------------------------------------------------------

    def renew(self) -> None:
        """Extend the lease; a renewal that finds another epoch marks the writer lost."""
        with self._io:
            if self.lost is not None or not self.lease.epoch:
                return
            try:
                self._renew(self._held())
            except psycopg.Error:
                self._drop()  # the next renewal, or the next flush, uses a fresh connection

    def _renew(self, conn: psycopg.Connection[tuple[Any, ...]]) -> None:
        params = {"id": self.session_id, "epoch": self.lease.epoch, "lease": self.lease.seconds}
        if conn.execute(self._q["renew"], params).rowcount == 1:
            return
        row = conn.execute(self._q["lease_state"], (self.session_id,)).fetchone()
        with contextlib.suppress(FencedOut):
            self._lose(row[0] if row else -1, row[1] if row else None)

    def _release(self) -> None:
        try:
            if self.lease.epoch and self.lost is None:
                with contextlib.suppress(psycopg.Error), self._db.connection() as conn:
                    conn.execute(
                        self._q["release"], {"id": self.session_id, "epoch": self.lease.epoch}
                    )
        finally:
            self._drop()

    # -- the thread: the window and the renewals --------------------------------------------

    def _start_thread(self) -> None:
        with self._state:
            if self._thread is None and not self._closing:
                self._thread = threading.Thread(
                    target=self._run, name=f"seamhost-pg:{self.session_id}", daemon=True
                )
                self._thread.start()

    def _wake(self) -> None:
        """Wake the thread (with `_state` held); start it for a window on a new session."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=f"seamhost-pg:{self.session_id}", daemon=True
            )
            self._thread.start()
        else:
            self._cond.notify()

    def _run(self) -> None:
        renew_every = self.lease.seconds / 3
        next_renewal = time.monotonic() + renew_every
        while True:
            with self._state:
                while True:
                    if self._closing or self.lost is not None:
                        return
                    now = time.monotonic()
                    due = [next_renewal] if self.lease.epoch else []
                    if self._deadline is not None:
                        due.append(self._deadline)
                    wait = min(due, default=now + renew_every) - now
                    if wait <= 0:
                        break
                    self._cond.wait(wait)
                window_closed = self._deadline is not None and self._deadline <= time.monotonic()
            if window_closed:
                with contextlib.suppress(StorageError):
                    self._write_until(None)  # a failure stays pending for the next flush
            if self.lease.epoch and time.monotonic() >= next_renewal:
                self.renew()
                next_renewal = time.monotonic() + renew_every
