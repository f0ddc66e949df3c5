"""persistence-jsonl against raw baselines measured in the same run, on the same events.

(a) sustained append throughput through ``Session.append_data`` (the lossless check, the schema,
    seq and time, the envelope), handed to the writer, the window writing and syncing behind,
    until a final flush returns; vs a loop that serialises the same events with orjson,
    compresses them with zstd at the same level and writes them without fsync. Target ≥ 0.6.
    The same through the writer alone (records made without the session's checks): target ≥ 0.5.
(b) flush latency of one small batch (3 events) vs a raw write + fdatasync of the same bytes in
    the calling thread, the two taken in turn, flush by flush (the order swapped every round):
    a sync on this machine takes 120 to 190 µs from one run of 300 to the next, and pairing
    lets that drift hit both alike. Target ≤ 1.3. The flush syncs in the writing thread: the
    turns a ticker task got on the event loop during each flush are counted, to show that the
    loop stays free (target: at least one per flush). Printed for scale: the same write awaited
    through ``asyncio.to_thread``.
(c) a full read of a session holding 100 MB of JSON (20 MB with --quick) vs zstd decompression
    and orjson parsing of the same records. Target ≥ 0.75.
(d) peak traced memory of that read, in a child process that keeps no record, vs the largest
    frame's content. Target ≤ 2.
(e) replay of a 10k-step session (2k with --quick), one small frame per step as a checkpoint
    per step writes it, vs zstd decompression and orjson parsing of the same frames. Target ≤ 3.

Run: ``python tests/bench/bench_persistence.py [--quick]``; it exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import orjson
import zstandard
from _measure import Row, report
from seamhost_persistence_jsonl.durable import sync_data
from seamhost_persistence_jsonl.format import DEFAULT_LEVEL, LogEncoder
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost import jsonvalue
from seamhost.session.live import Session
from seamhost.session.record import Record
from seamhost.testing.persistence import make_header

Event = tuple[str, dict[str, Any]]
TIME = 1_700_000_000_000


def make_events(total_bytes: int, seed: int = 7) -> list[Event]:
    """A conversation-like mix of prose and code-like tool output (zstd level 3 packs it ~3×)."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocabulary = [
        "".join(rng.choice(letters) for _ in range(rng.randint(2, 10))) for _ in range(5000)
    ]

    def prose(words: int) -> str:
        return " ".join(rng.choice(vocabulary) for _ in range(words))

    def code(lines: int) -> str:
        return "".join(
            f"{'    ' * rng.randint(0, 3)}{rng.choice(vocabulary)} = {prose(rng.randint(1, 8))}\n"
            for _ in range(lines)
        )

    events: list[Event] = []
    size = 0
    step = 0
    while size < total_bytes:
        step += 1
        call = {
            "call_id": f"call-{step}",
            "name": "read_file",
            "arguments": orjson.dumps({"path": f"src/{rng.choice(vocabulary)}.py"}).decode(),
        }
        batch: list[Event] = [
            ("step/start", {"turn": 1, "step": step}),
            (
                "assistant/message",
                {
                    "turn": 1,
                    "step": step,
                    "content": prose(rng.randint(5, 80)),
                    "tool_calls": [call],
                },
            ),
            ("tool/call", {"turn": 1, "step": step, **call}),
            (
                "tool/result",
                {
                    "turn": 1,
                    "step": step,
                    "call_id": call["call_id"],
                    "is_error": False,
                    "content": code(rng.randint(2, 60)),
                },
            ),
            ("step/end", {"turn": 1, "step": step}),
        ]
        events.extend(batch)
        size += sum(len(orjson.dumps(data)) + 50 for _, data in batch)
    return events


def records_of(events: list[Event], first: int = 0) -> list[Record]:
    return [Record(first + i, t, TIME, plain=d) for i, (t, d) in enumerate(events)]


# -- (a) sustained appends ----------------------------------------------------------------


def append_ours(root: Path, events: list[Event], name: str) -> float:
    """Each event serialised and committed as a record the way Session.append_data does it
    (without its validation), handed to the writer; timed until the final flush returns."""
    store = JsonlStore(root, batch_window_ms=200)
    writer = store.create(make_header(name))
    start = time.perf_counter()
    for index, (type_, data) in enumerate(events):
        writer.submit(Record(index, type_, TIME, data_json=jsonvalue.dumps(data)))
    asyncio.run(writer.flush())
    elapsed = time.perf_counter() - start
    writer.close()
    return len(events) / elapsed


