"""Connections: the pool a store shares between its writers, and what a refused connection means.

Every connection runs in autocommit with ``synchronous_commit = on``: a statement that returns
has been committed durably (a flush is one statement, see :mod:`.schema`). The first connection
is made directly, before the pool, so that a DSN the server refuses or an address nobody
answers is reported as what it is, not as a pool timeout.
"""

from __future__ import annotations

import atexit
import re
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg_pool import ConnectionPool

from seamhost_persistence_postgres.errors import DatabaseUnreachable, QueryFailed, StoreUnusable
from seamhost_persistence_postgres.schema import check_schema

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

CONNECT_TIMEOUT_S = 5
_OPTIONS = "-c synchronous_commit=on"
# Words in a server's refusal that mean the credentials or the database name are wrong.
_REFUSALS = ("password authentication", "authentication failed", "does not exist", "no password")


def describe_dsn(dsn: str) -> str:
    """The DSN without its password, for messages."""
    info = psycopg.conninfo.conninfo_to_dict(dsn)
    shown = [f"{k}={info[k]}" for k in ("host", "port", "dbname", "user") if info.get(k)]
    return " ".join(shown) or "the default server"


def connect(dsn: str, **kwargs: Any) -> psycopg.Connection[tuple[Any, ...]]:
    """One autocommit connection, its failures turned into the store's errors."""
    try:
        return psycopg.connect(
            dsn,
            autocommit=True,
            connect_timeout=CONNECT_TIMEOUT_S,
            options=_OPTIONS,
            **kwargs,
        )
    except psycopg.OperationalError as exc:
        cause = _first_line(exc)
        if any(word in cause for word in _REFUSALS):
            raise StoreUnusable(
                describe_dsn(dsn), "dsn", f"the server refused the connection: {cause}"
            ) from exc
        raise DatabaseUnreachable(describe_dsn(dsn), cause) from exc


def _first_line(exc: BaseException) -> str:
    """What the server or the socket said, without libpq's "connection to server at" preamble."""
    text = re.sub(r"\s+", " ", str(exc)).strip() or type(exc).__name__
    said = text.rsplit(" failed: ", 1)[-1]
    return said.removeprefix("FATAL:").strip()


class Database:
    """A DSN, a schema and the pool of connections to them, opened on first use."""

    def __init__(self, dsn: str, schema: str, pool_size: int) -> None:
        self.dsn = dsn
        self.schema = schema
        self.pool_size = pool_size
        self.where = f"{describe_dsn(dsn)} schema={schema}"
        self._pool: ConnectionPool[psycopg.Connection[tuple[Any, ...]]] | None = None

    def open(self) -> None:
        """Check the server and the schema, then start the pool (once)."""
        if self._pool is not None:
            return
        with connect(self.dsn) as first:
            check_schema(first, self.schema, self.where)
        self._pool = ConnectionPool(
            self.dsn,
            min_size=0,  # no connection is kept open for nothing: a store may sit idle
            max_size=self.pool_size,
            max_idle=60,
            # A connection handed out is alive: one the server dropped while it sat in the pool
            # (a restart, `pg_terminate_backend`) is replaced, not given to a writer's retry,
            # which would fail the flush on it (design.md §14).
            check=ConnectionPool.check_connection,
            kwargs={"autocommit": True, "options": _OPTIONS, "connect_timeout": CONNECT_TIMEOUT_S},
            open=True,
            name=f"seamhost:{self.schema}",
        )
        # The pool's threads must be stopped before the interpreter tears down, not by the
        # pool's __del__ during it (which fails, noisily, at exit).
        atexit.register(self.close)

    def connection(self) -> AbstractContextManager[psycopg.Connection[tuple[Any, ...]]]:
        """A connection from the pool; a broken one is discarded when given back."""
        self.open()
        assert self._pool is not None
        return self._pool.connection(timeout=30)

    def getconn(self) -> psycopg.Connection[tuple[Any, ...]]:
        """A connection to hold (a writer's); give it back with :meth:`putconn`."""
        self.open()
        assert self._pool is not None
        return self._pool.getconn(timeout=30)

    def putconn(self, conn: psycopg.Connection[tuple[Any, ...]]) -> None:
        if self._pool is not None:
            self._pool.putconn(conn)  # a broken connection is discarded, not reused
        else:
            conn.close()

    def rows(self, query: Any, params: Any = None) -> list[tuple[Any, ...]]:
        """Run one statement and fetch its rows; once more on a fresh connection if the first
        one broke (a dropped connection), then :class:`~.errors.QueryFailed`.

        Only for statements that are safe to repeat: reads, and updates fenced by a count.
        """
        for attempt in (1, 2):
            try:
                with self.connection() as conn:
                    return conn.execute(query, params).fetchall()
            except psycopg.OperationalError as exc:
                if attempt == 2:
                    raise QueryFailed(self.where, _first_line(exc)) from exc
        raise AssertionError("unreachable")

    def rowcount(self, query: Any, params: Any = None) -> int:
        """Like :meth:`rows`, for a statement whose row count is its answer."""
        for attempt in (1, 2):
            try:
                with self.connection() as conn:
                    return conn.execute(query, params).rowcount
            except psycopg.OperationalError as exc:
                if attempt == 2:
                    raise QueryFailed(self.where, _first_line(exc)) from exc
        raise AssertionError("unreachable")

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            atexit.unregister(self.close)
            pool.close()
