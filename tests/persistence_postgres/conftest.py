"""Fixtures of the PostgreSQL tests: one server for the run, one fresh schema per test.

How the server is found is in :mod:`tests.persistence_postgres.server`. Each test gets a schema
of its own (migrated to the current version) and drops it afterwards.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from seamhost_persistence_postgres.store import PostgresStore

from tests.persistence_postgres.server import Server, find_server


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Server]:
    server, tried = find_server()
    if server is None:
        reason = "no PostgreSQL server for the tests: " + "; ".join(tried)
        if os.environ.get("SEAMHOST_REQUIRE_POSTGRES") == "1":
            pytest.fail(reason + " (SEAMHOST_REQUIRE_POSTGRES=1)")
        pytest.skip(reason)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_dsn(postgres_server: Server) -> str:
    return postgres_server.dsn


@pytest.fixture
def pg_schema(postgres_dsn: str) -> Iterator[str]:
    """A fresh, migrated schema, dropped when the test ends."""
    schema = "seamhost_test_" + secrets.token_hex(4)
    PostgresStore(postgres_dsn, schema=schema).migrate()
    try:
        yield schema
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


@pytest.fixture
def pg_options(postgres_dsn: str, pg_schema: str) -> dict[str, Any]:
    """The options of a store on the test's schema: short window and lease, for quick tests."""
    return {"dsn": postgres_dsn, "schema": pg_schema, "batch_window_ms": 20, "lease_s": 2.0}


@pytest.fixture
def pg_store(pg_options: dict[str, Any]) -> Iterator[PostgresStore]:
    store = PostgresStore(**pg_options)
    try:
        yield store
    finally:
        store.close()