def append_session(root: Path, events: list[Event], name: str) -> float:
    """The same through Session.append_data (lossless check, schema, seq and time): for scale."""
    store = JsonlStore(root, batch_window_ms=200)
    session = Session(store.create(make_header(name)))
    start = time.perf_counter()
    for type_, data in events:
        session.append_data(type_, data)
    asyncio.run(session.writer.flush())
    elapsed = time.perf_counter() - start
    session.close()
    return len(events) / elapsed


def append_raw(path: Path, events: list[Event]) -> float:
    compressor = zstandard.ZstdCompressor(level=DEFAULT_LEVEL)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    start = time.perf_counter()
    lines: list[bytes] = []
    size = 0
    for index, (type_, data) in enumerate(events):
        line = orjson.dumps({"seq": index, "type": type_, "time": TIME, "data": data})
        lines.append(line)
        size += len(line) + 1
        if size >= 1 << 20:
            os.write(fd, compressor.compress(b"\n".join(lines) + b"\n"))
            lines, size = [], 0
    if lines:
        os.write(fd, compressor.compress(b"\n".join(lines) + b"\n"))
    elapsed = time.perf_counter() - start
    os.close(fd)
    return len(events) / elapsed


# -- (b) flush latency --------------------------------------------------------------------


def flush_turns(root: Path, events: list[Event], rounds: int) -> float:
    """The median turns a ticker task running on the loop got during each flush."""
    store = JsonlStore(root, batch_window_ms=60_000)
    writer = store.create(make_header("flush"))
    turns = []
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            ticks += 1

    async def run() -> None:
        await writer.flush()  # publish first: appends are what is measured
        seq = 0
        task = asyncio.create_task(ticker())
        for _ in range(rounds):
            for type_, data in events:
                writer.submit(Record(seq, type_, TIME, plain=data))
                seq += 1
            before = ticks
            await writer.flush()
            turns.append(ticks - before)
        task.cancel()

    asyncio.run(run())
    writer.close()
    return statistics.median(turns)


