"""persistence-jsonl deletion: the directory goes, under the lock, and nothing it did not write."""

from __future__ import annotations

from pathlib import Path

import pytest
from seamhost_persistence_jsonl.deletion import TRASH_PREFIX
from seamhost_persistence_jsonl.errors import SessionLocked, UnexpectedFiles
from seamhost_persistence_jsonl.format import ROOT_MARKER
from seamhost_persistence_jsonl.store import JsonlStore

from tests.persistence_jsonl.conftest import write_session


def test_the_session_directory_goes_and_the_root_stays(store: JsonlStore, root: Path) -> None:
    write_session(store, "a/b")
    write_session(store, "other")
    store.delete("a/b")
    assert sorted(p.name for p in root.iterdir()) == sorted([ROOT_MARKER, "other"])


def test_a_file_someone_put_in_the_directory_refuses_the_deletion(
    store: JsonlStore, root: Path
) -> None:
    path, _ = write_session(store)
    (path.parent / "notes.txt").write_text("mine")
    with pytest.raises(UnexpectedFiles, match=r"also holds notes.txt"):
        store.delete("s-1")
    assert (path.parent / "notes.txt").read_text() == "mine"
    assert store.verify("s-1").intact
    store.open("s-1").close()  # the lock was given back


def test_a_symlink_in_the_directory_is_not_followed(
    store: JsonlStore, root: Path, tmp_path: Path
) -> None:
    path, _ = write_session(store)
    precious = tmp_path / "precious"
    precious.write_text("keep")
    (path.parent / "link").symlink_to(precious)
    with pytest.raises(UnexpectedFiles):
        store.delete("s-1")
    assert precious.read_text() == "keep"


def test_a_stale_temp_file_goes_with_the_session(store: JsonlStore, root: Path) -> None:
    path, _ = write_session(store)
    (path.parent / f".{path.name}.0000.tmp").write_bytes(b"half")
    store.delete("s-1")
    assert not path.parent.exists()


def test_a_deletion_a_crash_interrupted_is_finished_by_the_next(
    store: JsonlStore, root: Path
) -> None:
    path, _ = write_session(store, "a")
    write_session(store, "b")
    trash = root / f"{TRASH_PREFIX}a-dead"
    path.parent.rename(trash)  # as if the process died after moving it aside
    assert list(store.ids()) == ["b"]
    store.delete("b")
    assert sorted(p.name for p in root.iterdir()) == [ROOT_MARKER]


def test_a_writer_blocks_deletion_with_the_lock_error(store: JsonlStore) -> None:
    write_session(store)
    writer = store.open("s-1")
    try:
        with pytest.raises(SessionLocked, match="already open for writing"):
            store.delete("s-1")
    finally:
        writer.close()
    store.delete("s-1")
