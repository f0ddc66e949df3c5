"""The write path: lazy publication, the write-behind window, flushes, failed writes, close."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from seamhost_persistence_jsonl import durable, logfile
from seamhost_persistence_jsonl.errors import MixedEncoding
from seamhost_persistence_jsonl.format import LogEncoder
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.session.live import Session
from seamhost.store import SessionExists, WriteFailed, WriterClosed
from seamhost.testing.persistence import append_all, make_header, sample_events
from tests.persistence_jsonl.conftest import flush, frame_spans, write_session


def stored_seqs(store: JsonlStore, session_id: str = "s-1") -> list[int]:
    try:
        return [r.seq for r in store.read(session_id).records()]
    except LookupError:
        return []


def wait_until(predicate: object, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.005)
    return False


def test_creating_a_session_writes_nothing(root: Path) -> None:
    store = JsonlStore(root, batch_window_ms=60_000)
    session = Session(store.create(make_header("s-1")))
    session.append_data("turn/start", {"turn": 1})
    assert not root.exists()
    assert list(store.ids()) == []
    with pytest.raises(LookupError, match="no session 's-1'"):
        store.read("s-1")
    session.writer.close()
    assert stored_seqs(store) == [0]  # close wrote what was queued


def test_closing_an_empty_session_leaves_nothing(root: Path) -> None:
    JsonlStore(root).create(make_header("s-1")).close()
    assert not root.exists()


def test_an_explicit_flush_publishes_a_header_only_log(store: JsonlStore, root: Path) -> None:
    writer = store.create(make_header("s-1"))
    asyncio.run(writer.flush())
    writer.close()
    assert store.read("s-1").header == make_header("s-1")
    assert stored_seqs(store) == []
    assert sorted(os.listdir(root / "s-1")) == [
        "session.lock",
        "session.mark",
        "session.v2.jsonl.zst",
    ]


def test_publishing_never_replaces_a_log(store: JsonlStore, root: Path, tmp_path: Path) -> None:
    writer = store.create(make_header("s-1"))
    session = Session(writer)
    append_all(session, sample_events())
    # Another writer (here: a log copied in place) publishes the same id first.
    other, _ = write_session(JsonlStore(tmp_path / "elsewhere"), "s-1", batches=2)
    (root / "s-1").mkdir(parents=True)
    target = root / "s-1" / other.name
    target.write_bytes(other.read_bytes())
    with pytest.raises(SessionExists, match="already exists"):
        flush(session)
    assert target.read_bytes() == other.read_bytes()
    assert writer.status().pending == len(sample_events())
    assert [p for p in os.listdir(root / "s-1") if p.endswith(".tmp")] == []
    with pytest.raises(SessionExists):
        session.close()


def test_the_window_writes_without_a_flush(root: Path) -> None:
    store = JsonlStore(root, batch_window_ms=100)
    session = Session(store.create(make_header("s-1")))
    session.append_data("turn/start", {"turn": 1})
    assert wait_until(lambda: stored_seqs(store) == [0])
    session.close()


def test_the_window_is_not_reset_by_later_records(root: Path) -> None:
    store = JsonlStore(root, batch_window_ms=200)
    session = Session(store.create(make_header("s-1")))
    written_while_appending = False
    for step in range(25):  # ~1 s of records every 40 ms: each would reset a resetting window
        session.append_data("step/start", {"turn": 1, "step": step})
        written_while_appending = written_while_appending or bool(stored_seqs(store))
        time.sleep(0.04)
    assert written_while_appending
    session.close()
    assert stored_seqs(store) == list(range(25))
    assert len(frame_spans(Path(store.stat("s-1").location))) > 2


def test_a_flush_does_not_wait_for_the_window(root: Path) -> None:
    store = JsonlStore(root, batch_window_ms=600_000)
    session = Session(store.create(make_header("s-1")))
    append_all(session, sample_events())
    asyncio.run(asyncio.wait_for(session.writer.flush(), timeout=60))
    assert stored_seqs(store) == list(range(len(sample_events())))
    session.close()


def test_a_flush_leaves_the_event_loop_running(store: JsonlStore) -> None:
    session = Session(store.create(make_header("s-1")))
    for index in range(400):
        session.append_data(
            "vendor/blob", {"i": index, "pad": os.urandom(20_000).hex()}, ignorable=True
        )
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            ticks += 1

    async def main() -> None:
        task = asyncio.create_task(ticker())
        await session.writer.flush()
        task.cancel()

    asyncio.run(main())
    session.close()
    assert ticks > 0  # the loop ran other work while 16 MB were compressed, written and synced
    assert len(stored_seqs(store)) == 400


def test_a_cancelled_flush_does_not_lose_records(store: JsonlStore) -> None:
    session = Session(store.create(make_header("s-1")))
    append_all(session, sample_events())

    async def main() -> None:
        task = asyncio.create_task(session.writer.flush())
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await session.writer.flush()

    asyncio.run(main())
    session.close()
    assert stored_seqs(store) == list(range(len(sample_events())))


def test_even_a_small_flush_leaves_the_event_loop_running_while_it_syncs(
    store: JsonlStore,
) -> None:
    session = Session(store.create(make_header("s-1")))
    append_all(session, sample_events())
    flush(session)  # publishing first: what follows is a plain append and sync
    session.append_data("turn/start", {"turn": 2})
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            ticks += 1

    async def main() -> None:
        task = asyncio.create_task(ticker())
        await asyncio.sleep(0)  # the ticker is running
        before = ticks
        await session.writer.flush()
        task.cancel()
        # The flush waited on the writing thread: the loop went on ticking meanwhile.
        assert ticks > before

    asyncio.run(main())
    assert stored_seqs(store) == list(range(len(sample_events()) + 1))
    session.close()


def test_a_closed_writer_refuses_work(store: JsonlStore) -> None:
    writer = store.create(make_header("s-1"))
    writer.close()
    writer.close()  # closing twice is harmless
    with pytest.raises(WriterClosed, match="open the session again"):
        Session(writer).append_data("turn/start", {"turn": 1})
    with pytest.raises(WriterClosed):
        asyncio.run(writer.flush())


def test_status_follows_the_batches(root: Path) -> None:
    store = JsonlStore(root, batch_window_ms=600_000)
    writer = store.create(make_header("s-1"))
    session = Session(writer)
    assert (writer.status().published, writer.status().pending) == (False, 0)
    append_all(session, sample_events())
    assert writer.status().pending == len(sample_events())
    flush(session)
    status = writer.status()
    assert (status.published, status.pending, status.durable) == (True, 0, len(sample_events()))
    session.close()


# A child process under RLIMIT_FSIZE: writes past the limit fail with EFBIG, as on a full disk.
FAILING_WRITES = """
import asyncio, json, os, resource, signal, sys, time
from seamhost.session.live import Session
from seamhost.testing.persistence import make_header
from seamhost.store import WriteFailed
from seamhost_persistence_jsonl.store import JsonlStore
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
root, first_write_fails = sys.argv[1], sys.argv[2] == "publish"
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
store = JsonlStore(root, batch_window_ms=50)
writer = store.create(make_header("s-1"))
session = Session(writer)
report = {}
def blob(n):
    for _ in range(n):
        session.append_data("vendor/blob", {"pad": os.urandom(3000).hex()}, ignorable=True)
