"""Issue 32's acceptance test: 6 runs of 3 shell steps over PostgreSQL, 2 workers, each worker
SIGKILLed 4 times while a body runs, a replacement started each time: 6 of 6 runs end
``completed`` and every step's body ran exactly once (a killed body once, reported unknown).

The bodies are real `shell` calls (sandboxed, in each run's own workspace under the workers'
shared state directory): each appends a line to ``stepN.log`` and then sleeps, so a kill lands
after the line is written and before the result, and the log lines count the body runs.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

from seamhost_persistence_postgres.store import PostgresStore

from tests.persistence_postgres.rig import Rig

RUNS, STEPS, WORKERS, KILLS_EACH = 6, 3, 2, 4
BODY_S = 1.2


def shell_scenario(path: Path) -> Path:
    steps = [
        {
            "text": f"step {n}",
            "call": [
                {"tool": "shell", "args": {"command": f"echo ran >> step{n}.log; sleep {BODY_S}"}}
            ],
        }
        for n in range(1, STEPS + 1)
    ]
    path.write_text(json.dumps({"turn": [{"user": "three shell steps", "step": steps}]}))
    return path


def test_six_runs_survive_eight_kills_mid_body_and_every_step_runs_once(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    rig = Rig.make(tmp_path / "rig", postgres_dsn, pg_schema, lease_s=1.5)
    rig.profile.write_text(
        rig.profile.read_text()
        + '[plugins.tools]\n[plugins.sandbox-local]\nbackends = ["bwrap", "landlock"]\n'
    )
    scenario = shell_scenario(rig.root / "shell.json")
    sessions = [rig.submit(scenario, f"acc-{n}") for n in range(RUNS)]
    state = rig.root / "state"
    store = PostgresStore(postgres_dsn, schema=pg_schema)

    def start(slot: int, generation: int) -> subprocess.Popen[bytes]:
        name = f"w{slot}-{generation}"
        args = ("--state-dir", str(state), "--keep-workspaces", "--name", name)
        return rig.worker(*args, log=f"{name}.log")

    workers = {slot: start(slot, 0) for slot in range(WORKERS)}
    names = {slot: f"w{slot}-0" for slot in range(WORKERS)}
    kills: Counter[int] = Counter()
    acted: set[Path] = set()
    try:
        deadline = time.monotonic() + 240
        while True:
            runs = {run.id: run for run in store.runs.all()}
            if all(run.state not in ("queued", "running") for run in runs.values()):
                break
            assert time.monotonic() < deadline, f"runs never ended: {runs}"
            # A body is running where a step log has appeared since the last look: kill the
            # worker driving that run, if its slot has kills left, and start a replacement.
            for log in sorted(state.glob("runs/*/step*.log")):
                if log in acted:
                    continue
                acted.add(log)
                run = runs.get(int(log.parent.name))
                slot = next((s for s, n in names.items() if run and run.worker == n), None)
                if slot is None or kills[slot] >= KILLS_EACH:
                    continue
                workers[slot].send_signal(signal.SIGKILL)
                workers[slot].wait()
                kills[slot] += 1
                workers[slot] = start(slot, kills[slot])
                names[slot] = f"w{slot}-{kills[slot]}"
            time.sleep(0.05)
        runs = {run.id: run for run in store.runs.all()}
        codes: Counter[str] = Counter()
        for run in runs.values():
            records = list(store.read(run.session_id).records())
            assert store.verify(run.session_id).intact
            assert sum(1 for r in records if r.type == "turn/start") == 1  # one turn only
            results = [r.data for r in records if r.type == "tool/result"]
            assert [r["call_id"] for r in results] == [f"call-1-{n}-1" for n in (1, 2, 3)]
            codes.update((r.get("error") or {}).get("code", "ok") for r in results)
    finally:
        for worker in workers.values():
            worker.send_signal(signal.SIGTERM)
        for worker in workers.values():
            try:
                worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        store.close()
    report = {
        "kills": dict(kills),
        "states": dict(Counter(run.state for run in runs.values())),
        "claims": sum(run.claims for run in runs.values()),
        "results": dict(codes),
    }
    print(json.dumps(report))
    assert sum(kills.values()) == WORKERS * KILLS_EACH, report
    assert [run.state for run in runs.values()] == ["completed"] * RUNS, report
    # Every step's body ran exactly once, the killed ones included (their line is there).
    ran = {
        (run.session_id, n): (state / "runs" / str(run.id) / f"step{n}.log")
        .read_text()
        .count("ran")
        for run in runs.values()
        for n in range(1, STEPS + 1)
    }
    assert ran == {(sid, n): 1 for sid in sessions for n in range(1, STEPS + 1)}, ran
    # A killed body is reported unknown; every kill was mid-body, so one unknown per kill.
    assert codes["TOOL_OUTCOME_UNKNOWN"] == sum(kills.values()), report
    assert codes["ok"] == RUNS * STEPS - sum(kills.values()), report
