"""persistence-jsonl passes the persistence contract, in both of its encodings."""

from __future__ import annotations

from pathlib import Path

import pytest

from seamhost.session.store import SessionStore
from seamhost.testing.persistence import PersistenceContract, StoreBackend
from tests.persistence_jsonl.conftest import flip, frame_spans, tear

FACTORY = "seamhost_persistence_jsonl:JsonlStore"


def log_of(store: SessionStore, session_id: str) -> Path:
    return Path(store.stat(session_id).location)


def cut_last_write(store: SessionStore, session_id: str) -> None:
    """End the log three bytes early, inside the last frame (or the last line)."""
    path = log_of(store, session_id)
    tear(path, path.read_bytes()[:-3])


def flip_first_batch(store: SessionStore, session_id: str) -> None:
    """Flip one bit in the middle of the first frame of records."""
    path = log_of(store, session_id)
    first = frame_spans(path)[1]
    flip(path, (first.payload + first.end) // 2, 0x10)


def break_first_record(store: SessionStore, session_id: str) -> None:
    """Turn the first record's line (the second line of a plain log) into a non-record:
    its opening brace becomes a ';'."""
    path = log_of(store, session_id)
    flip(path, path.read_bytes().index(b"\n") + 1, ord("{") ^ ord(";"))


class TestFramedLogs(PersistenceContract):
    @pytest.fixture
    def store_backend(self) -> StoreBackend:
        return StoreBackend.importable(
            FACTORY, {"batch_window_ms": 20}, tear_tail=cut_last_write, corrupt=flip_first_batch
        )


class TestPlainLogs(PersistenceContract):
    @pytest.fixture
    def store_backend(self) -> StoreBackend:
        return StoreBackend.importable(
            FACTORY,
            {"compression": "none", "batch_window_ms": 20},
            tear_tail=cut_last_write,
            corrupt=break_first_record,
        )
