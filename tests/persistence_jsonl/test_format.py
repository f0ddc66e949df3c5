"""The on-disk format as specified at the top of format.py: frames, names, escaping, zstd -d."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import zlib
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from seamhost_persistence_jsonl import format as fmt
from seamhost_persistence_jsonl.errors import InvalidSessionId
from seamhost_persistence_jsonl.format import FRAME_TARGET, content_size, frame_cuts
from seamhost_persistence_jsonl.layout import escape_id, unescape_id
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.session.store import FORMAT_VERSION
from seamhost.testing.persistence import make_header
from tests.persistence_jsonl.conftest import frame_spans, write_session


def test_the_frame_header_is_an_84_byte_zstd_skippable_frame_bound_to_its_predecessor() -> None:
    prev = bytes(range(32))
    header = fmt.frame_header(fmt.KIND_RECORDS, b"payload", 7, 3, prev=prev)
    assert len(header) == fmt.FRAME_HEADER_SIZE == 84
    magic, size = fmt.FRAME_PREFIX.unpack_from(header)
    assert magic & 0xFFFFFFF0 == 0x184D2A50
    assert size == 76 == len(header) - 8
    assert fmt.FRAME_INFO.unpack_from(header, 8) == (2, 0, 7, 7, 3, zlib.crc32(b"payload"))
    expected = hashlib.blake2b(prev, digest_size=32, person=b"seamhost-frame")
    expected.update(header[8:32] + b"payload")
    assert fmt.FRAME_BINDING.unpack_from(header, 32) == (expected.digest(), bytes(16))
    assert fmt.FRAME_CHECK.unpack_from(header, 80) == (zlib.crc32(header[8:80]),)


def test_a_layout_1_frame_header_is_36_bytes_without_a_binding() -> None:
    header = fmt.frame_header(fmt.KIND_RECORDS, b"payload", 7, 3)
    assert len(header) == fmt.V1_FRAME_HEADER_SIZE == 36
    assert fmt.FRAME_PREFIX.unpack_from(header)[1] == 28
    assert fmt.FRAME_INFO.unpack_from(header, 8) == (2, 0, 7, 7, 3, zlib.crc32(b"payload"))
    assert fmt.FRAME_CHECK.unpack_from(header, 32) == (zlib.crc32(header[8:32]),)


def test_a_log_is_a_header_frame_then_one_frame_per_batch(store: JsonlStore) -> None:
    path, _ = write_session(store, batches=3)
    assert path.name == "session.v2.jsonl.zst"
    spans = frame_spans(path)
    assert [(s.kind, s.first_seq, s.count) for s in spans] == [
        (fmt.KIND_HEADER, 0, 1),
        (fmt.KIND_RECORDS, 0, 8),
        (fmt.KIND_RECORDS, 8, 8),
        (fmt.KIND_RECORDS, 16, 8),
    ]
    data = path.read_bytes()
    header_frame = data[spans[0].payload : spans[0].end]
    assert header_frame[:4] == fmt.ZSTD_MAGIC.to_bytes(4, "little")
    import zstandard

    content = zstandard.ZstdDecompressor().decompress(header_frame)
    assert orjson.loads(content) == make_header("s-1").to_json()
    assert orjson.loads(content)["format"] == FORMAT_VERSION


def test_zstd_frames_carry_their_content_checksum(store: JsonlStore) -> None:
    import zstandard

    path, _ = write_session(store, batches=1)
    data = path.read_bytes()
    for span in frame_spans(path):
        params = zstandard.get_frame_parameters(data[span.payload : span.end])
        assert params.has_checksum
        assert params.content_size > 0


@pytest.mark.skipif(shutil.which("zstd") is None, reason="the zstd command is not installed")
def test_plain_zstd_decodes_a_log_into_the_plain_log(root: Path) -> None:
    framed, written = write_session(JsonlStore(root / "framed"), batches=3)
    plain, _ = write_session(JsonlStore(root / "plain", compression="none"), batches=3)
    decoded = subprocess.run(["zstd", "-dc", str(framed)], capture_output=True, check=True).stdout
    lines = decoded.splitlines()
    assert orjson.loads(lines[0]) == make_header("s-1").to_json()
    assert lines[1:] == written
    # the plain encoding is exactly that text (the times differ between the two sessions)
    assert len(plain.read_bytes().splitlines()) == len(lines)


def test_a_big_batch_is_cut_into_frames_near_the_target(store: JsonlStore) -> None:
    from seamhost.session.live import Session
    from tests.persistence_jsonl.conftest import flush

    session = Session(store.create(make_header("big")))
    for index in range(300):
        session.append_data("vendor/blob", {"i": index, "pad": "z" * 10_000}, ignorable=True)
    flush(session)
    session.close()
    spans = frame_spans(Path(store.stat("big").location))[1:]
    assert len(spans) >= 3
    assert sum(s.count for s in spans) == 300
    assert [s.first_seq for s in spans] == [
        sum(s.count for s in spans[:i]) for i in range(len(spans))
    ]
    assert len(list(store.read("big").records())) == 300


def test_the_layout_files_and_modes(store: JsonlStore, root: Path) -> None:
    path, _ = write_session(store, "a/b")
    assert path.parent == root / "a%2Fb"
    names = ["session.lock", "session.mark", "session.v2.jsonl.zst"]
    assert sorted(os.listdir(path.parent)) == names
    for name in names:
        assert (path.parent / name).stat().st_mode & 0o777 == 0o600, name
    assert orjson.loads((root / fmt.ROOT_MARKER).read_bytes()) == {"format": 1, "encoding": "zstd"}


@pytest.mark.parametrize(
    ("session_id", "name"),
    [
        ("plain-id_1.x", "plain-id_1.x"),
        ("a/b", "a%2Fb"),
        (".hidden", "%2Ehidden"),
        ("..", "%2E."),
        ("100%", "100%25"),
        ("é", "%C3%A9"),
        ("a b", "a%20b"),
    ],
)
def test_session_ids_escape_into_directory_names(session_id: str, name: str) -> None:
    assert escape_id(session_id) == name
    assert unescape_id(name) == session_id


@given(st.text(min_size=1, max_size=80))
def test_escaping_round_trips_and_stays_in_the_safe_set(session_id: str) -> None:
    raw = session_id.encode()
    safe = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"
    escaped_length = sum(
        1 if b in safe and not (i == 0 and b == ord(".")) else 3 for i, b in enumerate(raw)
    )
    if escaped_length > 255:  # the only id refused: too long for a directory name once escaped
        with pytest.raises(InvalidSessionId, match="255"):
            escape_id(session_id)
        return
    name = escape_id(session_id)
    assert len(name) == escaped_length
    assert unescape_id(name) == session_id
    assert not name.startswith(".")
    assert set(name) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-%")


@pytest.mark.parametrize("name", ["%2f", "%41", "a%2", "%zz", ".x", "a b", "%C3"])
def test_names_no_id_escapes_to_are_not_sessions(name: str) -> None:
    assert unescape_id(name) is None


@pytest.mark.parametrize("session_id", ["", "x" * 100 + "/" * 60])
def test_ids_that_cannot_name_a_directory_are_refused(session_id: str) -> None:
    with pytest.raises(InvalidSessionId, match="use another id"):
        escape_id(session_id)


def frame_cut(lines: list[bytes], start: int) -> int | None:
    """The rule, line by line: the frame from `start` ends just after the line that brings its
    content to FRAME_TARGET bytes; None when the lines from `start` do not reach it."""
    size = 0
    for index in range(start, len(lines)):
        size += len(lines[index]) + 1
        if size >= FRAME_TARGET:
            return index + 1
    return None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 300_000), max_size=60), st.integers(0, 10), st.booleans())
def test_frame_cuts_are_where_frame_cut_cuts_one_frame_after_another(
    sizes: list[int], start: int, full_only: bool
) -> None:
    lines = [b"x" * size for size in sizes]
    expected = []
    at = start
    while at < len(lines):
        end = frame_cut(lines, at)
        if end is None:
            if not full_only:
                expected.append(len(lines) - start)
            break
        expected.append(end - start)
        at = end
    assert frame_cuts(lines, start, full_only=full_only) == expected
    assert content_size(lines) == len(b"\n".join([*lines, b""]))
