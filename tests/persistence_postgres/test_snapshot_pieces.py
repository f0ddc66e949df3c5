"""persistence-postgres's snapshot pieces (`SnapshotPiece`), against a real server: how they are
kept across snapshots and reopens, what is refused, the fence, the cascade, and the migration
from version 2 that adds their table.

The bodies here are opaque bytes (the store never looks inside), so the tests call the writer's
`save_snapshot` themselves, on sessions that keep no snapshot of their own (``snapshot_every``
0), and read what the store offers back with `kept_snapshot` and `opened_from`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from seamhost_persistence_postgres.errors import FencedOut, PieceRefused, StoreUnusable
from seamhost_persistence_postgres.schema import SCHEMA_VERSION
from seamhost_persistence_postgres.store import PostgresStore
from seamhost_persistence_postgres.writing import PostgresWriter

from seamhost.errors import SeamhostError
from seamhost.session import snapshot
from seamhost.session.derived import replay
from seamhost.session.live import Session
from seamhost.session.store import SnapshotPiece, StoredSnapshot
from seamhost.testing.persistence import envelopes, make_header
from seamhost.testing.persistence_snapshots import turn_events
from tests.persistence_postgres.test_fencing import lapse
from tests.persistence_postgres.test_snapshots import execute, snapshot_rows

SID = "s-1"


@pytest.fixture
def store(pg_options: dict[str, Any]) -> Iterator[PostgresStore]:
    store = PostgresStore(**{**pg_options, "snapshot_every": 0, "lease_s": 30.0})
    try:
        yield store
    finally:
        store.close()


def live(writer: PostgresWriter) -> Session:
    return Session(writer, flush=lambda s: s.writer.flush(), snapshot_interval=0)


def add_turn(session: Session, turn: int) -> None:
    for kind, data, ignorable in turn_events(turn, ended=True):
        session.append_data(kind, data, ignorable=ignorable)
    asyncio.run(session.flush())


def save(session: Session, body: bytes, piece: SnapshotPiece | None) -> int:
    """Save `body` (and `piece`) at the writer's latest mark; the mark's seq."""
    writer = session.writer
    assert isinstance(writer, PostgresWriter)
    mark = writer.snapshot_mark()
    assert mark is not None
    writer.save_snapshot(mark, body, piece)
    return mark.seq


def piece_rows(options: dict[str, Any]) -> list[tuple[Any, ...]]:
    rows = execute(options, "SELECT session_id, start, body FROM {}.snapshot_pieces ORDER BY 1, 2")
    return [(sid, start, bytes(body)) for sid, start, body in rows]


def kept(store: PostgresStore) -> tuple[int, bytes, bytes]:
    found = store.kept_snapshot(SID)
    assert found is not None
    assert found.pieces is not None
    return found.seq, found.body, found.pieces()


def three_pieces(store: PostgresStore) -> tuple[Session, list[int]]:
    """A live session with three snapshots, each adding a piece: b"aa", b"bb", b"cc"."""
    session = live(store.create(make_header(SID)))
    seqs: list[int] = []
    for turn, data in enumerate((b"aa", b"bb", b"cc"), start=1):
        add_turn(session, turn)
        start = seqs[-1] if seqs else 0
        seqs.append(save(session, f"body {turn}".encode(), SnapshotPiece(start, data)))
    return session, seqs


def test_pieces_come_back_joined_in_order_and_a_piece_at_the_kept_seq_appends(
    store: PostgresStore, pg_options: dict[str, Any]
) -> None:
    session, seqs = three_pieces(store)
    assert piece_rows(pg_options) == [(SID, 0, b"aa"), (SID, seqs[0], b"bb"), (SID, seqs[1], b"cc")]
    assert kept(store) == (seqs[2], b"body 3", b"aabbcc")
    session.close()

    writer = store.open(SID)
    resumed = writer.opened_from()
    assert isinstance(resumed, StoredSnapshot)
    assert (resumed.seq, resumed.body) == (seqs[2], b"body 3")
    assert resumed.pieces is not None
    session = live(writer)  # a body the kernel cannot read: it replays in full, keeps the writer
    assert resumed.pieces() == b"aabbcc"  # read after the open returned, the writer live
    add_turn(session, 4)
    seq = save(session, b"body 4", SnapshotPiece(resumed.seq, b"dd"))  # the one opened from
    assert kept(store) == (seq, b"body 4", b"aabbccdd")
    assert resumed.pieces() == b"aabbcc"  # still the pieces of the snapshot it was opened from
    session.close()


def test_a_piece_starting_at_0_replaces_every_piece(
    store: PostgresStore, pg_options: dict[str, Any]
) -> None:
    session, _seqs = three_pieces(store)
    add_turn(session, 4)
    seq = save(session, b"body 4", SnapshotPiece(0, b"zz"))
    assert piece_rows(pg_options) == [(SID, 0, b"zz")]
    assert kept(store) == (seq, b"body 4", b"zz")
    session.close()


def test_a_piece_that_does_not_continue_the_kept_ones_is_refused_and_changes_nothing(
    store: PostgresStore, pg_options: dict[str, Any]
) -> None:
    fresh = live(store.create(make_header("other")))
    add_turn(fresh, 1)
    with pytest.raises(PieceRefused, match="no pieces are kept"):
        save(fresh, b"body", SnapshotPiece(3, b"xx"))  # no snapshot kept: only 0 starts
    assert store.kept_snapshot("other") is None
    fresh.close()

    session, seqs = three_pieces(store)
    add_turn(session, 4)
    before = (kept(store), piece_rows(pg_options), snapshot_rows(pg_options))
    for start in (1, seqs[0], seqs[1], seqs[2] + 1, session.next_seq):
        with pytest.raises(PieceRefused, match=f"end at seq {seqs[2]};") as refused:
            save(session, b"body 4", SnapshotPiece(start, b"dd"))
        assert isinstance(refused.value, SeamhostError)  # what the kernel ignores
        assert (kept(store), piece_rows(pg_options), snapshot_rows(pg_options)) == before
    # The writer is not harmed: it still writes records and keeps snapshots.
    add_turn(session, 5)
    seq = save(session, b"body 5", SnapshotPiece(seqs[2], b"dd"))
    assert kept(store) == (seq, b"body 5", b"aabbccdd")
    session.close()


def test_a_writer_fenced_out_saves_no_piece(
    store: PostgresStore, pg_options: dict[str, Any]
) -> None:
    session, seqs = three_pieces(store)
    session.close()
    a = live(store.open(SID))
    before = (kept(store), piece_rows(pg_options))
    assert before[0] == (seqs[2], b"body 3", b"aabbcc")
    lapse(store, SID)
    other = PostgresStore(**{**pg_options, "snapshot_every": 0, "lease_s": 30.0})
    try:
        b = other.open(SID)  # a is fenced out
        with pytest.raises(FencedOut, match="LEASE_LOST"):
            save(a, b"mine", SnapshotPiece(0, b"zz"))  # would replace every piece
        assert (kept(store), piece_rows(pg_options)) == before
        assert a.writer.snapshot_mark() is None  # type: ignore[attr-defined]
        b.close()
    finally:
        other.close()
    a.close()


def test_a_snapshot_saved_without_a_piece_has_none(
    store: PostgresStore, pg_options: dict[str, Any]
) -> None:
    session = live(store.create(make_header(SID)))
    add_turn(session, 1)
    seq = save(session, b"body 1", None)
    assert kept(store) == (seq, b"body 1", b"")  # a callable all the same, reading nothing
    session.close()
    session, _seqs = three_pieces_after(store, seq)
    add_turn(session, 9)
    seq = save(session, b"body 9", None)
    assert piece_rows(pg_options) == []  # every piece of the session is dropped
    assert kept(store) == (seq, b"body 9", b"")
    session.close()
    resumed = store.open(SID)
    found = resumed.opened_from()
    assert found is not None
    assert found.pieces is not None
    assert found.pieces() == b""
    resumed.close()


def three_pieces_after(store: PostgresStore, kept_seq: int) -> tuple[Session, list[int]]:
    """The session reopened from its snapshot at `kept_seq`, then three pieces appended."""
    session = live(store.open(SID))
    seqs = [kept_seq]
    for turn, data in enumerate((b"aa", b"bb", b"cc"), start=2):
        add_turn(session, turn)
        seqs.append(save(session, f"body {turn}".encode(), SnapshotPiece(seqs[-1], data)))
    assert kept(store) == (seqs[-1], b"body 4", b"aabbcc")  # appended onto no pieces at all
    return session, seqs


def test_deleting_the_session_deletes_its_pieces(
    store: PostgresStore, pg_options: dict[str, Any]
) -> None:
    session, _seqs = three_pieces(store)
    session.close()
    keep = live(store.create(make_header("keep")))
    add_turn(keep, 1)
    save(keep, b"kept", SnapshotPiece(0, b"mine"))
    keep.close()
    store.delete(SID)
    assert piece_rows(pg_options) == [("keep", 0, b"mine")]
    assert [row[0] for row in snapshot_rows(pg_options)] == ["keep"]


def test_migrate_adds_the_piece_table_to_a_version_2_schema_whose_snapshots_stay_valid(
    store: PostgresStore, pg_options: dict[str, Any]
) -> None:
    """A version 2 schema made by hand: today's tables without ``snapshot_pieces``. Its
    snapshot rows (saved without pieces) are still what an open starts from after `migrate`,
    with no pieces; they are not dropped, nor replayed."""
    session = live(store.create(make_header(SID)))
    add_turn(session, 1)
    add_turn(session, 2)
    body = snapshot.encode(replay(list(session.records)), session.header)
    seq = save(session, body, None)
    written = envelopes(list(session.records))
    session.close()
    store.close()
    execute(pg_options, "DROP TABLE {}.snapshot_pieces")
    execute(pg_options, "UPDATE {}.meta SET value = '2' WHERE key = 'schema_version'")
    old = PostgresStore(**{**pg_options, "snapshot_every": 0})
    try:
        with pytest.raises(StoreUnusable, match=f"version 2; bring it to version {SCHEMA_VERSION}"):
            old.read(SID)
        assert old.migrate() == (2, SCHEMA_VERSION)
        assert old.migrate() == (SCHEMA_VERSION, SCHEMA_VERSION)  # idempotent
        assert envelopes(old.read(SID).records()) == written  # the rows are kept
        assert [row[1] for row in snapshot_rows(pg_options)] == [seq]
        writer = old.open(SID)
        found = writer.opened_from()
        assert found is not None
        assert (found.seq, found.body) == (seq, body)
        assert found.pieces is not None
        assert found.pieces() == b""
        resumed = live(writer)  # whether the kernel takes it is the kernel's matter
        assert replay(resumed.records).summary() == replay(old.read(SID).records()).summary()
        add_turn(resumed, 3)
        seq = save(resumed, b"body 3", SnapshotPiece(0, b"aa"))
        resumed.close()
        assert piece_rows(pg_options) == [(SID, 0, b"aa")]
        assert kept(old) == (seq, b"body 3", b"aa")
    finally:
        old.close()
    execute(pg_options, "UPDATE {}.meta SET value = '99' WHERE key = 'schema_version'")
    newer = PostgresStore(**pg_options)
    try:
        with pytest.raises(StoreUnusable, match=f"newer than version {SCHEMA_VERSION}"):
            newer.migrate()
    finally:
        newer.close()
