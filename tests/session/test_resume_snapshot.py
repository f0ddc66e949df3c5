"""The kernel side of resume snapshots: the derived state, its document, the lazy records."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from seamhost.session import snapshot
from seamhost.session.derived import SHOWN, Derived, replay
from seamhost.session.lines import CommittedRecords
from seamhost.session.live import Session
from seamhost.session.memory import MemoryStore
from seamhost.session.record import Record, parse_envelope
from seamhost.session.resumed import ResumedRecords, Snapshots
from seamhost.session.store import SnapshotMark, SnapshotPiece, snapshot_writer
from seamhost.testing.persistence import make_header
from seamhost.testing.persistence_snapshots import turn_events


def records_of(turns: int, *, last_open: bool = True) -> list[Record]:
    session = Session(MemoryStore().create(make_header("s-1")))
    for turn in range(1, turns + 1):
        for kind, data, ignorable in turn_events(turn, ended=turn < turns or not last_open):
            session.append_data(kind, data, ignorable=ignorable)
    return list(session.records)


def test_the_fold_keeps_the_open_turn_usage_and_last_records() -> None:
    records = records_of(3)
    state = replay(records)
    assert state.seq == len(records)
    assert state.open_turn == 3
    assert state.open_step is None  # the sample's step ended
    assert state.window[0].type == "turn/start"
    assert state.window_start == records.index(state.window[0])
    assert state.usage == {"input_tokens": 60, "output_tokens": 9, "tool_calls": 0}
    assert state.last["turn/start"].data["turn"] == 3
    closed = replay(records_of(3, last_open=False))
    assert closed.open_turn is None
    assert [r.type for r in closed.window] == ["turn/end"]


def test_folding_in_pieces_is_folding_at_once() -> None:
    records = records_of(4)
    for cut in range(len(records) + 1):
        pieces = Derived().fold(records[:cut]).copy().fold(records[cut:])
        assert pieces.summary() == replay(records).summary()
        lean = Derived().fold(records[:cut], window=False).fold(records[cut:], window=False)
        assert lean.window == []
        lean.window = records[lean.window_start :]
        assert lean.summary() == replay(records).summary()


def test_a_fold_refuses_records_that_do_not_follow() -> None:
    records = records_of(1)
    with pytest.raises(ValueError, match="does not follow"):
        Derived().fold(records[1:])


def test_the_document_round_trips_for_its_session_only() -> None:
    records = records_of(3)
    header = make_header("s-1")
    for cut in (0, 1, len(records) // 2, len(records)):
        state = replay(records[:cut])
        decoded = snapshot.decode(snapshot.encode(state, header), header)
        assert decoded is not None
        assert decoded.summary() == state.summary()
    body = snapshot.encode(replay(records), header)
    assert snapshot.decode(body, make_header("s-2")) is None
    assert snapshot.decode(body, make_header("s-1", created=1)) is None


def test_any_changed_byte_makes_the_document_untrusted() -> None:
    header = make_header("s-1")
    body = snapshot.encode(replay(records_of(1)), header)
    for index in range(len(body)):
        damaged = bytearray(body)
        damaged[index] ^= 0x01
        assert snapshot.decode(bytes(damaged), header) is None, index
    assert snapshot.decode(body[:-1], header) is None
    assert snapshot.decode(body + b"x", header) is None


def test_resumed_records_read_the_prefix_only_when_asked() -> None:
    records = records_of(3)
    start = 10
    calls: list[int] = []

    def load() -> list[Record]:
        calls.append(1)
        return list(records)

    view = ResumedRecords(start, list(records[start:]), load)
    assert len(view) == len(records)
    assert view[-1] == records[-1]
    assert view[start] == records[start]
    assert view[start:] == records[start:]
    assert view[start + 2 : -1] == records[start + 2 : -1]
    assert not calls
    assert view[3] == records[3]
    assert view.loaded
    assert list(view) == records
    assert view[::2] == records[::2]
    assert calls == [1]
    with pytest.raises(IndexError):
        view[len(records)]


def test_a_store_without_snapshots_opens_by_full_replay() -> None:
    store = MemoryStore()
    session = Session(store.create(make_header("s-1")), flush=lambda s: s.writer.flush())
    for kind, data, ignorable in turn_events(1, ended=False):
        session.append_data(kind, data, ignorable=ignorable)
    asyncio.run(session.flush())
    written = list(session.records)
    session.close()
    again = Session(store.open("s-1"))
    assert again.resumed is None
    assert list(again.records) == written
    again.close()


class Keeper:
    """A `SnapshotWriter` stand-in: every record is durable, every document is kept."""

    snapshot_interval = 1

    def __init__(self) -> None:
        self.header = make_header("s-1")
        self.records: list[Record] = []
        self.bodies: list[bytes] = []
        self.pieces: list[SnapshotPiece] = []
        self.pieces_seq = 0

    def snapshot_mark(self) -> SnapshotMark:
        return SnapshotMark(len(self.records), {})

    def save_snapshot(
        self, mark: SnapshotMark, body: bytes, piece: SnapshotPiece | None = None
    ) -> None:
        if piece is not None:  # the protocol's rule: it continues the kept pieces, or starts over
            assert piece.start in (0, self.pieces_seq)
            self.pieces = [p for p in self.pieces if p.start < piece.start] + [piece]
            self.pieces_seq = mark.seq
        else:
            self.pieces, self.pieces_seq = [], 0
        self.bodies.append(body)

    @property
    def kept_pieces(self) -> bytes:
        return b"".join(p.data for p in self.pieces)

    def opened_from(self) -> None:
        return None


def test_each_snapshot_is_a_replay_written_down_with_pieces_that_check_out() -> None:
    # Across turn boundaries, at every cut, and from a state opened from a snapshot: each
    # document is exactly what encoding a replay makes, and the kept pieces hold the shown
    # records before it.
    records = records_of(4)
    for start in (0, 3, len(records) // 2):
        keeper = Keeper()
        opened = replay(records[:start]) if start else None
        snapshots = Snapshots(keeper, opened)  # type: ignore[arg-type]  # a stand-in
        for cut in range(start + 1, len(records) + 1, 2):
            keeper.records = records[:cut]
            saved = len(keeper.bodies)
            snapshots.after_flush(keeper.records)
            if len(keeper.bodies) > saved:  # one was due at this cut
                body = keeper.bodies[-1]
                expected = replay(records[:cut])
                decoded = snapshot.decode(body, keeper.header)
                assert decoded is not None
                assert decoded.chain is not None
                expected.chain = decoded.chain  # (count, digest): checked just below
                assert body == snapshot.encode(expected, keeper.header)
                shown = snapshot.shown_records(keeper.kept_pieces, decoded)
                assert shown is not None
                assert list(shown) == [r for r in records[:cut] if r.type in SHOWN]
        assert len(keeper.bodies) >= 3


class FailingKeeper(Keeper):
    """A keeper whose saves fail when `failing` says so: the log is untouched, nothing kept."""

    def __init__(self, failing: list[bool]) -> None:
        super().__init__()
        self.failing = failing

    def save_snapshot(
        self, mark: SnapshotMark, body: bytes, piece: SnapshotPiece | None = None
    ) -> None:
        if self.failing.pop(0) if self.failing else False:
            raise OSError("disk full")
        super().save_snapshot(mark, body, piece)


@pytest.mark.parametrize("failing", [[True], [False, True, True], [True, False, True, False]])
def test_a_failed_save_leaves_the_next_piece_to_cover_what_it_missed(failing: list[bool]) -> None:
    # The piece a failed save carried is not kept: the next snapshot's piece starts where the
    # kept ones end, so the shown records before it are all there, once each.
    records = records_of(6)
    keeper = FailingKeeper(list(failing))
    snapshots = Snapshots(keeper, None)  # type: ignore[arg-type]  # a stand-in
    for cut in range(1, len(records) + 1):
        keeper.records = records[:cut]
        snapshots.after_flush(keeper.records)
    assert not keeper.failing  # every planned failure happened
    decoded = snapshot.decode(keeper.bodies[-1], keeper.header)
    assert decoded is not None
    shown = snapshot.shown_records(keeper.kept_pieces, decoded)
    assert shown is not None
    assert list(shown) == [r for r in records[: decoded.seq] if r.type in SHOWN]


def test_a_long_turn_is_snapshotted_once_and_the_next_after_its_boundary() -> None:
    # Within one turn a later snapshot would hold the window the last one started plus the
    # records after it, which a resume reads from the log as the tail anyway: the turn is
    # snapshotted once, and the next snapshot comes after the next boundary, holding only
    # records newer than the last snapshot. Keeping them copies each record at most once.
    keeper = Keeper()
    snapshots = Snapshots(keeper, None)  # type: ignore[arg-type]  # a stand-in
    turn = [Record(0, "turn/start", 1, plain={"turn": 1})]
    turn += [Record(n, "step/start", 1, plain={"turn": 1, "step": n}) for n in range(1, 3000)]
    after = [Record(3000, "turn/end", 1, plain={"turn": 1, "reason": "completed"})]
    records = turn + after + [Record(3001, "turn/start", 1, plain={"turn": 2})]
    windows = []
    for cut in range(1, len(records) + 1):
        keeper.records = records[:cut]
        saved = len(keeper.bodies)
        snapshots.after_flush(keeper.records)
        if len(keeper.bodies) > saved:
            decoded = snapshot.decode(keeper.bodies[-1], keeper.header)
            assert decoded is not None
            assert decoded.summary() == replay(records[:cut]).summary()
            windows.append((cut, len(decoded.window)))
    assert windows == [(1, 1), (3001, 1), (3002, 1)]
    assert snapshots.checked == len(records)


def test_a_session_opened_from_a_snapshot_waits_for_its_window_to_move() -> None:
    records = records_of(3)
    open_turn = max(r.seq for r in records if r.type == "turn/start")
    opened = replay(records[: open_turn + 2])
    keeper = Keeper()
    snapshots = Snapshots(keeper, opened)  # type: ignore[arg-type]  # a stand-in
    for cut in range(open_turn + 3, len(records) + 1):
        keeper.records = records[:cut]
        snapshots.after_flush(keeper.records)
    assert keeper.bodies == []  # still the window it was opened from
    state = snapshots.state  # folded all the same, without holding the window
    assert state.window == []
    state.window = records[state.window_start :]
    assert state.summary() == replay(records).summary()
    ended = Record(len(records), "turn/end", 1, plain={"turn": 3, "reason": "completed"})
    keeper.records = [*records, ended]
    snapshots.after_flush(keeper.records)
    decoded = snapshot.decode(keeper.bodies[-1], keeper.header)
    assert decoded is not None
    assert (decoded.seq, decoded.window_start) == (len(records) + 1, len(records))


def test_the_fold_counts_each_call_once_however_many_attempts() -> None:
    session = Session(MemoryStore().create(make_header("s-1")))
    session.append_data("turn/start", {"turn": 1})
    for call_id, attempts in (("a", 1), ("b", 3)):
        for attempt in range(1, attempts + 1):
            dispatch = {"call_id": call_id, "attempt": attempt, "sandbox_mode": "read-only"}
            session.append_data("tool/dispatch", {**dispatch, "args_digest": "sha256:0"})
    live = list(session.records)
    read = [parse_envelope(r.envelope()) for r in live]  # as a store reads them back
    for records in (live, read):
        assert replay(records).usage["tool_calls"] == 2


def test_pieces_are_decompressed_only_once_their_chain_checks_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A piece is a zstd frame: bytes that do not match the document's chain are refused before
    # anything is decompressed (a damaged or planted frame may claim any size).
    import zstandard

    records = records_of(2)
    data = snapshot.piece(records, 0, len(records))
    state = replay(records)
    state.chain = (1, snapshot.chain("", data))
    shown = snapshot.shown_records(data, state)
    assert shown is not None
    assert list(shown) == [r for r in records if r.type in SHOWN]

    def refuse(self: object, *args: object, **kwargs: object) -> bytes:
        raise AssertionError("decompressed before the chain was checked")

    monkeypatch.setattr(zstandard.ZstdDecompressor, "decompress", refuse)
    damaged = data[:-1] + bytes([data[-1] ^ 1])
    assert snapshot.shown_records(damaged, state) is None
    assert snapshot.shown_records(data + data, state) is None  # more pieces than it names
    other = replay(records)
    other.chain = (1, "0" * 64)
    assert snapshot.shown_records(data, other) is None


class BeforePieces(Keeper):
    """A writer of the protocol before pieces: `save_snapshot(mark, body)`."""

    def save_snapshot(self, mark: SnapshotMark, body: bytes) -> None:  # type: ignore[override]
        raise AssertionError("the kernel must not save to it")


def test_a_writer_whose_save_takes_no_piece_keeps_no_snapshot(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Saving to it would raise TypeError from a flush: it is a writer without the protocol,
    # opened by a full replay, and the log says why once.
    keeper = BeforePieces()
    with caplog.at_level("WARNING", logger="seamhost.session"):
        assert snapshot_writer(keeper) is None
        assert snapshot_writer(BeforePieces()) is None
    assert [r.getMessage() for r in caplog.records] == [
        "BeforePieces.save_snapshot does not take (mark, body, piece): its sessions keep no "
        "resume snapshots and open by a full replay (docs/design.md, 'Resume snapshots')"
    ]
    snapshots = Snapshots(keeper, None)  # type: ignore[arg-type]  # a stand-in
    keeper.records = records_of(3)
    snapshots.after_flush(keeper.records)  # no snapshot, no TypeError
    assert snapshot_writer(Keeper()) is not None


COMMITTED = st.lists(
    st.sampled_from(
        [
            ("turn/start", {"turn": 1}, False),
            ("turn/end", {"turn": 1, "reason": "completed"}, False),
            ("step/start", {"turn": 1, "step": 1}, False),
            ("user/message", {"turn": 1, "step": 0, "content": "é\t\n", "source": "user"}, False),
            (
                "model/usage",
                {"turn": 1, "step": 1, "attempt": 1, "input_tokens": 7, "output_tokens": 2},
                False,
            ),
            *[
                (
                    "tool/dispatch",
                    {"call_id": "c", "attempt": n, "sandbox_mode": "read-only", "args_digest": "x"},
                    False,
                )
                for n in (1, 2)
            ],
            (
                "tool/result",
                {"turn": 1, "step": 1, "call_id": "c", "is_error": False, "content": "ok"},
                False,
            ),
            ("vendor/note", {"text": '"data":{}'}, True),
            ("sandbox/mode", {"mode": "read-only", "source": "user"}, False),
        ]
    ),
    max_size=40,
)


@given(events=COMMITTED, cuts=st.lists(st.integers(0, 40), max_size=4))
def test_folding_committed_columns_is_folding_their_records(
    events: list[tuple[str, dict[str, Any], bool]], cuts: list[int]
) -> None:
    # A snapshot folds what the session committed as columns of lines, making only the last
    # record of each type: the state, and the piece lines, are those of folding every record.
    session = Session(MemoryStore().create(make_header("s-1")))
    for kind, data, ignorable in events:
        session.append_data(kind, data, ignorable=ignorable)
    records = session._records
    assert isinstance(records, CommittedRecords)
    state, lines = Derived(), []
    for stop in [*sorted(min(c, len(records)) for c in cuts), len(records)]:
        columns = records.columns(state.seq, stop)
        assert columns is not None
        state.fold_columns(columns)
        lines += snapshot.column_piece_lines(columns)
    expected = Derived().fold(list(records), window=False)
    assert (state.seq, state.last_time, state.window_start) == (
        expected.seq,
        expected.last_time,
        expected.window_start,
    )
    assert state.usage == expected.usage == replay(list(records)).usage
    assert state.last == expected.last
    assert [r.ignorable for r in state.last.values()] == [
        expected.last[kind].ignorable for kind in state.last
    ]
    assert lines == snapshot.piece_lines(records)


def test_columns_are_only_of_what_the_session_committed() -> None:
    opened = [Record(0, "turn/start", 5, plain={"turn": 1})]
    records = CommittedRecords(opened)
    records.append(Record(1, "step/start", 6, plain={"turn": 1, "step": 1}))
    assert records.columns(0, 2) is None  # the opened record is not a committed line
    assert records.columns(1, 3) is None  # past the end
    columns = records.columns(1, 2)
    assert columns is not None
    assert (columns.first, columns.types) == (1, ["step/start"])
    with pytest.raises(ValueError, match="does not follow"):
        Derived().fold_columns(columns)
