"""The persistence-postgres store: sessions as rows of one schema, shared by every host.

Creating a store or a session touches nothing: the first flush inserts the session's row (and
takes its lease, epoch 1). Opening a stored session acquires its lease first (refused while
another writer's lease runs) and reads its records after that, so it sees every record the
previous owner could ever commit. Listing and stat read the session rows only (headers, sizes),
never the records. The tables are specified in :mod:`.schema`, the write protocol in
:mod:`.writing`, resume snapshots in :mod:`.snapshots`: opening a session whose kept snapshot
matches its log reads only the records after it (one index range), and the records before it,
or the snapshot's pieces, when something first asks for them.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from seamhost import SessionCheck, SessionHeader, SessionStat, StoredSnapshot
from seamhost.errors import SessionKept
from seamhost.store import (
    DEFAULT_SNAPSHOT_EVERY,
    DEFAULT_WINDOW_MS,
    SessionCorrupted,
    SessionExists,
    SessionNotFound,
    StorageError,
    UnknownRecordType,
    check_write_options,
)
from seamhost_persistence_postgres import snapshots
from seamhost_persistence_postgres.database import Database
from seamhost_persistence_postgres.errors import SessionLeased
from seamhost_persistence_postgres.queries import Queries
from seamhost_persistence_postgres.reading import (
    PostgresReader,
    header_row,
    parse_header,
    records,
)
from seamhost_persistence_postgres.writing import Lease, PostgresWriter

if TYPE_CHECKING:
    from pathlib import Path

    from seamhost import EventCatalog
    from seamhost_persistence_postgres.runs import RunTable

DEFAULT_LEASE_S = 30.0
DEFAULT_POOL_SIZE = 4
DEFAULT_SCHEMA = "seamhost"


def writer_name() -> str:
    """A lease owner's name: host, process and a random part (one per writer)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class PostgresStore:
    """Sessions stored in `schema` of the database `dsn` names.

    `pool_size` bounds the connections this process opens, `batch_window_ms` is the
    write-behind window, `lease_s` how long a writer's lease runs unless renewed (a third of
    it between renewals); `snapshot_every` how many records become durable between two
    resume snapshots (0: none; :mod:`.snapshots`); `catalog` knows the event types a reader
    accepts.
    """

    name = "persistence-postgres"
    durable = True
    location: Path | None = None  # the sessions live in the database, not in a directory

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = DEFAULT_SCHEMA,
        pool_size: int = DEFAULT_POOL_SIZE,
        batch_window_ms: int = DEFAULT_WINDOW_MS,
        lease_s: float = DEFAULT_LEASE_S,
        catalog: EventCatalog | None = None,
        snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
    ) -> None:
        check_write_options(batch_window_ms, snapshot_every)
        self.snapshot_every = snapshot_every
        if lease_s <= 0:
            raise ValueError("lease_s must be positive")
        self.db = Database(dsn, schema, pool_size)
        self.queries = Queries.for_schema(schema)
        self.window = batch_window_ms / 1000
        self.lease_s = lease_s
        self._catalog = catalog
        self._claims: set[str] = set()  # sessions created here and not yet written
        self._claims_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"PostgresStore({self.db.where!r})"

    @property
    def known(self) -> frozenset[str]:
        if self._catalog is None:
            from seamhost import core_catalog

            self._catalog = core_catalog()
        return frozenset(self._catalog.names())

    @property
    def runs(self) -> RunTable:
        """The run queue kept in the same schema (see :mod:`.runs`)."""
        from seamhost_persistence_postgres.runs import RunTable

        return RunTable(self.db)

    def migrate(self) -> tuple[int | None, int]:
        """Create or upgrade the schema's tables: (version before, version now)."""
        from seamhost_persistence_postgres.database import connect
        from seamhost_persistence_postgres.schema import SCHEMA_VERSION, migrate

        with connect(self.db.dsn) as conn:
            return migrate(conn, self.db.schema, self.db.where), SCHEMA_VERSION

    def close(self) -> None:
        self.db.close()

    # -- writers ----------------------------------------------------------------------------

    def create(self, header: SessionHeader) -> PostgresWriter:
        """A writer for a new session; the row is inserted by its first write."""
        session_id = header.session_id
        self._claim(session_id)
        try:
            if self.db.rows(self.queries["exists"], (session_id,)):
                raise SessionExists(session_id)
        except BaseException:
            self._unclaim(session_id)
            raise
        lease = Lease(writer_name(), self.lease_s)
        return self._writer(header, lease)

    def open(self, session_id: str) -> PostgresWriter:
        """The writer of a stored session: its lease taken (epoch + 1), then its records read:
        the tail after a matching resume snapshot, or all of them."""
        self._claim(session_id)
        try:
            lease = self._acquire(session_id)
            try:
                header, end = self._header(session_id)
                resumed = self._resumed(session_id, end)
                existing = [] if resumed is not None else self._records(session_id, end)
                last = snapshots.last_body(self.db, self.queries, session_id, end)
            except BaseException:
                self._release(session_id, lease.epoch)
                raise
        except BaseException:
            self._unclaim(session_id)
            raise
        return self._writer(
            header,
            lease,
            existing,
            resumed=resumed,
            read_existing=(lambda: self._records(session_id, end)) if resumed else None,
            last_body=last,
        )

    def _records(self, session_id: str, end: int, start: int = 0) -> list[Any]:
        return list(records(self.db, self.queries, session_id, self.known, start=start, end=end))

    def _resumed(self, session_id: str, end: int) -> StoredSnapshot | None:
        """The kept snapshot with the records after it, when it matches the log of `end`."""
        found = snapshots.find(self.db, self.queries, session_id, end)
        if found is None:
            return None
        seq, body = found
        try:
            tail = self._records(session_id, end, start=seq)
        except (SessionCorrupted, UnknownRecordType):
            # Damage after the snapshot is the log's, and a full read reports it the same way;
            # read in full so that a snapshot is never the reason a session is refused.
            return None
        pieces = snapshots.pieces(self.db, self.queries, session_id, seq)
        return StoredSnapshot(seq, body, tuple(tail), pieces)

    def _writer(
        self, header: SessionHeader, lease: Lease, existing: list[Any] | None = None, **kw: Any
    ) -> PostgresWriter:
        session_id = header.session_id
        return PostgresWriter(
            self.db,
            self.queries,
            header,
            lease,
            window=self.window,
            existing=existing or (),
            on_close=lambda: self._unclaim(session_id),
            snapshot_interval=self.snapshot_every,
            **kw,
        )

    def _acquire(self, session_id: str) -> Lease:
        """Take the session's lease. Repeating the statement after a dropped connection is
        safe: a first one that did commit left a lease only this owner name holds, which then
        refuses the second and lapses unused."""
        lease = Lease(writer_name(), self.lease_s)
        params = {"id": session_id, "owner": lease.owner, "lease": lease.seconds}
        rows = self.db.rows(self.queries["acquire"], params)
        if rows:
            lease.epoch = int(rows[0][0])
            return lease
        state = self.db.rows(self.queries["lease_state"], (session_id,))
        if not state:
            raise SessionNotFound(session_id, self.db.where)
        raise SessionLeased(session_id, str(state[0][1]), float(state[0][3] or 0.0))

    def _release(self, session_id: str, epoch: int) -> None:
        self.db.rowcount(self.queries["release"], {"id": session_id, "epoch": epoch})

    def _claim(self, session_id: str) -> None:
        with self._claims_lock:
            if session_id in self._claims:
                raise SessionLeased(session_id, "another writer in this process", self.lease_s)
            self._claims.add(session_id)

    def _unclaim(self, session_id: str) -> None:
        with self._claims_lock:
            self._claims.discard(session_id)

    # -- readers ----------------------------------------------------------------------------

    def _header(self, session_id: str) -> tuple[SessionHeader, int]:
        raw, end, _size, _modified, _id = header_row(self.db, self.queries, session_id)
        return parse_header(session_id, bytes(raw)), int(end)

    def read(self, session_id: str) -> PostgresReader:
        return PostgresReader(self.db, self.queries, session_id, self.known)

    def ids(self) -> Iterator[str]:
        return iter([row[0] for row in self.db.rows(self.queries["ids"])])

    def list(self) -> Iterator[SessionStat]:
        """A stat of every session, oldest first, from the session rows only."""
        rows = self.db.rows(self.queries["list"])
        return iter([self._stat(row) for row in rows])

    def stat(self, session_id: str) -> SessionStat:
        row = header_row(self.db, self.queries, session_id)
        return self._stat(row)

    def _stat(self, row: tuple[Any, ...]) -> SessionStat:
        raw, _end, size, modified, session_id = row
        header = parse_header(session_id, bytes(raw))
        location = f"{self.db.where} session={header.session_id}"
        return SessionStat(header, location, int(size), modified)

    def kept_snapshot(self, session_id: str) -> StoredSnapshot | None:
        """The resume snapshot an open would start from (its tail left empty), or None."""
        _header, end = self._header(session_id)
        found = snapshots.find(self.db, self.queries, session_id, end)
        if found is None:
            return None
        pieces = snapshots.pieces(self.db, self.queries, session_id, found[0])
        return StoredSnapshot(found[0], found[1], (), pieces)

    def verify(self, session_id: str) -> SessionCheck:
        """Read every record back and check it; damage is reported, not raised."""
        header, end = self._header(session_id)
        stat = self.stat(session_id)
        count = 0
        try:
            for _ in records(self.db, self.queries, session_id, self.known, start=0, end=end):
                count += 1
        except (SessionCorrupted, UnknownRecordType) as exc:
            return SessionCheck(session_id, count, stat.size, stat.location, problem=str(exc))
        return SessionCheck(header.session_id, count, stat.size, stat.location)

    def delete(self, session_id: str, *, check: Callable[[], None] | None = None) -> None:
        """Remove a session under its lease with its finished run, all rows in one statement
        (records, lease history and the run's attempts cascade); a session a queued or running
        run drives is kept (`SessionKept`)."""
        self._claim(session_id)
        try:
            lease = self._acquire(session_id)
            try:
                if check is not None:
                    check()
                params = {"id": session_id, "epoch": lease.epoch}
                busy = self.db.rows(self.queries["delete"], params)
                if busy:
                    run_id, state = busy[0]
                    raise SessionKept(
                        session_id,
                        f"run {run_id} is {state} on it (`seamhost runs show {run_id}`); it goes "
                        "with its session once the run has finished",
                    )
            except BaseException:
                self._release(session_id, lease.epoch)
                raise
        finally:
            self._unclaim(session_id)


def open_store(directory: str, **options: Any) -> PostgresStore:
    """A store as the persistence contract makes one: `directory` is unused (the sessions live
    in the database); `options` are :class:`PostgresStore`'s, with ``dsn``."""
    del directory
    return PostgresStore(**options)


__all__ = ["PostgresStore", "StorageError", "open_store"]
