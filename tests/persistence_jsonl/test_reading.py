"""The read path: the format gates, corruption of every kind, torn tails, streaming."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path
from typing import ClassVar

import attrs
import orjson
import pytest
from seamhost_persistence_jsonl import format as fmt
from seamhost_persistence_jsonl.format import LogEncoder
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.session.codec import EventCatalog
from seamhost.session.events import CORE_EVENTS, Event
from seamhost.session.live import Session
from seamhost.session.record import Record
from seamhost.store import SessionCorrupted, UnknownRecordType, UnsupportedFormat
from seamhost.testing.persistence import append_all, make_header, sample_events
from tests.persistence_jsonl.conftest import flip, flush, frame_spans, tear, write_session


def header_bytes(session_id: str = "s-1", **changes: object) -> bytes:
    return orjson.dumps({**make_header(session_id).to_json(), **changes})


def lines(first: int, count: int) -> list[bytes]:
    return [
        b'{"seq":%d,"type":"turn/start","time":5,"data":{"turn":1}}' % s
        for s in range(first, first + count)
    ]


def place(
    root: Path, data: bytes, name: str = "session.v1.jsonl.zst", session_id: str = "s-1"
) -> Path:
    directory = root / session_id
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_bytes(data)
    return path


def framed(*batches: bytes, header: bytes | None = None) -> bytes:
    """A layout-1 log (frames made by hand carry no chain; test_binding covers layout 2)."""
    return LogEncoder("zstd", layout=1).header(header or header_bytes()) + b"".join(batches)


def raw_frame(content: bytes, first: int, count: int, *, compress: bool = True) -> bytes:
    import zstandard

    payload = zstandard.ZstdCompressor().compress(content) if compress else content
    return fmt.frame_header(fmt.KIND_RECORDS, payload, first, count) + payload


def corruption(store: JsonlStore, session_id: str = "s-1") -> SessionCorrupted:
    with pytest.raises(SessionCorrupted) as info:
        list(store.read(session_id).records())
    assert session_id in str(info.value)
    assert f"byte {info.value.offset}" in str(info.value)
    return info.value


# -- the gates ----------------------------------------------------------------------------


def test_a_newer_layout_says_upgrade_not_corrupt(store: JsonlStore, root: Path) -> None:
    place(root, b"\x00 whatever a future layout holds", name="session.v3.jsonl.zst")
    for operation in (store.read, store.stat, store.open, store.verify):
        with pytest.raises(UnsupportedFormat, match="upgrade seamhost"):
            operation("s-1")
    assert list(store.ids()) == ["s-1"]
    with pytest.raises(UnsupportedFormat):
        list(store.list())


@pytest.mark.parametrize("encoding", ["zstd", "none"])
def test_a_newer_header_format_is_gated_before_anything_else(root: Path, encoding: str) -> None:
    store = JsonlStore(root, compression=encoding)  # type: ignore[arg-type]
    header = header_bytes(format=2)
    garbage = b"\xff" * 100  # what follows is never looked at
    if encoding == "zstd":
        place(root, framed(garbage, header=header))
    else:
        place(root, header + b"\n" + garbage, name="session.v1.jsonl")
    for operation in (store.read, store.stat, store.open):
        with pytest.raises(UnsupportedFormat, match="format 2, newer than format 1"):
            operation("s-1")


def test_a_header_naming_another_session_is_refused(store: JsonlStore, root: Path) -> None:
    place(root, framed(header=header_bytes("someone-else")))
    with pytest.raises(SessionCorrupted, match="names session 'someone-else'"):
        store.read("s-1")


# -- corruption ---------------------------------------------------------------------------


def test_damage_to_the_header_frame_is_corruption_at_byte_zero(store: JsonlStore) -> None:
    path, _ = write_session(store)
    flip(path, frame_spans(path)[0].end - 5)
    with pytest.raises(SessionCorrupted) as info:
        store.read("s-1")
    assert info.value.offset == 0


def test_a_payload_checksum_mismatch_names_its_frame(store: JsonlStore) -> None:
    path, _ = write_session(store)
    second = frame_spans(path)[2]
    flip(path, second.payload + 3, 0x40)
    error = corruption(store)
    assert (error.offset, error.problem) == (second.offset, "frame checksum mismatch")


@pytest.mark.parametrize(
    ("batch", "problem"),
    [
        (raw_frame(b"not zstd at all", 0, 1, compress=False), "does not decompress"),
        (raw_frame(b"not json\n", 0, 1), "record seq 0 is broken: not JSON"),
        (raw_frame(b'{"seq":0,"type":"turn/start"}\n', 0, 1), "record seq 0 is broken"),
        (raw_frame(b"\n".join(lines(0, 2)) + b"\n", 0, 3), "frame holds 2 records, not 3"),
        (raw_frame(b"\n".join(lines(0, 3)) + b"\n", 0, 2), "more than its 2 records"),
        (raw_frame(b"\n".join(lines(1, 2)) + b"\n", 0, 2), "record seq 1 where 0 belongs"),
        (raw_frame(b"\n".join(lines(0, 2)) + b"\n", 1, 2), "frame starts at seq 1, not 0"),
        (fmt.frame_header(fmt.KIND_HEADER, b"", 0, 1), "frame of kind 1"),
    ],
    ids=["not-zstd", "not-json", "not-envelope", "short", "long", "inner-gap", "gap", "kind"],
)
def test_a_complete_frame_that_does_not_hold_together_is_corruption(
    store: JsonlStore, root: Path, batch: bytes, problem: str
) -> None:
    good = raw_frame(b"\n".join(lines(0, 2)) + b"\n", 0, 2)
    place(root, framed(batch, raw_frame(b"\n".join(lines(2, 1)) + b"\n", 2, 1)))
    error = corruption(store)
    assert problem in error.problem
    assert error.offset == len(framed())
    place(root, framed(good, raw_frame(b"\n".join(lines(2, 1)) + b"\n", 2, 1)))
    assert len(list(store.read("s-1").records())) == 3


def test_a_seq_gap_between_frames_is_corruption(store: JsonlStore, root: Path) -> None:
    first = raw_frame(b"\n".join(lines(0, 2)) + b"\n", 0, 2)
    place(root, framed(first, raw_frame(b"\n".join(lines(3, 1)) + b"\n", 3, 1)))
    error = corruption(store)
    assert (error.offset, error.problem) == (
        len(framed(first)),
        "seq gap: frame starts at seq 3, not 2",
    )


def test_garbage_between_frames_is_corruption(store: JsonlStore, root: Path) -> None:
    first = raw_frame(b"\n".join(lines(0, 2)) + b"\n", 0, 2)
    place(root, framed(first, b"\x01" * 40, raw_frame(b"\n".join(lines(2, 1)) + b"\n", 2, 1)))
    assert "no frame header here" in corruption(store).problem


@pytest.mark.parametrize(
    ("body", "problem", "line"),
    [
        (b"not a record\n", "line is not a record", 1),
        (b'{"seq":5,"type":"turn/start","time":1,"data":{}}\n', "seq gap", 1),
    ],
)
def test_a_broken_line_of_a_plain_log_is_corruption(
    root: Path, body: bytes, problem: str, line: int
) -> None:
    store = JsonlStore(root, compression="none")
    text = header_bytes() + b"\n" + lines(0, 1)[0] + b"\n" + body + lines(2, 1)[0] + b"\n"
    place(root, text, name="session.v1.jsonl")
    error = corruption(store)
    assert problem in error.problem
    assert error.offset == len(header_bytes()) + 1 + len(lines(0, 1)[0]) + 1


def test_verify_reports_corruption_with_its_offset(store: JsonlStore) -> None:
    path, _ = write_session(store)
    third = frame_spans(path)[3]
    flip(path, third.payload + 1, 2)
    check = store.verify("s-1")
    assert (check.intact, check.offset, check.records) == (
        False,
        third.offset,
        2 * len(sample_events()),
    )


def test_listing_and_stat_read_only_the_header_frame(store: JsonlStore) -> None:
    path, _ = write_session(store)
    flip(path, frame_spans(path)[1].payload + 2, 8)
    assert [s.header for s in store.list()] == [make_header("s-1")]
    assert store.stat("s-1").size == path.stat().st_size
    corruption(store)


# -- event types --------------------------------------------------------------------------


@attrs.frozen
class VendorEvent(Event):
    TYPE: ClassVar[str] = "vendor/x"
    a: int


def test_an_unknown_type_not_marked_ignorable_is_refused(root: Path) -> None:
    store = JsonlStore(root)
    writer = store.create(make_header("s-1"))
    writer.submit(Record(0, "turn/start", 5, plain={"turn": 1}))
    writer.submit(Record(1, "vendor/x", 6, plain={"a": 1}))
    writer.close()
    with pytest.raises(UnknownRecordType, match="seq 1") as info:
        list(store.read("s-1").records())
    assert "install the plugin that defines it" in str(info.value)
    knowing = JsonlStore(root, catalog=EventCatalog((*CORE_EVENTS, VendorEvent)))
    assert [r.type for r in knowing.read("s-1").records()] == ["turn/start", "vendor/x"]


# -- torn tails ---------------------------------------------------------------------------


def big_session(store: JsonlStore, blobs: int = 600) -> tuple[Path, list[bytes]]:
    """Two flushed batches, the last one several frames of many zstd blocks each."""
    session = Session(store.create(make_header("s-1")))
    append_all(session, sample_events())
    flush(session)
    for index in range(blobs):
        session.append_data(
            "vendor/blob", {"i": index, "pad": os.urandom(1500).hex()}, ignorable=True
        )
    flush(session)
    written = [r.envelope() for r in session.records]
    session.close()
    return Path(store.stat("s-1").location), written


def test_complete_records_of_a_torn_frame_are_kept_and_written_again(store: JsonlStore) -> None:
    path, written = big_session(store)
    last = frame_spans(path)[-1]
    tear(path, path.read_bytes()[: (last.payload + last.end) // 2])
    kept = [r.envelope() for r in store.read("s-1").records()]
    assert kept == written[: len(kept)]
    assert len(kept) > last.first_seq  # records decoded from the torn frame itself
    writer = store.open("s-1")
    assert writer.torn_records == len(kept) - last.first_seq
    session = Session(writer)
    session.append_data("turn/end", {"turn": 1, "reason": "interrupted"})
    flush(session)
    session.close()
    after = [r.envelope() for r in store.read("s-1").records()]
    assert after[:-1] == kept
    check = store.verify("s-1")
    assert check.intact
    assert check.torn_bytes == 0
    spans = frame_spans(path)  # every frame whole again
    assert spans[-1].first_seq + spans[-1].count == len(after)


def test_a_zero_filled_tail_is_torn_not_corrupt(store: JsonlStore) -> None:
    path, written = write_session(store)
    with path.open("ab") as log:
        log.write(bytes(4096))
    assert [r.envelope() for r in store.read("s-1").records()] == written
    check = store.verify("s-1")
    assert (check.intact, check.torn_bytes, check.torn_records) == (True, 4096, 0)
    session = Session(store.open("s-1"))
    session.append_data("turn/end", {"turn": 1, "reason": "interrupted"})
    flush(session)
    session.close()
    assert store.verify("s-1").torn_bytes == 0


def test_a_plain_log_cut_mid_line_keeps_every_whole_line(root: Path) -> None:
    store = JsonlStore(root, compression="none")
    path, written = write_session(store)
    tear(path, path.read_bytes()[:-10])
    assert [r.envelope() for r in store.read("s-1").records()] == written[:-1]
    session = Session(store.open("s-1"))
    assert session.writer.torn_records == 0
    session.append_data("turn/end", {"turn": 1, "reason": "interrupted"})
    flush(session)
    session.close()
    assert path.read_bytes().endswith(b"\n")
    assert store.verify("s-1").intact


# -- streaming ----------------------------------------------------------------------------


def test_reading_streams_one_frame_at_a_time(store: JsonlStore) -> None:
    path, written = big_session(store, blobs=2500)
    content = sum(len(e) + 1 for e in written)
    assert content > 2 * fmt.FRAME_TARGET
    tracemalloc.start()
    try:
        count = sum(1 for _ in store.read("s-1").records())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == len(written)
    import zstandard

    data = path.read_bytes()
    largest = max(
        len(zstandard.ZstdDecompressor().decompress(data[s.payload : s.end]))
        for s in frame_spans(path)
    )
    # a compressed frame, its content and one record at a time: never the whole log
    assert peak < 2 * largest
    assert peak < content / 4
