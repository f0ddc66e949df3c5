"""persistence-postgres's resume snapshots, against a real server: the row, what opening reads,
the fence, the migration that adds the tables, and what `seamhost session verify` says."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from seamhost_persistence_postgres.errors import FencedOut, StoreUnusable
from seamhost_persistence_postgres.schema import SCHEMA_VERSION
from seamhost_persistence_postgres.store import PostgresStore

from seamhost.session import snapshot
from seamhost.session.derived import replay
from seamhost.session.live import Session
from seamhost.store import SessionCorrupted
from seamhost.testing.persistence import envelopes, make_header
from seamhost.testing.persistence_snapshots import turn_events
from tests.persistence_postgres.test_fencing import lapse


def write_turns(store: PostgresStore, turns: int, session_id: str = "s-1") -> list[bytes]:
    """A closed session of `turns` flushed turns (the last one open)."""
    session = Session(store.create(make_header(session_id)), flush=lambda s: s.writer.flush())
    for turn in range(1, turns + 1):
        for kind, data, ignorable in turn_events(turn, ended=turn < turns):
            session.append_data(kind, data, ignorable=ignorable)
        asyncio.run(session.flush())
    written = envelopes(list(session.records))
    session.close()
    return written


def execute(options: dict[str, Any], statement: str, *params: Any) -> list[tuple[Any, ...]]:
    """Run `statement` on the test's schema (``{}`` names it) outside any store."""
    query = sql.SQL(statement).format(sql.Identifier(options["schema"]))
    with psycopg.connect(options["dsn"], autocommit=True) as conn:
        cursor = conn.execute(query, params)
        return cursor.fetchall() if cursor.description else []


def snapshot_rows(options: dict[str, Any]) -> list[tuple[Any, ...]]:
    return execute(options, "SELECT session_id, seq, epoch FROM {}.snapshots ORDER BY 1")


@pytest.fixture
def every_flush(pg_options: dict[str, Any]) -> dict[str, Any]:
    return {**pg_options, "snapshot_every": 1}


def test_a_snapshot_is_one_row_per_session_and_every_zero_keeps_none(
    pg_options: dict[str, Any], every_flush: dict[str, Any]
) -> None:
    with_rows = PostgresStore(**every_flush)
    without = PostgresStore(**{**pg_options, "snapshot_every": 0})
    try:
        written = write_turns(with_rows, 3, "a")
        write_turns(without, 3, "b")
        assert snapshot_rows(pg_options) == [("a", len(written), 1)]  # replaced, not added
        session = Session(without.open("b"))
        assert session.resumed is None
        session.close()
    finally:
        with_rows.close()
        without.close()


def test_opening_reads_only_the_tail_and_deleting_the_row_changes_nothing_but_speed(
    pg_options: dict[str, Any], every_flush: dict[str, Any]
) -> None:
    store = PostgresStore(**every_flush)
    try:
        written = write_turns(store, 40)
        # Damage far before the covered point: opening does not see it, reading there does.
        execute(
            pg_options,
            "UPDATE {}.records SET crc = crc # 1 WHERE session_id = 's-1' AND seq = 2",
        )
        session = Session(store.open("s-1"))
        assert session.resumed is not None
        assert session.next_seq == len(written)
        assert session.records[-1].envelope() == written[-1]
        with pytest.raises(SessionCorrupted):
            list(session.records)
        session.close()
        execute(
            pg_options,
            "UPDATE {}.records SET crc = crc # 1 WHERE session_id = 's-1' AND seq = 2",
        )
        session = Session(store.open("s-1"))
        assert session.resumed is not None
        state = session.resumed.copy().fold(session.records[session.resumed.seq :]).summary()
        session.close()
        execute(pg_options, "DELETE FROM {}.snapshots")
        again = Session(store.open("s-1"))
        assert again.resumed is None
        assert replay(again.records).summary() == state
        assert envelopes(list(again.records)) == written
        again.close()
    finally:
        store.close()


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE {}.snapshots SET last_digest = repeat('0', 64)",  # the check does not match
        "UPDATE {}.snapshots SET seq = seq - 1",  # another point of the log
        "UPDATE {}.snapshots SET seq = seq + 5",  # past the stored records
        "UPDATE {}.snapshots SET body = set_byte(body, 90, get_byte(body, 90) # 1)",
    ],
)
def test_a_snapshot_row_that_does_not_fit_is_a_full_replay(
    pg_options: dict[str, Any], every_flush: dict[str, Any], damage: str
) -> None:
    store = PostgresStore(**every_flush)
    try:
        written = write_turns(store, 3)
        expected = replay(store.read("s-1").records()).summary()
        execute(pg_options, damage)
        writer = store.open("s-1")
        kept = writer.opened_from()
        if "body" not in damage:  # the store's own check refuses it; the body is the kernel's
            assert kept is None
        session = Session(writer)
        assert session.resumed is None
        assert replay(session.records).summary() == expected
        assert envelopes(list(session.records)) == written
        session.close()
    finally:
        store.close()


