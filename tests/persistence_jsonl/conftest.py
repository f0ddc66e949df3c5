"""Shared helpers of the persistence-jsonl tests: stores under tmp_path, sessions, frame spans."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import attrs
import pytest
from seamhost_persistence_jsonl.format import FRAME_HEADER_SIZE, FRAME_INFO, FRAME_PREFIX
from seamhost_persistence_jsonl.mark import MARK_NAME
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.session.live import Session
from seamhost.testing.persistence import append_all, make_header, sample_events


@attrs.frozen
class FrameSpan:
    """Where one frame of a framed log lies."""

    offset: int
    end: int
    kind: int
    first_seq: int
    count: int
    head: int = FRAME_HEADER_SIZE  # the frame header's size (36 in layout 1, 84 in layout 2)

    @property
    def payload(self) -> int:
        return self.offset + self.head


def frame_spans(path: Path) -> list[FrameSpan]:
    """The frames of an intact framed log, parsed independently of the reader under test."""
    data = path.read_bytes()
    spans = []
    offset = 0
    while offset < len(data):
        _magic, size = FRAME_PREFIX.unpack_from(data, offset)
        kind, _flags, length, first, count, _crc = FRAME_INFO.unpack_from(data, offset + 8)
        end = offset + FRAME_PREFIX.size + size + length
        spans.append(FrameSpan(offset, end, kind, first, count, FRAME_PREFIX.size + size))
        offset = end
    assert offset == len(data), "the log ends inside a frame"
    return spans


def flip(path: Path, offset: int, mask: int = 1) -> None:
    """Flip the bits of `mask` in the byte at `offset` of the file at `path`."""
    data = bytearray(path.read_bytes())
    data[offset] ^= mask
    path.write_bytes(bytes(data))


def tear(path: Path, data: bytes) -> None:
    """Leave the log at `path` as a crash in the middle of a write would: holding `data`, with no
    mark past it (a writer marks only what became durable, so a torn write is never marked)."""
    path.write_bytes(data)
    (path.parent / MARK_NAME).unlink(missing_ok=True)


def flush(session: Session) -> None:
    asyncio.run(session.writer.flush())


def write_session(
    store: JsonlStore, session_id: str = "s-1", batches: int = 3, **header: Any
) -> tuple[Path, list[bytes]]:
    """A closed session of `batches` flushed batches; its log's path and its envelopes."""
    session = Session(store.create(make_header(session_id, **header)))
    for _ in range(batches):
        append_all(session, sample_events())
        flush(session)
    written = [r.envelope() for r in session.records]
    session.close()
    return Path(store.stat(session_id).location), written


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "sessions"


@pytest.fixture
def store(root: Path) -> JsonlStore:
    """A store whose window never closes within a test: only explicit flushes write, so every
    test knows exactly which frames its log holds."""
    return JsonlStore(root, batch_window_ms=600_000)
