"""One writer per session, across threads and processes; readers never lock; no child inherits."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from seamhost_persistence_jsonl.errors import SessionLocked
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.store import WriterClosed
from seamhost.testing.persistence import CHILD_SOURCE, make_header
from tests.persistence_jsonl.conftest import write_session


@pytest.fixture
def holder(root: Path, store: JsonlStore) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the writer of session s-1."""
    write_session(store)
    spec = {
        "factory": "seamhost_persistence_jsonl:JsonlStore",
        "options": {},
        "directory": str(root),
        "action": "hold",
        "session_id": "s-1",
    }
    with subprocess.Popen(
        [sys.executable, "-c", CHILD_SOURCE, json.dumps(spec)], stdout=subprocess.PIPE, text=True
    ) as child:
        assert child.stdout is not None
        assert json.loads(child.stdout.readline())["pid"] == child.pid
        try:
            yield child
        finally:
            child.kill()


def test_another_process_holding_the_session_is_named(
    store: JsonlStore, holder: subprocess.Popen[str]
) -> None:
    with pytest.raises(SessionLocked) as info:
        store.open("s-1")
    assert (info.value.session_id, info.value.pid, info.value.in_process) == (
        "s-1",
        holder.pid,
        False,
    )
    assert f"by process {holder.pid}" in str(info.value)
    assert [r.seq for r in store.read("s-1").records()][-1] == 23  # readers never lock


def test_a_stuck_holder_still_blocks_and_a_dead_one_releases(
    store: JsonlStore, holder: subprocess.Popen[str]
) -> None:
    holder.send_signal(signal.SIGSTOP)
    try:
        with pytest.raises(SessionLocked):
            store.open("s-1")
    finally:
        holder.kill()
        holder.wait()
    store.open("s-1").close()


def test_a_second_writer_in_this_process_is_refused_even_before_publication(
    store: JsonlStore,
) -> None:
    writer = store.create(make_header("s-1"))
    with pytest.raises(SessionLocked) as info:
        JsonlStore(store.root).create(make_header("s-1"))
    assert (info.value.in_process, info.value.pid) == (True, os.getpid())
    assert "another writer in this process" in str(info.value)
    writer.close()
    JsonlStore(store.root).create(make_header("s-1")).close()


def test_the_lock_file_stays_and_names_its_last_holder(store: JsonlStore, root: Path) -> None:
    write_session(store)
    writer = store.open("s-1")
    writer.close()
    lock = root / "s-1" / "session.lock"
    assert lock.read_text() == f"{os.getpid()}\n"


def lock_fds(pid: int, lock: Path) -> list[str]:
    fds = Path(f"/proc/{pid}/fd")
    return [fd.name for fd in fds.iterdir() if os.path.realpath(fd) == str(lock.resolve())]


def test_a_child_process_never_inherits_the_lock(store: JsonlStore, root: Path) -> None:
    write_session(store)
    writer = store.open("s-1")
    lock = root / "s-1" / "session.lock"
    assert lock_fds(os.getpid(), lock)
    with subprocess.Popen(["sleep", "30"], close_fds=False) as child:
        try:
            assert lock_fds(child.pid, lock) == []
            writer.close()
            store.open("s-1").close()  # the lock went with the parent's descriptor
        finally:
            child.kill()


def test_a_forked_child_drops_the_lock_and_cannot_write(store: JsonlStore, root: Path) -> None:
    write_session(store)
    writer = store.open("s-1")
    lock = root / "s-1" / "session.lock"
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report, then linger holding whatever it inherited
        os.close(read_end)
        try:
            asyncio.run(writer.flush())
            outcome = "flushed"
        except WriterClosed:
            outcome = "refused"
        os.write(write_end, json.dumps([outcome, lock_fds(os.getpid(), lock)]).encode())
        os.close(write_end)
        time.sleep(30)
        os._exit(0)
    os.close(write_end)
    try:
        with os.fdopen(read_end, "rb") as report:
            assert json.loads(report.read()) == ["refused", []]
        writer.close()
        opened = store.open("s-1")  # the lingering child does not hold it
        opened.close()
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
