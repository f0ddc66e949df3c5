"""Property, against a real server: opening from resume snapshots yields a full replay's state,
or refuses as damage (the PostgreSQL half of tests/persistence_jsonl/test_resume_property.py).

Hypothesis generates the same sessions (turns, steps, calls, approvals, usage, sandbox changes;
flushed at random points with a snapshot every few records, sometimes closed and reopened midway),
then damages the stored session once: one byte of a random record's stored bytes, one byte of
its snapshot row's body, or the row's seq moved by a few records. Opening must then give exactly
the state a full replay of the undamaged session gives (and the same records), or refuse with
`SessionDamaged`, and only when a full read refuses too.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg import sql
from seamhost_persistence_postgres.store import PostgresStore

from seamhost.session.live import Session
from tests.persistence_jsonl.test_resume_property import STEPS, check_open, write_steps

DAMAGE = st.one_of(
    st.none(),
    st.tuples(st.sampled_from(["record", "snapshot", "seq"]), st.floats(0, 1), st.integers(1, 255)),
)
IDS = itertools.count()

# `w` picks the row and the byte (0..1 of the way along), `x` is the XOR mask.
_FLIP_RECORD = (
    "UPDATE {s}.records SET body = set_byte(body, (%(w)s * (octet_length(body) - 1))::int, "
    "get_byte(body, (%(w)s * (octet_length(body) - 1))::int) # %(x)s) WHERE session_id = %(id)s "
    "AND seq = (SELECT (%(w)s * max(seq))::bigint FROM {s}.records WHERE session_id = %(id)s)"
)
_FLIP_SNAPSHOT = (
    "UPDATE {s}.snapshots SET body = set_byte(body, (%(w)s * (octet_length(body) - 1))::int, "
    "get_byte(body, (%(w)s * (octet_length(body) - 1))::int) # %(x)s) WHERE session_id = %(id)s"
)
_MOVE_SEQ = (
    "UPDATE {s}.snapshots SET seq = greatest(0, seq + %(x)s %% 7 - 3) WHERE session_id = %(id)s"
)


@pytest.fixture
def store(pg_options: dict[str, Any]) -> Iterator[PostgresStore]:
    made = PostgresStore(**{**pg_options, "batch_window_ms": 0})
    try:
        yield made
    finally:
        made.close()


def damage(store: PostgresStore, session_id: str, what: tuple[str, float, int] | None) -> None:
    if what is None:
        return
    target, where, xor = what
    statement = {"record": _FLIP_RECORD, "snapshot": _FLIP_SNAPSHOT, "seq": _MOVE_SEQ}[target]
    query = sql.SQL(statement).format(s=sql.Identifier(store.db.schema))
    with store.db.connection() as conn:
        conn.execute(query, {"w": where, "x": xor, "id": session_id})


def run_case(
    store: PostgresStore, steps: list[tuple[str, int, int]], interval: int, what: Any
) -> None:
    session_id = f"p-{next(IDS)}"
    store.snapshot_every = interval
    write_steps(store, session_id, steps)
    store.snapshot_every = 0  # opening to check keeps no snapshot of its own
    check_open(store, session_id, lambda: damage(store, session_id, what))


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=STEPS, interval=st.integers(1, 8), what=DAMAGE)
def test_opening_from_snapshots_is_a_replay_or_a_refusal(
    store: PostgresStore, steps: list[tuple[str, int, int]], interval: int, what: Any
) -> None:
    run_case(store, steps, interval, what)


@pytest.mark.slow
@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=STEPS, interval=st.integers(1, 8), what=DAMAGE)
def test_opening_from_snapshots_is_a_replay_or_a_refusal_many(
    store: PostgresStore, steps: list[tuple[str, int, int]], interval: int, what: Any
) -> None:
    run_case(store, steps, interval, what)


def test_a_snapshot_is_used_when_one_fits(store: PostgresStore) -> None:
    """The property above is not vacuous: undamaged, such a session opens from its snapshot."""
    store.snapshot_every = 3
    write_steps(store, "fits", [("user/message", n, 1) for n in range(20)])
    session = Session(store.open("fits"))
    try:
        assert session.resumed is not None
        # One turn: snapshotted once, when 3 records were durable; a later snapshot would hold
        # the same window, and the records after it are read from the log as the tail anyway.
        assert (session.resumed.seq, session.resumed.window_start) == (3, 0)
        assert len(session.records) == 21
    finally:
        session.close()
