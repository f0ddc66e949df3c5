"""Connections the server drops while a writer works: the flush retries on a live one.

The chaos matrix (`nox -s stress`) failed runs with `WriteFailed: the commit failed (terminating
connection due to administrator command)`: after its held connection was terminated, a writer's
check and retry took connections from the pool that the server had terminated too, while they
sat idle there. The pool now checks a connection before handing it out (design.md §14).
"""

from __future__ import annotations

import contextlib
import secrets
from typing import Any

import psycopg
from seamhost_persistence_postgres.store import PostgresStore

from seamhost.session.live import Session
from seamhost.testing.persistence import append_all, flush, make_header, sample_events


def terminate(dsn: str, application: str) -> int:
    """Terminate every backend of `application`; how many there were."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
            (application,),
        ).fetchall()
    return len(rows)


def test_a_flush_after_every_connection_was_terminated_commits(
    postgres_dsn: str, pg_options: dict[str, Any]
) -> None:
    application = "seamhost-drop-" + secrets.token_hex(4)
    store = PostgresStore(**{**pg_options, "dsn": f"{postgres_dsn} application_name={application}"})
    try:
        session = Session(store.create(make_header("s-1")))
        append_all(session, sample_events())
        flush(session.writer)  # the writer holds a connection now
        with contextlib.ExitStack() as held:  # and the pool keeps two more, idle
            for _ in range(2):
                held.enter_context(store.db.connection())
        assert terminate(postgres_dsn, application) == 3
        append_all(session, sample_events())
        flush(session.writer)  # the held one fails; the retry must not take a dead one
        session.close()
        assert store.verify("s-1").intact
        assert len(list(store.read("s-1").records())) == 2 * len(sample_events())
    finally:
        store.close()
