"""persistence-jsonl's resume snapshots: the side file, what opening reads, what verify says."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner
from seamhost_persistence_jsonl import snapshots
from seamhost_persistence_jsonl.format import SNAPSHOT_NAME
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.cli import main
from seamhost.session import snapshot
from seamhost.session.derived import replay
from seamhost.session.live import Session
from seamhost.session.store import SnapshotPiece
from seamhost.store import SessionCorrupted
from seamhost.testing.persistence import envelopes, make_header
from seamhost.testing.persistence_snapshots import turn_events
from tests.persistence_jsonl.conftest import flip, frame_spans


def write_turns(root: Path, turns: int, *, every: int = 1) -> list[bytes]:
    """A closed session "s-1" of `turns` flushed turns (the last one open)."""
    store = JsonlStore(root, snapshot_every=every)
    session = Session(store.create(make_header("s-1")), flush=lambda s: s.writer.flush())
    for turn in range(1, turns + 1):
        for kind, data, ignorable in turn_events(turn, ended=turn < turns):
            session.append_data(kind, data, ignorable=ignorable)
        asyncio.run(session.flush())
    written = envelopes(list(session.records))
    session.close()
    return written


def opened(root: Path) -> Session:
    return Session(JsonlStore(root).open("s-1"))


def test_a_snapshot_is_a_side_file_and_every_zero_keeps_none(tmp_path: Path) -> None:
    write_turns(tmp_path / "a", 3)
    assert (tmp_path / "a" / "s-1" / SNAPSHOT_NAME).is_file()
    write_turns(tmp_path / "b", 3, every=0)
    assert not (tmp_path / "b" / "s-1" / SNAPSHOT_NAME).exists()
    session = opened(tmp_path / "b")
    assert session.resumed is None
    session.close()


def test_deleting_the_snapshot_changes_nothing_but_speed(tmp_path: Path) -> None:
    written = write_turns(tmp_path, 4)
    session = opened(tmp_path)
    assert session.resumed is not None
    state = session.resumed.copy().fold(session.records[session.resumed.seq :]).summary()
    last = {kind: session.last(kind) for kind in replay(session.records).last}
    assert envelopes(list(session.records)) == written
    session.close()
    (tmp_path / "s-1" / SNAPSHOT_NAME).unlink()
    again = opened(tmp_path)
    assert again.resumed is None
    assert replay(again.records).summary() == state
    assert {kind: again.last(kind) for kind in last} == last
    assert envelopes(list(again.records)) == written
    again.close()


def test_opening_does_not_read_the_log_before_the_snapshot(tmp_path: Path) -> None:
    """Damage far before the covered point is not seen by opening, only by reading there."""
    written = write_turns(tmp_path, 40)
    log = tmp_path / "s-1" / "session.v2.jsonl.zst"
    assert log.stat().st_size > 4 * 4096
    first = frame_spans(log)[1]
    flip(log, first.payload + 8)
    session = opened(tmp_path)
    try:
        assert session.resumed is not None
        assert session.next_seq == len(written)
        assert session.records[-1].envelope() == written[-1]  # the window is in memory
        with pytest.raises(SessionCorrupted):
            list(session.records)
    finally:
        session.close()


def test_damage_after_the_snapshot_is_refused_as_a_full_read_would(tmp_path: Path) -> None:
    store = JsonlStore(tmp_path, snapshot_every=1)
    session = Session(store.create(make_header("s-1")), flush=lambda s: s.writer.flush())
    for turn in (1, 2):
        for kind, data, ignorable in turn_events(turn, ended=True):
            session.append_data(kind, data, ignorable=ignorable)
        asyncio.run(session.flush())
    session.close()
    again = Session(
        JsonlStore(tmp_path, snapshot_every=0).open("s-1"), flush=lambda s: s.writer.flush()
    )
    for kind, data, ignorable in turn_events(3, ended=True):
        again.append_data(kind, data, ignorable=ignorable)
    asyncio.run(again.flush())
    again.close()
    log = tmp_path / "s-1" / "session.v2.jsonl.zst"
    last = frame_spans(log)[-1]
    flip(log, last.payload + 4)
    with pytest.raises(SessionCorrupted) as raised:
        JsonlStore(tmp_path).open("s-1")
    assert raised.value.offset == last.offset


def test_a_stale_snapshot_temp_file_is_removed_at_open(tmp_path: Path) -> None:
    write_turns(tmp_path, 2)
    temp = tmp_path / "s-1" / f".{SNAPSHOT_NAME}.123.abcd.tmp"
    temp.write_bytes(b"half a snapshot")
    opened(tmp_path).close()
    assert not temp.exists()


def verify(root: Path) -> tuple[int, dict[str, object]]:
    result = CliRunner().invoke(main, ["session", "verify", "s-1", "--root", str(root), "--json"])
    (check,) = json.loads(result.stdout)
    return result.exit_code, check


def test_verify_compares_the_snapshot_with_a_replay(tmp_path: Path) -> None:
    written = write_turns(tmp_path, 3)
    code, check = verify(tmp_path)
    assert code == 0
    assert check["snapshot"] == {
        "seq": len(written),
        "status": "matches",
        "message": "it matches a replay of the log",
        "pieces": "matches",
    }
    text = CliRunner().invoke(main, ["session", "verify", "s-1", "--root", str(tmp_path)]).output
    assert f"resume snapshot at seq {len(written)}: it matches a replay" in text


def test_verify_calls_a_snapshot_that_differs_from_its_log_damage(tmp_path: Path) -> None:
    write_turns(tmp_path, 3)
    session = Session(JsonlStore(tmp_path).open("s-1"), snapshot_interval=0)
    writer = session.writer
    mark = writer.snapshot_mark()  # type: ignore[attr-defined]
    state = replay(list(session.records))
    state.usage["input_tokens"] += 1  # sound on its own, but not what the log says
    writer.save_snapshot(mark, snapshot.encode(state, session.header))  # type: ignore[attr-defined]
    session.close()
    code, check = verify(tmp_path)
    assert code == 3
    assert check["intact"] is True
    assert check["snapshot"]["status"] == "differs"  # type: ignore[index]


def test_verify_compares_the_pieces_with_the_log(tmp_path: Path) -> None:
    # Pieces that check out but hold another record are damage; pieces that do not check out
    # are a note (opening reads the conversation from the log then).
    write_turns(tmp_path, 3)
    session = Session(JsonlStore(tmp_path).open("s-1"), snapshot_interval=0)
    writer = session.writer
    mark = writer.snapshot_mark()  # type: ignore[attr-defined]
    records = list(session.records)
    state = replay(records)
    other = [r for r in records if r.type != "user/message"]  # sound, but not the log's
    for pieced, status, code in ((other, "differs", 3), (records, "ignored", 0)):
        data = snapshot.piece(pieced, 0, len(records))
        state.chain = (1, snapshot.chain("", data))
        body = snapshot.encode(state, session.header)
        stored = data if status == "differs" else data + b"x"
        writer.save_snapshot(mark, body, SnapshotPiece(0, stored))  # type: ignore[attr-defined]
        found, check = verify(tmp_path)
        assert (found, check["snapshot"]["pieces"]) == (code, status)  # type: ignore[index]
        assert check["snapshot"]["status"] == ("differs" if code else "matches")  # type: ignore[index]
    session.close()
    text = CliRunner().invoke(main, ["session", "verify", "s-1", "--root", str(tmp_path)]).output
    assert "its pieces do not check out" in text


def test_verify_notes_a_snapshot_it_would_not_use(tmp_path: Path) -> None:
    write_turns(tmp_path, 3)
    session = Session(JsonlStore(tmp_path).open("s-1"), snapshot_interval=0)
    writer = session.writer
    writer.save_snapshot(writer.snapshot_mark(), b"garbage")  # type: ignore[attr-defined]
    session.close()
    code, check = verify(tmp_path)
    assert code == 0
    assert check["snapshot"]["status"] == "ignored"  # type: ignore[index]


def test_a_short_write_of_the_side_file_still_writes_all_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log"
    log.write_bytes(bytes(range(256)) * 40)
    body = b"the kernel's document\n" * 1000
    fd = os.open(log, os.O_RDONLY)
    try:
        paths: Any = SimpleNamespace(directory=tmp_path)
        snapshots.save(paths, fd, snapshots.Point(7, 10_000), body)
        whole = (tmp_path / SNAPSHOT_NAME).read_bytes()
        real = os.pwritev

        def short(out: int, buffers: Sequence[bytes], offset: int) -> int:  # 7 bytes only
            return real(out, [b"".join(bytes(b) for b in buffers)[:7]], offset)

        monkeypatch.setattr(os, "pwritev", short)
        snapshots.save(paths, fd, snapshots.Point(7, 10_000), body)
        assert (tmp_path / SNAPSHOT_NAME).read_bytes() == whole
        assert snapshots.find(paths, fd, 10_240) == (snapshots.Point(7, 10_000), body, None)
    finally:
        os.close(fd)
