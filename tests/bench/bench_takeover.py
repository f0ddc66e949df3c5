"""Takeover latency: SIGKILL of a run's owner -> the run's next body starts on another worker.

Two ``seamhost worker`` processes serve one queue (persistence-postgres, the tests' server). Each
trial submits a run of two steps of one ``mark`` call (tests/persistence_postgres/rig.py): the
first body holds (it waits on the rig's hold file, which stays), the second returns at once.
Once the first body has started, its worker (the owner, named by the pid in the body's marker)
is SIGKILLed; the latency is from the kill to the start of the second body (the creation time of
its marker), on the other worker, which must first see the run's claim lapse, wait out the
session's lease (a worker that finds the session held hands the run back for the lease's
remaining time), take the session over and continue the open turn: the killed body is reported
unknown, and the next step's request and body follow. A replacement worker is started after
each trial, so two workers serve every trial.

Target: the median over the trials (at least 10) ≤ ``lease_s`` + 2 s; the lease length is
printed with it. The floor is about two thirds of the lease (the owner renews its lease and its
claim every third of it), the rest is the poll (0.5 s), the takeover and one model step.

Run: ``python tests/bench/bench_takeover.py [--trials N] [--lease S]``; it exits 1 when the
target is missed.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[2]))  # the repository: tests.persistence_postgres
import psycopg
from _measure import Row, report
from psycopg import sql
from seamhost_persistence_postgres.store import PostgresStore

from tests.persistence_postgres.rig import Rig
from tests.persistence_postgres.server import find_server


def wait_for(path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path.name} never appeared")
        time.sleep(0.005)


def trials(dsn: str, schema: str, base: Path, count: int, lease_s: float) -> list[float]:
    """The takeover latency of each trial, in seconds."""
    rig = Rig.make(base / "rig", dsn, schema, lease_s=lease_s)
    scenario = rig.scenario("two.json", [[{"hold": True}, {}]]).read_bytes()
    rig.hold.touch()  # every first body holds until its worker is killed
    store = PostgresStore(dsn, schema=schema)
    workers = [rig.worker("--name", f"w{n}", log=f"w{n}.log") for n in range(2)]
    started = len(workers)
    latencies = []
    try:
        for trial in range(count):
            session = f"t-{trial:03d}"
            store.runs.submit(session, scenario=scenario, scenario_name="two.json")
            first = rig.markers / f"{session}:call-1-1-1.1"
            wait_for(first, 60)
            time.sleep(0.02)  # the marker's pid is written just after it is created
            owner_pid = int(first.read_text())
            (owner,) = [w for w in workers if w.pid == owner_pid]
            killed = time.time()
            owner.send_signal(signal.SIGKILL)
            owner.wait()
            second = rig.markers / f"{session}:call-1-2-1.1"
            wait_for(second, lease_s + 60)
            latencies.append(second.stat().st_mtime - killed)
            assert int(second.read_text() or 0) != owner_pid
            workers.remove(owner)
            workers.append(rig.worker("--name", f"w{started}", log=f"w{started}.log"))
            started += 1
        deadline = time.monotonic() + 60
        while any(run.state in ("queued", "running") for run in store.runs.all()):
            assert time.monotonic() < deadline, "the runs never ended"
            time.sleep(0.1)
        states = [run.state for run in store.runs.all()]
        assert states == ["completed"] * count, states
        assert rig.doubles() == []
    finally:
        for worker in workers:
            worker.kill()
            worker.wait()
        store.close()
    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10, help="at least 10")
    parser.add_argument("--lease", type=float, default=3.0, help="lease_s of the store (s)")
    args = parser.parse_args()
    server, tried = find_server()
    if server is None:
        print("no PostgreSQL server: " + "; ".join(tried))
        return 1
    name = "seamhost_bench_" + secrets.token_hex(4)
    try:
        PostgresStore(server.dsn, schema=name).migrate()
        with tempfile.TemporaryDirectory(prefix="bench-takeover-") as tmp:
            latencies = trials(server.dsn, name, Path(tmp), max(args.trials, 10), args.lease)
    finally:
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))
        server.stop()
    median = statistics.median(latencies)
    shown = ", ".join(f"{value:.2f}" for value in sorted(latencies))
    print(f"lease_s = {args.lease:g} s; takeover latencies (s), sorted: {shown}")
    print(f"median {median:.2f} s, max {max(latencies):.2f} s over {len(latencies)} trials")
    rows = [
        Row(
            f"takeover latency, median of {len(latencies)} (s)",
            median,
            args.lease,
            "",
            f"≤ lease + 2 s ({args.lease + 2:g} s)",
            median <= args.lease + 2,
        )
    ]
    return report("kill of the owner -> next body on another worker, vs the lease length", rows)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
