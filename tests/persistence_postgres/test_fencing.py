"""Leases and fencing against a real server: a writer taken over writes nothing more.

In-process, a lease is made to lapse by moving its expiry into the past on the server (the
same clock every lease reads); across processes, worker A is SIGSTOPped past its lease while
a tool body runs, worker B takes the run over, continues the open turn and finishes the run, and
A, once SIGCONTed, has its next checkpoint refused (``LEASE_LOST``) and never starts its next
body: the call it was about to run runs once, on B.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest
from psycopg import sql
from seamhost_persistence_postgres.errors import FencedOut, SessionLeased
from seamhost_persistence_postgres.store import PostgresStore

from seamhost.errors import LeaseLost
from seamhost.session.live import Session
from seamhost.testing.persistence import (
    append_all,
    envelopes,
    flush,
    make_header,
    sample_events,
)
from tests.persistence_postgres.chaos import fence_violations
from tests.persistence_postgres.rig import Rig


def lapse(store: PostgresStore, session_id: str) -> None:
    """Move the session's lease expiry into the past, as time passing without renewal would."""
    with store.db.connection() as conn:
        conn.execute(
            sql.SQL(
                "UPDATE {}.sessions SET lease_expires = clock_timestamp() - interval '1 second' "
                "WHERE id = %s"
            ).format(sql.Identifier(store.db.schema)),
            (session_id,),
        )


def epochs(store: PostgresStore, session_id: str) -> list[int]:
    with store.db.connection() as conn:
        rows = conn.execute(
            sql.SQL("SELECT epoch FROM {}.records WHERE session_id = %s ORDER BY seq").format(
                sql.Identifier(store.db.schema)
            ),
            (session_id,),
        ).fetchall()
    return [int(row[0]) for row in rows]


def test_a_live_lease_refuses_a_second_writer_and_a_lapsed_one_is_taken_over(
    pg_options: dict[str, Any],
) -> None:
    first = PostgresStore(**{**pg_options, "lease_s": 30.0})
    second = PostgresStore(**{**pg_options, "lease_s": 30.0})
    try:
        a = Session(first.create(make_header("s-1")))
        append_all(a, sample_events())
        flush(a.writer)
        with pytest.raises(SessionLeased, match="s-1"):
            second.open("s-1")
        lapse(first, "s-1")
        b = second.open("s-1")  # epoch 2: A is fenced out from here on
        kept = envelopes(b.existing())
        assert len(kept) == len(sample_events())
        append_all(a, sample_events())
        with pytest.raises(FencedOut, match="LEASE_LOST") as refused:
            flush(a.writer)
        assert isinstance(refused.value, LeaseLost)
        assert (refused.value.epoch, refused.value.current) == (1, 2)
        with pytest.raises(FencedOut):  # for good: a lost writer stays lost
            flush(a.writer)
        a.close()  # releases nothing: the lease is B's
        assert envelopes(first.read("s-1").records()) == kept
        again = Session(b)
        append_all(again, sample_events())
        flush(again.writer)
        again.close()
        assert epochs(first, "s-1") == [1] * len(kept) + [2] * len(sample_events())
        assert first.verify("s-1").intact
    finally:
        first.close()
        second.close()


def test_a_renewing_writer_keeps_its_lease(pg_options: dict[str, Any]) -> None:
    store = PostgresStore(**{**pg_options, "lease_s": 0.6})
    try:
        session = Session(store.create(make_header("s-1")))
        append_all(session, sample_events())
        flush(session.writer)
        time.sleep(1.5)  # well past one lease: only the renewals keep it
        with pytest.raises(SessionLeased):
            store.open("s-1")
        append_all(session, sample_events())
        flush(session.writer)
        session.close()
        store.open("s-1").close()  # released on close, not left to lapse
    finally:
        store.close()


def wait_for(predicate: Any, timeout: float = 60, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.02)


def test_a_stopped_worker_is_taken_over_and_its_next_body_never_starts(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    rig = Rig.make(tmp_path / "rig", postgres_dsn, pg_schema, lease_s=1.5)
    # Turn 1: a body that waits on the hold file, then a second call in the same step; turn 2:
    # one call, for the new owner to run after it has continued turn 1.
    scenario = rig.scenario("fence.json", [[{"hold": True}], [{}]])
    doc = scenario.read_text().replace(
        '"call": [{"tool": "mark", "args": {"hold": true}}]',
        '"call": [{"tool": "mark", "args": {"hold": true}}, {"tool": "mark", "args": {}}]',
    )
    scenario.write_text(doc)
    session = rig.submit(scenario, "fenced")
    rig.hold.touch()
    a = rig.worker("--once", log="a.log")
    try:
        first = f"{session}:call-1-1-1.1"
        wait_for(lambda: first in rig.marker_names(), what="worker A's first body")
        a.send_signal(signal.SIGSTOP)
        time.sleep(2.5)  # past the lease (1.5 s) and the run's claim
        b = rig.worker("--once", log="b.log")
        assert b.wait(timeout=120) == 0, (rig.root / "b.log").read_text()
        rig.hold.unlink()
        a.send_signal(signal.SIGCONT)
        assert a.wait(timeout=120) == 0, (rig.root / "a.log").read_text()
    finally:
        a.kill()
        a.wait()
    a_log = (rig.root / "a.log").read_text()
    assert "LEASE_LOST" in a_log, a_log
    assert "run 1 lost" in a_log, a_log
    # B continued turn 1: the call A never started ran once, on B; then B ran turn 2.
    ran_by = {name: (rig.markers / name).read_text() for name in rig.marker_names()}
    assert ran_by == {
        f"{session}:call-1-1-1.1": str(a.pid),
        f"{session}:call-1-1-2.1": str(b.pid),
        f"{session}:call-2-1-1.1": str(b.pid),
    }, "A started its next body"
    assert rig.doubles() == []
    (run,) = rig.runs()
    assert (run["state"], run["claims"]) == ("completed", 2), run
    assert "taken over at turn 1 step 1 (1 in flight, 1 not started)" in run["outcome"]
    store = PostgresStore(postgres_dsn, schema=pg_schema)
    try:
        found = epochs(store, session)
        assert found == sorted(found), found  # nothing of A after B's first record
        assert set(found) == {1, 2}, found
        assert fence_violations(rig, session) == []
        assert store.verify(session).intact
        results = {
            r.data["call_id"]: (r.data.get("error") or {}).get("code", "ok")
            for r in store.read(session).records()
            if r.type == "tool/result"
        }
        assert results == {
            "call-1-1-1": "TOOL_OUTCOME_UNKNOWN",
            "call-1-1-2": "ok",
            "call-2-1-1": "ok",
        }
    finally:
        store.close()
