"""Sweeps over damage: every cut inside the last frames is a torn tail that keeps the prefix;
every flipped bit inside a complete frame is corruption, found at the frame it is in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from seamhost_persistence_jsonl.format import FRAME_HEADER_SIZE
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.session.live import Session
from seamhost.store import SessionCorrupted
from seamhost.testing.persistence import make_header
from tests.persistence_jsonl.conftest import FrameSpan, flush, frame_spans, tear, write_session


def read_all(store: JsonlStore) -> list[bytes]:
    return [r.envelope() for r in store.read("s-1").records()]


def corrupted_at(store: JsonlStore) -> int:
    """The offset the reader reports for the damaged log (failing if it reports none)."""
    with pytest.raises(SessionCorrupted) as info:
        read_all(store)
    assert info.value.offset is not None
    return info.value.offset


def frame_at(spans: list[FrameSpan], position: int) -> FrameSpan:
    return next(s for s in spans if s.offset <= position < s.end)


@pytest.fixture
def session(store: JsonlStore) -> tuple[Path, bytes, list[bytes], list[FrameSpan]]:
    path, written = write_session(store, batches=5)
    return path, path.read_bytes(), written, frame_spans(path)


def test_every_cut_inside_the_last_three_frames_keeps_the_complete_prefix(
    store: JsonlStore, session: tuple[Path, bytes, list[bytes], list[FrameSpan]]
) -> None:
    path, data, written, spans = session
    cuts = range(spans[-3].offset, len(data))
    assert len(cuts) > 3 * FRAME_HEADER_SIZE
    for cut in cuts:
        tear(path, data[:cut])
        torn = frame_at(spans, cut)
        kept = read_all(store)
        assert kept == written[: len(kept)], cut
        assert torn.first_seq <= len(kept) <= torn.first_seq + torn.count, cut
        check = store.verify("s-1")
        assert check.intact, (cut, check.problem)
        assert check.torn_bytes == cut - torn.offset, cut


def test_a_writer_heals_cuts_inside_the_last_frames(
    store: JsonlStore, session: tuple[Path, bytes, list[bytes], list[FrameSpan]]
) -> None:
    path, data, _, spans = session
    for cut in range(spans[-2].offset + 1, len(data), 23):
        tear(path, data[:cut])
        kept = read_all(store)
        again = Session(store.open("s-1"))
        again.append_data("turn/end", {"turn": 1, "reason": "interrupted"})
        flush(again)
        again.close()
        assert read_all(store)[:-1] == kept, cut
        assert store.verify("s-1").torn_bytes == 0, cut


def test_cuts_through_a_frame_of_many_blocks_keep_its_complete_records(store: JsonlStore) -> None:
    session = Session(store.create(make_header("s-1")))
    for index in range(500):
        session.append_data(
            "vendor/blob", {"i": index, "pad": os.urandom(700).hex()}, ignorable=True
        )
    flush(session)
    written = [r.envelope() for r in session.records]
    session.close()
    path = Path(store.stat("s-1").location)
    data = path.read_bytes()
    spans = frame_spans(path)
    recovered_inside = 0
    for cut in range(spans[1].offset, len(data), 4099):
        tear(path, data[:cut])
        kept = read_all(store)
        assert kept == written[: len(kept)]
        recovered_inside += len(kept) - frame_at(spans, cut).first_seq
    assert recovered_inside > 0


def test_plain_logs_cut_anywhere_in_the_last_batches_keep_whole_lines(root: Path) -> None:
    store = JsonlStore(root, compression="none")
    path, written = write_session(store, batches=3)
    data = path.read_bytes()
    start = len(data) - sum(len(line) + 1 for line in written[-16:])
    last_lines = len(data) - sum(len(line) + 1 for line in written[-2:])
    # every offset of the last two lines, and a stride through the (long) ones before them
    for cut in sorted({*range(start, last_lines, 7), *range(last_lines, len(data) + 1)}):
        tear(path, data[:cut])
        kept = read_all(store)
        whole = data[:cut].count(b"\n") - 1
        assert kept == written[:whole], cut


def test_every_bit_of_every_frame_header_is_checked(
    store: JsonlStore, session: tuple[Path, bytes, list[bytes], list[FrameSpan]]
) -> None:
    path, data, _, spans = session
    for span in spans:
        for position in range(span.offset, span.offset + FRAME_HEADER_SIZE):
            for bit in range(8):
                damaged = bytearray(data)
                damaged[position] ^= 1 << bit
                path.write_bytes(bytes(damaged))
                assert corrupted_at(store) == span.offset, (position, bit)


def test_a_length_made_longer_than_the_file_is_corruption_not_a_torn_tail(
    store: JsonlStore, session: tuple[Path, bytes, list[bytes], list[FrameSpan]]
) -> None:
    path, data, _, spans = session
    damaged = bytearray(data)
    damaged[spans[2].offset + 12 + 3] ^= 0x80  # the top bit of the payload length
    path.write_bytes(bytes(damaged))
    assert corrupted_at(store) == spans[2].offset


def test_flipped_bits_in_payloads_are_checked(
    store: JsonlStore, session: tuple[Path, bytes, list[bytes], list[FrameSpan]]
) -> None:
    path, data, _, spans = session
    for span in spans:
        for position in range(span.payload, span.end, 5):
            damaged = bytearray(data)
            damaged[position] ^= 1 << (position % 8)
            path.write_bytes(bytes(damaged))
            assert corrupted_at(store) == span.offset, position


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(where=st.floats(min_value=0, max_value=1, exclude_max=True), bit=st.integers(0, 7))
def test_any_flipped_bit_is_corruption_at_its_frame(
    store: JsonlStore,
    session: tuple[Path, bytes, list[bytes], list[FrameSpan]],
    where: float,
    bit: int,
) -> None:
    path, data, _, spans = session
    position = int(where * len(data))
    damaged = bytearray(data)
    damaged[position] ^= 1 << bit
    path.write_bytes(bytes(damaged))
    try:
        assert corrupted_at(store) == frame_at(spans, position).offset
    finally:
        path.write_bytes(data)