def flush():
    try:
        asyncio.run(writer.flush())
        return None
    except WriteFailed as exc:
        return exc.operation
if not first_write_fails:
    blob(2)
    report["first"] = flush()
log = store.root / "s-1" / "session.v2.jsonl.zst"
size = log.stat().st_size if log.exists() else 0
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 4096, hard))
blob(20)
report["failed"] = flush()
report["size_kept"] = (log.stat().st_size if log.exists() else 0) == size
report["pending"] = writer.status().pending
report["leftovers"] = sorted(os.listdir(store.root / "s-1"))
blob(1)  # a new event: one background retry after its window, which fails again
time.sleep(0.5)
report["after_event"] = writer.status().failed_attempts
time.sleep(0.5)  # no timer retries while nothing new arrives
report["later"] = writer.status().failed_attempts
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
report["retried"] = flush()
session.close()
report["stored"] = [r.seq for r in store.read("s-1").records()]
report["expected"] = list(range(session.next_seq))
print(json.dumps(report))
"""


@pytest.mark.parametrize("which", ["append", "publish"])
def test_a_failed_write_is_cut_back_and_kept_pending(tmp_path: Path, which: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", FAILING_WRITES, str(tmp_path / "root"), which],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["failed"] == ("write" if which == "append" else "publish")
    assert report["size_kept"], "the log was not truncated back to its last complete frame"
    assert report["pending"] == 20
    if which == "publish":
        assert report["leftovers"] == ["session.lock"]  # no temp file, no log
    assert report["after_event"] == 2
    assert report["later"] == 2
    assert report["retried"] is None
    assert report["stored"] == report["expected"]


def test_one_root_holds_one_encoding(root: Path) -> None:
    write_session(JsonlStore(root), "framed")
    plain = JsonlStore(root, compression="none")
    with pytest.raises(MixedEncoding, match='set compression = "zstd"'):
        plain.create(make_header("plain"))
    with pytest.raises(MixedEncoding):
        plain.open("framed")
    assert [r.seq for r in plain.read("framed").records()][:2] == [0, 1]  # reading is fine


def test_full_frames_are_packed_ahead_and_written_as_the_batch_would_cut_them(
    root: Path,
) -> None:
    store = JsonlStore(root, batch_window_ms=600_000)
    session = Session(store.create(make_header("s-1")))
    for index in range(70):  # about 2.8 MB of JSON: two full frames and a partial one
        session.append_data(
            "vendor/blob", {"i": index, "pad": os.urandom(20_000).hex()}, ignorable=True
        )
    # The window is still open, yet the writing thread has compressed both full frames.
    assert wait_until(lambda: session.writer.status().packed == 2)  # type: ignore[attr-defined]
    flush(session)
    assert session.writer.status().packed == 0  # type: ignore[attr-defined]
    session.close()
    log = Path(store.stat("s-1").location)
    spans = frame_spans(log)
    assert [span.count for span in spans[1:]] == [27, 27, 16]
    # Byte for byte what one batch of the same lines encodes to: packing changes no cut.
    lines = [record.envelope() for record in session.records]
    after = log.read_bytes()[spans[0].offset + 32 : spans[0].offset + 64]  # the header frame's
    assert log.read_bytes()[spans[1].offset :] == LogEncoder("zstd").batch(lines, 0, after)
    assert stored_seqs(store) == list(range(70))


def test_an_appender_that_outruns_the_packer_does_not_hold_the_window_open(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A packer slower than the appender always finds another full frame queued; the window
    # must close all the same (it once never did: packing ahead starved every write).
    real = LogEncoder.frames

    def slow(  # noqa: PLR0917 (LogEncoder.frames' signature)
        self: LogEncoder,
        lines: list[bytes],
        first: int,
        cuts: list[int],
        prev: bytes = b"",
        threads: int = 0,
    ) -> list[bytes]:
        time.sleep(0.05)
        return real(self, lines, first, cuts, prev, threads=threads)

    monkeypatch.setattr(LogEncoder, "frames", slow)
    store = JsonlStore(root, batch_window_ms=50)
    session = Session(store.create(make_header("s-1")))
    pad = os.urandom(20_000).hex()
    written_while_appending = False
    deadline = time.monotonic() + 1.0
    index = 0
    while time.monotonic() < deadline and not written_while_appending:
        for _ in range(30):  # more than a full frame every round
            session.append_data("vendor/blob", {"i": index, "pad": pad}, ignorable=True)
            index += 1
        time.sleep(0.005)
        written_while_appending = bool(stored_seqs(store))
    assert written_while_appending
    session.close()
    assert stored_seqs(store) == list(range(index))


def test_the_packer_compresses_every_full_frame_queued_in_one_job(root: Path) -> None:
    # One job, one GIL wait, however many frames the appender queued meanwhile; the frames are
    # those one batch of the same lines encodes to.
    encoder = LogEncoder("zstd")
    lines = [b'{"seq":%d,"pad":"%s"}' % (i, os.urandom(20_000).hex().encode()) for i in range(70)]
    assert b"".join(encoder.frames(lines, 0, [27, 54, 70])) == encoder.batch(lines, 0)
    assert encoder.frames(lines[:27], 0, [27]) == [encoder.frame(lines[:27], 0)]
    # On every core (a write a flush waits for), the frames are the same bytes.
    assert encoder.frames(lines, 0, [27, 54, 70], threads=-1) == encoder.frames(
        lines, 0, [27, 54, 70]
    )


def test_a_write_of_pieces_continues_short_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The writer hands a batch's frames to pwritev as pieces; a short write (a signal, a full
    # pipe) is continued from where it stopped, across and inside pieces.
    from seamhost_persistence_jsonl import durable

    real = os.pwritev
    calls = []

    def short(fd: int, buffers: list[memoryview], offset: int) -> int:
        calls.append(len(buffers))
        prefix = b"".join(bytes(b) for b in buffers)[:3]  # a short write: a prefix of it all
        return real(fd, [prefix], offset)

    real_pwrite = os.pwrite

    def short_pwrite(fd: int, data: bytes, offset: int) -> int:  # one piece goes to pwrite
        calls.append(1)
        return real_pwrite(fd, data[:3], offset)

    monkeypatch.setattr(os, "pwritev", short)
    monkeypatch.setattr(os, "pwrite", short_pwrite)
    path = tmp_path / "f"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    pieces = [b"alpha", b"", b"beta", b"gamma-delta"]
    durable.write_at(fd, pieces, 2)
    durable.write_at(fd, [b"one-piece"], 2 + 20)
    os.close(fd)
    assert path.read_bytes() == b"\0\0" + b"".join(pieces) + b"one-piece"
    assert len(calls) > 5


def test_a_window_opened_after_flushes_in_place_is_still_written(root: Path) -> None:
    # Flushes on an idle loop write in the caller's thread while the writing thread waits to be
    # rung; a window opened afterwards must still reach the disk without a flush.
    store = JsonlStore(root, batch_window_ms=50)
    session = Session(store.create(make_header("s-1")))
    for step in range(5):
        session.append_data("step/start", {"turn": 1, "step": step})
        flush(session)
    time.sleep(0.7)  # long enough for the thread's idle polls to run out
    session.append_data("step/start", {"turn": 1, "step": 5})
    assert wait_until(lambda: stored_seqs(store) == list(range(6)), timeout=5)
    session.close()


def published(root: Path) -> tuple[JsonlStore, Session, Path]:
    """A session whose log holds the sample events, flushed (no window closes on its own)."""
    store = JsonlStore(root, batch_window_ms=60_000)
    session = Session(store.create(make_header("s-1")))
    append_all(session, sample_events())
    flush(session)
    return store, session, root / "s-1" / "session.v2.jsonl.zst"


def test_a_small_flush_in_place_is_one_frame_durable_before_it_returns(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An idle loop's small flush takes the lean path (one frame, no Batch): its frame is the one
    # the batch encoder makes, and it is written and synced before the flush returns.
    store, session, log = published(root)
    before = log.read_bytes()
    last = frame_spans(log)[-1].offset  # the chain goes on from the last frame before
    events: list[str] = []

    def write_at(fd: int, data: bytes | Sequence[bytes], offset: int) -> None:
        events.append("write")
        durable.write_at(fd, data, offset)

    def sync_data(fd: int) -> None:
        durable.sync_data(fd)
        events.append("sync")

    monkeypatch.setattr(logfile, "write_at", write_at)
    monkeypatch.setattr(logfile, "sync_data", sync_data)
    monkeypatch.setattr(LogEncoder, "batch_pieces", None)  # the generic path would fail
    records = [session.append_data("step/start", {"turn": 1, "step": n}) for n in range(3)]
    flush(session)
    assert events == ["write", "sync"]
    prev = before[last + 32 : last + 64]
    frame = LogEncoder("zstd").frame([r.envelope() for r in records], records[0].seq, prev)
    assert log.read_bytes() == before + frame
    assert session.writer.status().pending == 0  # type: ignore[attr-defined]
    session.close()
    assert stored_seqs(store) == list(range(len(sample_events()) + 3))


def test_a_failed_small_flush_in_place_is_reported_cut_back_and_kept_pending(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, session, log = published(root)
    size = log.stat().st_size
    failures = [OSError(errno.EIO, "I/O error")]

    def failing_sync(fd: int) -> None:
        if failures:
            raise failures.pop()
        durable.sync_data(fd)

    monkeypatch.setattr(logfile, "sync_data", failing_sync)
    for n in range(3):
        session.append_data("step/start", {"turn": 1, "step": n})
    with pytest.raises(WriteFailed) as caught:
        flush(session)
    assert (caught.value.operation, caught.value.pending) == ("sync", 3)
    assert log.stat().st_size == size  # cut back to the last complete frame
    status = session.writer.status()  # type: ignore[attr-defined]
    assert (status.pending, status.failed_attempts) == (3, 1)
    assert status.last_error is caught.value
    flush(session)  # the next flush retries them
    assert session.writer.status().pending == 0  # type: ignore[attr-defined]
    session.close()
    assert stored_seqs(store) == list(range(len(sample_events()) + 3))