def flush_paired(root: Path, events: list[Event], rounds: int) -> tuple[float, float]:
    """Median ms per flush of ours and of the raw write + fdatasync of the same bytes, taken
    in turn, flush by flush, each round swapping which goes first (the order then cancels)."""
    root.mkdir(parents=True, exist_ok=True)
    store = JsonlStore(root / "store", batch_window_ms=60_000)
    writer = store.create(make_header("flush"))
    fd = os.open(root / "raw.bin", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    raw_data = batches(events, rounds)
    ours: list[float] = []
    raw: list[float] = []

    def raw_flush(data: bytes) -> None:
        start = time.perf_counter()
        os.write(fd, data)
        sync_data(fd)
        raw.append(time.perf_counter() - start)

    async def run() -> None:
        await writer.flush()  # publish first: appends are what is measured
        seq = 0
        for n in range(rounds):
            for type_, data in events:
                writer.submit(Record(seq, type_, TIME, plain=data))
                seq += 1
            if n % 2:
                raw_flush(raw_data[n])
            start = time.perf_counter()
            await writer.flush()
            ours.append(time.perf_counter() - start)
            if not n % 2:
                raw_flush(raw_data[n])

    try:
        asyncio.run(run())
    finally:
        writer.close()
        os.close(fd)
    return statistics.median(ours) * 1000, statistics.median(raw) * 1000


def batches(events: list[Event], rounds: int) -> list[bytes]:
    """The bytes the writer appends for `rounds` batches of `events`, one after the other."""
    encoder = LogEncoder("zstd")
    return [
        encoder.batch([r.envelope() for r in records_of(events, n * len(events))], n * len(events))
        for n in range(rounds)
    ]


def flush_to_thread(path: Path, events: list[Event], rounds: int) -> float:
    """The same write + sync awaited through asyncio.to_thread: the price of leaving the loop."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    samples = []

    def write(data: bytes) -> None:
        os.write(fd, data)
        sync_data(fd)

    async def run() -> None:
        for data in batches(events, rounds):
            start = time.perf_counter()
            await asyncio.to_thread(write, data)
            samples.append(time.perf_counter() - start)

    asyncio.run(run())
    os.close(fd)
    return statistics.median(samples) * 1000


# -- (c) full reads and (d) their memory ---------------------------------------------------


def write_big(root: Path, events: list[Event]) -> JsonlStore:
    store = JsonlStore(root, batch_window_ms=200)
    writer = store.create(make_header("big"))
    for index, (type_, data) in enumerate(events):
        writer.submit(Record(index, type_, TIME, plain=data))
    asyncio.run(writer.flush())
    writer.close()
    return store


def read_ours(store: JsonlStore, name: str = "big") -> float:
    start = time.perf_counter()
    count = sum(1 for _ in store.read(name).records())
    elapsed = time.perf_counter() - start
    assert count > 0
    return elapsed


def read_raw(frames: list[bytes]) -> float:
    decompressor = zstandard.ZstdDecompressor()
    loads = orjson.loads
    start = time.perf_counter()
    count = 0
    for frame in frames:
        for line in decompressor.decompress(frame).splitlines():
            loads(line)
            count += 1
    elapsed = time.perf_counter() - start
    assert count > 0
    return elapsed


def payloads(path: Path) -> list[bytes]:
    """The zstd frames of a log's records, without the frame headers."""
    from seamhost_persistence_jsonl.format import FRAME_HEADER_SIZE, FRAME_INFO

    data = path.read_bytes()
    out = []
    offset = 0
    while offset < len(data):
        length = FRAME_INFO.unpack_from(data, offset + 8)[2]  # kind, flags, length, ...
        out.append(data[offset + FRAME_HEADER_SIZE : offset + FRAME_HEADER_SIZE + length])
        offset += FRAME_HEADER_SIZE + length
    return out[1:]


def write_steps(root: Path, events: list[Event], steps: int) -> JsonlStore:
    """A session of `steps` steps, one frame each, as a checkpoint per step writes it: the first
    step through the writer (publishing the log), the rest encoded the same way and appended
    (the bytes a flush per step would write, without waiting for thousands of fsyncs)."""
    per_step = 5  # make_events' steps: step/start, assistant, tool/call, tool/result, step/end
    store = JsonlStore(root, batch_window_ms=200)
    writer = store.create(make_header("steps"))
    for index, (type_, data) in enumerate(events[:per_step]):
        writer.submit(Record(index, type_, TIME, plain=data))
    asyncio.run(writer.flush())
    writer.close()
    encoder = LogEncoder("zstd")
    location = Path(store.stat("steps").location)
    prev = last_chain(location.read_bytes())  # each frame is chained after the one before
    with open(location, "ab") as log:
        for step in range(1, steps):
            first = step * per_step
            batch = records_of(events[first : first + per_step], first)
            frame = encoder.batch([r.envelope() for r in batch], first, prev)  # one frame
            prev = encoder.chain_of(frame)
            log.write(frame)
    return store


def last_chain(data: bytes) -> bytes:
    """The chain digest of the last frame of the framed log `data`."""
    from seamhost_persistence_jsonl.format import CHAIN_AT, FRAME_INFO, FRAME_PREFIX, MAC_AT

    offset = last = 0
    while offset < len(data):
        size = FRAME_PREFIX.unpack_from(data, offset)[1]
        last, offset = offset, offset + FRAME_PREFIX.size + size
        offset += FRAME_INFO.unpack_from(data, last + 8)[2]
    return data[last + CHAIN_AT : last + MAC_AT]


MEMORY_PROBE = """
import json, sys, tracemalloc
from seamhost_persistence_jsonl.store import JsonlStore
store = JsonlStore(sys.argv[1])
reader = store.read("big")
tracemalloc.start()
count = 0
for record in reader.records():
    count += 1
print(json.dumps({"peak": tracemalloc.get_traced_memory()[1], "count": count}))
"""


def read_peak(root: Path) -> int:
    out = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(root)], capture_output=True, text=True, check=True
    )
    return int(json.loads(out.stdout)["peak"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer rounds")
    args = parser.parse_args()
    read_mb = 20 if args.quick else 100
    steps = 2_000 if args.quick else 10_000
    append_mb = 16 if args.quick else 64
    rounds = 60 if args.quick else 300
    repeat = 3 if args.quick else 5

    with tempfile.TemporaryDirectory(
        prefix="bench-persistence-", dir=os.environ.get("BENCH_DIR")
    ) as tmp:
        base = Path(tmp)
        # (b) first, while the process holds no big event lists for the collector to walk.
        small = make_events(1)[:3]
        flush_times = [flush_paired(base / f"f{run}", small, rounds) for run in range(repeat)]
        turns = flush_turns(base / "fl", small, rounds)
        to_thread = flush_to_thread(base / "ft", small, rounds)
        events = make_events(append_mb << 20)
        ours, raw, via_session = [], [], []
        for run in range(repeat):  # interleaved, so that noise hits all alike
            via_session.append(append_session(base / f"s{run}", events, "session"))
            raw.append(append_raw(base / f"raw{run}", events))
            ours.append(append_ours(base / f"a{run}", events, "append"))

        big_events = make_events(read_mb << 20)
        store = write_big(base / "big", big_events)
        log = Path(store.stat("big").location)
        frames = payloads(log)
        content = sum(len(zstandard.ZstdDecompressor().decompress(f)) for f in frames)
        largest = max(len(zstandard.ZstdDecompressor().decompress(f)) for f in frames)
        read_times = [(read_ours(store), read_raw(frames)) for _ in range(repeat)]
        peak = read_peak(base / "big")
        on_disk = log.stat().st_size
        big_count = len(big_events)
        del big_events
        step_events = make_events(steps * 3_000, seed=11)
        assert len(step_events) >= 5 * steps, "make_events made fewer steps than asked for"
        step_store = write_steps(base / "steps", step_events, steps)
        step_frames = payloads(Path(step_store.stat("steps").location))
        replay_times = [
            (read_ours(step_store, "steps"), read_raw(step_frames)) for _ in range(repeat)
        ]

    append_ratio_ours, append_ratio_raw = statistics.median(ours), statistics.median(raw)
    append_session_rate = statistics.median(via_session)
    flush_ours_ms = statistics.median(t[0] for t in flush_times)
    flush_raw_ms = statistics.median(t[1] for t in flush_times)
    replay_ours_s = statistics.median(t[0] for t in replay_times)
    replay_raw_s = statistics.median(t[1] for t in replay_times)
    read_ours_s = statistics.median(t[0] for t in read_times)
    read_raw_s = statistics.median(t[1] for t in read_times)
    mb = content / 1e6
    rows = [
        Row(
            "(a) appends via Session.append_data (kev/s)",
            append_session_rate / 1e3,
            append_ratio_raw / 1e3,
            "",
            "≥ 0.6",
            append_session_rate >= 0.6 * append_ratio_raw,
        ),
        Row(
            "(a) appends, writer alone (kevents/s)",
            append_ratio_ours / 1e3,
            append_ratio_raw / 1e3,
            "",
            "≥ 0.5",
            append_ratio_ours >= 0.5 * append_ratio_raw,
        ),
        Row(
            "(b) flush of 3 events (ms)",
            flush_ours_ms,
            flush_raw_ms,
            "",
            "≤ 1.3",
            flush_ours_ms <= 1.3 * flush_raw_ms,
        ),
        Row(
            f"(c) full read of {mb:.0f} MB JSON (MB/s)",
            mb / read_ours_s,
            mb / read_raw_s,
            "",
            "≥ 0.75",
            read_raw_s >= 0.75 * read_ours_s,
        ),
        Row(
            "(d) read peak memory vs largest frame (MiB)",
            peak / 2**20,
            largest / 2**20,
            "",
            "≤ 2",
            peak <= 2 * largest,
        ),
        Row(
            f"(e) replay of {steps // 1000}k steps, a frame each (ms)",
            replay_ours_s * 1e3,
            replay_raw_s * 1e3,
            "",
            "≤ 3",
            replay_ours_s <= 3 * replay_raw_s,
        ),
    ]
    status: int = report("persistence-jsonl vs raw baselines (same run, same events)", rows)
    loop_free = turns >= 1
    print(
        f"(b) event-loop turns a ticker task got during each flush (a run of its own):"
        f" median {turns:g} (target ≥ 1: the sync runs off the loop)"
        f" {'ok' if loop_free else 'MISSED'}"
    )
    status = status or (0 if loop_free else 1)
    appended = sum(len(orjson.dumps(d)) for _, d in events) / 1e6
    print(
        f"\nfor scale: {len(events)} events of {appended:.0f} MB in (a);"
        f" flush via asyncio.to_thread(write+sync) {to_thread:.3f} ms;"
        f" {len(step_frames)} frames in (e);"
        f" {big_count} events, {len(frames)} frames, {on_disk / 1e6:.1f} MB on disk in (c)"
    )
    return status


if __name__ == "__main__":
    sys.exit(main())
