"""persistence-postgres passes the persistence contract, against a real server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from seamhost_persistence_postgres.store import PostgresStore, open_store

from seamhost.session.store import SessionStore
from seamhost.testing.persistence import PersistenceContract, StoreBackend

FACTORY = "seamhost_persistence_postgres.store:open_store"


class TestPostgresStore(PersistenceContract):
    @pytest.fixture
    def store_backend(self, pg_options: dict[str, Any]) -> Iterator[StoreBackend]:
        def flip_first_batch(store: SessionStore, session_id: str) -> None:
            """Flip one bit of the first record's stored bytes, as a bad disk would."""
            schema = sql.Identifier(pg_options["schema"])
            with psycopg.connect(pg_options["dsn"], autocommit=True) as conn:
                conn.execute(
                    sql.SQL(
                        "UPDATE {}.records SET body = set_byte(body, 10, get_byte(body, 10) # 16)"
                        " WHERE session_id = %s AND seq = 1"
                    ).format(schema),
                    (session_id,),
                )

        made: list[PostgresStore] = []

        def make_store(directory: Path) -> SessionStore:
            store = open_store(str(directory), **pg_options)
            made.append(store)
            return store

        yield StoreBackend(make_store, FACTORY, pg_options, corrupt=flip_first_batch)
        for store in made:  # each holds a pool of connections: the server's are limited
            store.close()
