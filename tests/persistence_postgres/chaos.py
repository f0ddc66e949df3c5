"""The chaos matrix: worker processes under SIGKILL, SIGSTOP past the lease and dropped
connections, then the invariants of design.md §14 checked against the database and the markers.

Faults, chosen at random (seeded) every few tens of milliseconds, each at a worker that holds a
live session lease (so mid-run): SIGKILL it (a new worker replaces it), SIGSTOP it for 0.2 to
2.5 s (often past the 1 s lease, so another worker takes its runs over while it sleeps); or
``pg_terminate_backend`` on one of the workers' connections. Only the faults that hit something
count. When the faults are over, the surviving workers drain the queue. Then:

* no (call, attempt) was dispatched twice: no marker was created twice, and no session holds two
  ``tool/dispatch`` records of one (call, attempt);
* no committed record was lost: every body that ran (a marker) had its ``tool/dispatch`` record
  committed by the checkpoint before it started, and that record is in the log; every log reads
  back intact (contiguous seqs, checksums);
* no record was written by a fenced-out worker: no record of lease epoch e lies at or past the
  point where a later epoch took the session over (``leases.first_seq``);
* every run ended ``completed`` (a takeover continues the open turn: never ``interrupted``),
  with one turn per scripted turn and every scripted call's result, in order, each once: the
  steps after a crash ran;
* every call is classified honestly: a result ``ok`` has a marker, a ``TOOL_NOT_STARTED`` or
  ``CHECKPOINT_FAILED`` has none for that attempt, and no ``LEASE_LOST`` result was ever
  committed (the fenced writer writes nothing);
* the rig keeps a resume snapshot after every flush, so takeovers open from one: every kept
  snapshot matches a replay of its log (``seamhost session verify``'s check), and none was saved
  by a fenced-out writer (a snapshot of epoch e covers nothing past a later takeover's
  ``first_seq``).
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import attrs
import psycopg
from psycopg import sql
from seamhost_persistence_postgres.store import PostgresStore

from seamhost.cli.session.snapshots import snapshot_check
from tests.persistence_postgres.rig import Rig

APP = "seamhost-chaos"
FINAL = {"completed", "interrupted", "parked", "failed"}
TURNS, STEPS = 3, 2  # each run's scenario: turns of steps of one `mark` call
CALLS = [f"call-{t}-{s}-1" for t in range(1, TURNS + 1) for s in range(1, STEPS + 1)]


@attrs.define
class Chaos:
    rig: Rig
    seed: int
    workers: list[subprocess.Popen[bytes]] = attrs.Factory(list)
    stopped: dict[int, float] = attrs.Factory(dict)  # index -> when to SIGCONT
    faults: Counter[str] = attrs.Factory(Counter)
    started: int = 0

    def spawn(self, index: int | None = None) -> None:
        name = f"w{self.started}"
        worker = self.rig.worker("--concurrency", "2", "--name", name, log=f"{name}.log")
        self.started += 1
        if index is None:
            self.workers.append(worker)
        else:
            self.workers[index] = worker

    def busy(self, conn: psycopg.Connection[tuple[object, ...]]) -> list[int]:
        """The workers holding a live session lease (``host:pid:tag``): where a fault stops a
        run mid-way, and the run is taken over. A worker that only claimed its run (it is
        building its bundle, or will find the session held and hand the run back) is not one:
        killed then, its run is started or opened afresh by the next, and nothing is taken over.
        """
        query = sql.SQL(
            "SELECT lease_owner FROM {}.sessions WHERE lease_expires > clock_timestamp()"
        ).format(sql.Identifier(self.rig.schema))
        pids = {str(row[0]).split(":")[-2] for row in conn.execute(query) if row[0]}
        return [i for i, worker in enumerate(self.workers) if str(worker.pid) in pids]

    def inject(self, rng: random.Random, dsn: str) -> bool:
        """One fault; False when none could be made (no worker is driving a run, or no
        worker connection is open), so that only faults that hit something are counted."""
        now = time.monotonic()
        for index, until in list(self.stopped.items()):
            if now >= until:
                self.workers[index].send_signal(signal.SIGCONT)
                del self.stopped[index]
        kind = rng.choice(["kill", "stop", "drop", "drop"])
        # Only at a worker driving a run: a kill of a worker still starting up, or idle, or
        # that just claimed its run, tests nothing but the restart (picked at random, most
        # kills landed there: one seed made 142 kills and not one takeover).
        with psycopg.connect(dsn, autocommit=True) as conn:
            busy = [i for i in self.busy(conn) if kind == "kill" or i not in self.stopped]
        if kind != "drop" and not busy:
            return False
        index = rng.choice(busy) if busy else 0
        if kind == "kill":
            self.stopped.pop(index, None)
            self.workers[index].send_signal(signal.SIGKILL)
            self.workers[index].wait()
            self.spawn(index)
        elif kind == "stop":
            self.workers[index].send_signal(signal.SIGSTOP)
            self.stopped[index] = now + rng.uniform(0.2, 2.5)
        else:
            with psycopg.connect(dsn, autocommit=True) as conn:
                pids = [
                    row[0]
                    for row in conn.execute(
                        "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (APP,)
                    )
                ]
                if not pids:
                    return False
                conn.execute("SELECT pg_terminate_backend(%s)", (rng.choice(pids),))
        self.faults[kind] += 1
        return True

    def finish(self) -> None:
        for index in list(self.stopped):
            self.workers[index].send_signal(signal.SIGCONT)
        self.stopped.clear()

    def stop_all(self) -> None:
        for worker in self.workers:
            worker.send_signal(signal.SIGCONT)
            worker.send_signal(signal.SIGTERM)
        for worker in self.workers:
            try:
                worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()


def run_chaos(
    rig: Rig, dsn: str, *, runs: int, faults: int, seed: int, workers: int = 3
) -> dict[str, Any]:
    """Queue `runs` runs, inject `faults` faults into `workers` workers, drain, check.

    `dsn` is the harness's own (its connections are not among those the faults drop); the
    workers use the rig's, which names them with the application name `APP`.
    """
    rng = random.Random(seed)
    scenario = rig.scenario("chaos.json", [[{"ms": 30}, {"ms": 30}]] * TURNS).read_bytes()
    store = PostgresStore(dsn, schema=rig.schema)
    try:
        for n in range(runs):
            store.runs.submit(f"chaos-{n:03d}", scenario=scenario, scenario_name="chaos.json")
        chaos = Chaos(rig, seed)
        for _ in range(workers):
            chaos.spawn()
        try:
            while sum(chaos.faults.values()) < faults:
                time.sleep(rng.uniform(0.02, 0.08))
                if not chaos.inject(rng, dsn) and all(
                    run.state in FINAL for run in store.runs.all()
                ):
                    break  # nothing left to hit: the report says how many faults were made
            chaos.finish()
            deadline = time.monotonic() + 300
            while True:
                states = Counter(run.state for run in store.runs.all())
                if set(states) <= FINAL:
                    break
                assert time.monotonic() < deadline, f"runs never drained: {dict(states)}"
                time.sleep(0.2)
        finally:
            chaos.stop_all()
        problems = check(rig, store)
        snapshots = Counter(
            (snapshot_check(store, run.session_id) or {"status": "none"})["status"]
            for run in store.runs.all()
        )
        problems += [f"{n} snapshot(s) differ from their log" for n in [snapshots["differs"]] if n]
        runs_by_state = Counter(run.state for run in store.runs.all())
        # Every acquisition of a stored session's lease (epoch 2 on), an open turn or not.
        ((takeovers,),) = rig.rows("SELECT count(*) FROM {s}.leases")
        claims = sum(run.claims for run in store.runs.all())
    finally:
        store.close()
    return {
        "faults": dict(chaos.faults),
        "runs": dict(runs_by_state),
        "claims": claims,
        "takeovers": takeovers,
        "workers_started": chaos.started,
        "snapshots": dict(snapshots),
        "problems": problems,
    }


def check(rig: Rig, store: PostgresStore) -> list[str]:
    """Every violation of the invariants (see the module), as readable lines."""
    problems = [f"double dispatch: {name}" for name in rig.doubles()]
    markers = rig.marker_names()
    for run in store.runs.all():
        sid = run.session_id
        found = len(problems)
        if run.state != "completed":
            problems.append(f"run {run.id} ({sid}) ended {run.state}: {run.outcome}")
        if sid not in set(store.ids()):
            problems.append(f"run {run.id}: no session {sid}")
            continue
        verified = store.verify(sid)
        if not verified.intact:
            problems.append(f"{sid}: {verified.problem}")
            continue
        records = list(store.read(sid).records())
        dispatched = Counter(
            (r.data["call_id"], r.data["attempt"]) for r in records if r.type == "tool/dispatch"
        )
        problems += [f"{sid}: {key} dispatched {n} times" for key, n in dispatched.items() if n > 1]
        turns = sum(1 for r in records if r.type == "turn/start")
        answered = [r.data["call_id"] for r in records if r.type == "tool/result"]
        if turns != TURNS or answered != CALLS:
            problems.append(f"{sid}: {turns} turn(s), results of {answered}, not of {CALLS}")
        ran = {
            tuple(name.removeprefix(f"{sid}:").rsplit(".", 1))
            for name in markers
            if name.startswith(f"{sid}:")
        }
        for call_id, attempt in ran:
            if (call_id, int(attempt)) not in dispatched:
                problems.append(f"{sid}: {call_id} attempt {attempt} ran, its dispatch is lost")
        for record in records:
            if record.type != "tool/result":
                continue
            call_id = record.data["call_id"]
            code = (record.data.get("error") or {}).get("code", "ok")
            bodies = {attempt for c, attempt in ran if c == call_id}
            if code == "ok" and not bodies:
                problems.append(f"{sid}: {call_id} ok without its body having run")
            if code in ("TOOL_NOT_STARTED", "CHECKPOINT_FAILED", "LEASE_LOST") and bodies:
                problems.append(f"{sid}: {call_id} {code} but its body ran")
            if code == "LEASE_LOST":
                problems.append(f"{sid}: a fenced-out writer committed {call_id}'s result")
        problems += fence_violations(rig, sid)
        if len(problems) > found:
            problems.append(f"{sid}: its records are in {keep_records(rig, sid, records)}")
    return problems


def keep_records(rig: Rig, sid: str, records: list[Any]) -> Path:
    """Write a session's records beside the rig (its schema is dropped when the test ends), so a
    violation can be read afterwards; the path."""
    path = rig.root / "violations" / f"{sid}.jsonl"
    path.parent.mkdir(exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            line = {"seq": record.seq, "type": record.type, "data": record.data}
            out.write(json.dumps(line, default=str) + "\n")
    return path


def fence_violations(rig: Rig, session_id: str) -> list[str]:
    """Records a writer committed after its lease was taken over: a record of epoch e at or
    past the ``first_seq`` of a later takeover (the ``leases`` table of :mod:`.schema`)."""
    late = rig.rows(
        "SELECT r.seq, r.epoch, l.epoch FROM {s}.records r JOIN {s}.leases l ON "
        "l.session_id = r.session_id AND r.epoch < l.epoch AND r.seq >= l.first_seq "
        "WHERE r.session_id = %s ORDER BY r.seq",
        session_id,
    )
    saved = rig.rows(
        "SELECT s.seq, s.epoch, l.epoch FROM {s}.snapshots s JOIN {s}.leases l ON "
        "l.session_id = s.session_id AND s.epoch < l.epoch AND s.seq > l.first_seq "
        "WHERE s.session_id = %s",
        session_id,
    )
    return [
        f"{session_id}: seq {seq} written by epoch {old} after epoch {new} took over"
        for seq, old, new in late
    ] + [
        f"{session_id}: a snapshot to seq {seq} saved by epoch {old} after epoch {new} took over"
        for seq, old, new in saved
    ]