def test_a_writer_fenced_out_saves_no_snapshot(
    pg_options: dict[str, Any], every_flush: dict[str, Any]
) -> None:
    first = PostgresStore(**{**every_flush, "lease_s": 30.0})
    second = PostgresStore(**{**every_flush, "lease_s": 30.0})
    try:
        write_turns(first, 2)
        a = Session(first.open("s-1"), snapshot_interval=0)
        writer = a.writer
        mark = writer.snapshot_mark()  # type: ignore[attr-defined]
        assert mark is not None
        assert mark.seq == a.next_seq
        before = snapshot_rows(pg_options)
        lapse(first, "s-1")
        b = second.open("s-1")  # epoch 3: A (epoch 2) is fenced out
        body = snapshot.encode(replay(list(a.records)), a.header)
        with pytest.raises(FencedOut, match="LEASE_LOST"):
            writer.save_snapshot(mark, body)  # type: ignore[attr-defined]
        assert snapshot_rows(pg_options) == before
        assert writer.snapshot_mark() is None  # type: ignore[attr-defined]
        a.close()
        b.close()
    finally:
        first.close()
        second.close()


def test_migrate_adds_the_snapshot_tables_to_a_version_1_schema(
    pg_options: dict[str, Any], every_flush: dict[str, Any]
) -> None:
    store = PostgresStore(**every_flush)
    try:
        written = write_turns(store, 2)
    finally:
        store.close()
    execute(pg_options, "DROP TABLE {}.snapshot_pieces")  # version 3's table, then version 2's
    execute(pg_options, "DROP TABLE {}.snapshots")
    execute(pg_options, "UPDATE {}.meta SET value = '1' WHERE key = 'schema_version'")
    old = PostgresStore(**every_flush)
    try:
        with pytest.raises(StoreUnusable, match=f"version 1; bring it to version {SCHEMA_VERSION}"):
            old.read("s-1")
        assert old.migrate() == (1, SCHEMA_VERSION)
        assert old.migrate() == (SCHEMA_VERSION, SCHEMA_VERSION)  # idempotent
        assert envelopes(old.read("s-1").records()) == written  # the rows are kept
        session = Session(old.open("s-1"), flush=lambda s: s.writer.flush())
        assert session.resumed is None  # version 1 kept no snapshot
        for kind, data, ignorable in turn_events(3, ended=False):
            session.append_data(kind, data, ignorable=ignorable)
        asyncio.run(session.flush())
        session.close()
        assert [row[1] for row in snapshot_rows(pg_options)] == [session.next_seq]
    finally:
        old.close()
    execute(pg_options, "UPDATE {}.meta SET value = '99' WHERE key = 'schema_version'")
    newer = PostgresStore(**every_flush)
    try:
        with pytest.raises(StoreUnusable, match=f"newer than version {SCHEMA_VERSION}"):
            newer.migrate()
        assert execute(pg_options, "SELECT value FROM {}.meta") == [("99",)]
    finally:
        newer.close()


def verify(tmp_path: Path, options: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    profile = tmp_path / "pg.toml"
    profile.write_text(
        '[profile]\nname = "pg"\n[plugins.persistence-postgres]\n'
        f"dsn = {json.dumps(options['dsn'])}\nschema = {json.dumps(options['schema'])}\n"
    )
    command = ["session", "verify", "s-1", "--profile", str(profile), "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "seamhost", *command],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    (check,) = json.loads(done.stdout)
    return done.returncode, check


def test_verify_compares_the_snapshot_with_a_replay(
    tmp_path: Path, pg_options: dict[str, Any], every_flush: dict[str, Any]
) -> None:
    store = PostgresStore(**every_flush)
    try:
        written = write_turns(store, 3)
        code, check = verify(tmp_path, pg_options)
        assert code == 0, check
        assert check["snapshot"] == {
            "seq": len(written),
            "status": "matches",
            "message": "it matches a replay of the log",
            "pieces": "matches",
        }
        session = Session(store.open("s-1"), snapshot_interval=0)
        writer = session.writer
        mark = writer.snapshot_mark()  # type: ignore[attr-defined]
        state = replay(list(session.records))
        state.usage["input_tokens"] += 1  # sound on its own, but not what the log says
        writer.save_snapshot(mark, snapshot.encode(state, session.header))  # type: ignore[attr-defined]
        session.close()
        code, check = verify(tmp_path, pg_options)
        assert code == 3
        assert check["intact"] is True
        assert check["snapshot"]["status"] == "differs"
        session = Session(store.open("s-1"), snapshot_interval=0)
        session.writer.save_snapshot(mark, b"garbage")  # type: ignore[attr-defined]
        session.close()
        code, check = verify(tmp_path, pg_options)
        assert code == 0
        assert check["snapshot"]["status"] == "ignored"
    finally:
        store.close()
