"""persistence-postgres against baselines measured in the same run, on the same server.

(a) a durable step of one call: the records a step with one call commits at its checkpoint
    (step/start, the assistant message, tool/call, tool/dispatch; ~0.9 KB) submitted to a
    writer and flushed, i.e. one fenced commit; vs one raw ``INSERT`` of the same bytes and its
    ``COMMIT`` through psycopg on one connection. Target ≤ 1.5.
(b) throughput of 1, 2 and 4 ``seamhost worker`` processes on runs whose tool bodies wait 50 ms
    (I/O-bound; 4 steps of one call each per run): runs per second, vs N × one worker's.
    Target ≥ 0.8 each. Measured from the first claim to the last finish (``runs.started`` and
    ``finished``, the database's clock); the rate over the wall time, process startup
    included, is printed for scale. Every worker claims runs until none is left (``--once``).

The server is the one the tests use (``SEAMHOST_TEST_POSTGRES_DSN``, 127.0.0.1:5432, or a
private cluster, see tests/persistence_postgres/server.py). Each part works in a schema of its
own, dropped at the end.

Run: ``python tests/bench/bench_postgres.py [--quick]``; it exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[2]))  # the repository: tests.persistence_postgres
import psycopg
from _measure import Row, report
from psycopg import sql
from seamhost_persistence_postgres.store import PostgresStore

from seamhost.session.record import Record
from seamhost.testing.persistence import make_header
from tests.persistence_postgres.rig import Rig
from tests.persistence_postgres.server import find_server

TIME = 1_700_000_000_000


@contextmanager
def schema(dsn: str) -> Iterator[str]:
    name = "seamhost_bench_" + secrets.token_hex(4)
    PostgresStore(dsn, schema=name).migrate()
    try:
        yield name
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))


def step_records(step: int, first: int) -> list[Record]:
    """The records a one-call step has when its checkpoint flushes (before the body)."""
    call = {"call_id": f"call-1-{step}-1", "name": "write_file", "arguments": "x" * 300}
    data = [
        ("step/start", {"turn": 1, "step": step}),
        (
            "assistant/message",
            {"turn": 1, "step": step, "content": "y" * 200, "tool_calls": [call]},
        ),
        ("tool/call", {"turn": 1, "step": step, **call, "descriptor_digest": "sha256:" + "0" * 64}),
        (
            "tool/dispatch",
            {
                "call_id": call["call_id"],
                "attempt": 1,
                "sandbox_mode": "workspace-write",
                "args_digest": "sha256:" + "1" * 64,
            },
        ),
    ]
    return [Record(first + i, t, TIME, plain=d) for i, (t, d) in enumerate(data)]


def durable_steps(dsn: str, rounds: int) -> tuple[float, float, int]:
    """(a): median ms of our fenced flush and of the raw INSERT + COMMIT, and the bytes."""
    with schema(dsn) as name:
        store = PostgresStore(dsn, schema=name, batch_window_ms=60_000)
        writer = store.create(make_header("bench"))
        seq = 0
        steps = []
        for step in range(rounds + 1):
            records = step_records(step + 1, seq)
            seq += len(records)
            steps.append(records)
        for record in steps[0]:  # the first flush inserts the session row: not measured
            writer.submit(record)
        asyncio.run(writer.flush())
        raw = psycopg.connect(dsn, autocommit=False)
        raw.execute(
            sql.SQL("CREATE TABLE {}.raw (id bigserial PRIMARY KEY, body bytea)").format(
                sql.Identifier(name)
            )
        )
        raw.commit()
        insert = sql.SQL("INSERT INTO {}.raw (body) VALUES (%s)").format(sql.Identifier(name))
        ours: list[float] = []
        theirs: list[float] = []

        async def interleaved() -> int:
            # One event loop for the whole run, as a session has: starting a loop per flush
            # (asyncio.run) would cost more than the flush's own overhead.
            size = 0
            for records in steps[1:]:
                body = b"\n".join(r.envelope() for r in records)
                size = len(body)
                start = time.perf_counter()
                for record in records:
                    writer.submit(record)
                await writer.flush()
                ours.append(time.perf_counter() - start)
                start = time.perf_counter()
                raw.execute(insert, (body,))
                raw.commit()
                theirs.append(time.perf_counter() - start)
            return size

        size = asyncio.run(interleaved())
        writer.close()
        raw.close()
        store.close()
    return statistics.median(ours) * 1000, statistics.median(theirs) * 1000, size


def throughput(dsn: str, workers: int, runs_per_worker: int, base: Path) -> tuple[float, float]:
    """(b): runs per second of `workers` worker processes draining a queue, from the first
    claim to the last finish (the database's clock), and over the wall time with startup."""
    with schema(dsn) as name:
        rig = Rig.make(base / f"rig-{workers}", dsn, name, lease_s=30)
        scenario = rig.scenario("io.json", [[{"ms": 50}] * 4]).read_bytes()
        store = PostgresStore(dsn, schema=name)
        total = workers * runs_per_worker
        for n in range(total):
            store.runs.submit(f"io-{n:03d}", scenario=scenario, scenario_name="io.json")
        start = time.perf_counter()
        procs = [rig.worker("--once", log=f"w{i}.log") for i in range(workers)]
        for proc in procs:
            proc.wait(timeout=600)
        wall = time.perf_counter() - start
        runs = store.runs.all()
        store.close()
        assert [run.state for run in runs] == ["completed"] * total, runs
        first = min(run.started for run in runs if run.started is not None)
        last = max(run.finished for run in runs if run.finished is not None)
    return total / (last - first).total_seconds(), total / wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and runs")
    args = parser.parse_args()
    server, tried = find_server()
    if server is None:
        print("no PostgreSQL server: " + "; ".join(tried))
        return 1
    try:
        rounds = 200 if args.quick else 1000
        per_worker = 6 if args.quick else 12
        ours_ms, raw_ms, size = durable_steps(server.dsn, rounds)
        with tempfile.TemporaryDirectory(prefix="bench-postgres-") as tmp:
            measured = {n: throughput(server.dsn, n, per_worker, Path(tmp)) for n in (1, 2, 4)}
        rates = {n: steady for n, (steady, _) in measured.items()}
    finally:
        server.stop()
    rows = [
        Row(
            f"(a) durable step, 1 call ({size} B) (ms)",
            ours_ms,
            raw_ms,
            "",
            "≤ 1.5",
            ours_ms <= 1.5 * raw_ms,
        )
    ]
    for n in (2, 4):
        rows.append(
            Row(
                f"(b) {n} workers, 50 ms bodies (runs/s)",
                rates[n],
                n * rates[1],
                "",
                "≥ 0.8",
                rates[n] >= 0.8 * n * rates[1],
            )
        )
    print(f"one worker: {rates[1]:.2f} runs/s ({per_worker} runs of 4 steps of 50 ms each)")
    for n, (steady, walled) in measured.items():
        print(f"{n} worker(s): {steady:.2f} runs/s claim to finish, {walled:.2f} with startup")
    return report("persistence-postgres vs raw psycopg and vs N × one worker", rows)


if __name__ == "__main__":
    sys.exit(main())
