"""persistence-postgres passes the persistence contract, against a real server."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from psycopg import sql

from seamhost.session.store import SessionStore
from seamhost.testing.persistence import PersistenceContract, StoreBackend

FACTORY = "seamhost_persistence_postgres.store:open_store"


class TestPostgresStore(PersistenceContract):
    @pytest.fixture
    def store_backend(self, pg_options: dict[str, Any]) -> StoreBackend:
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

        return StoreBackend.importable(FACTORY, pg_options, corrupt=flip_first_batch)
