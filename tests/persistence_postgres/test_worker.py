"""`seamhost worker` on a real queue: SIGTERM stops claiming and lets the run in progress finish;
several workers on one queue drive each run once."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from seamhost_persistence_postgres.store import PostgresStore

from tests.persistence_postgres.rig import Rig


def test_sigterm_finishes_the_run_in_progress_and_claims_no_other(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    rig = Rig.make(tmp_path / "rig", postgres_dsn, pg_schema)
    scenario = rig.scenario("held.json", [[{"hold": True}, {}]])
    sessions = [rig.submit(scenario, f"s-{n}") for n in range(3)]
    rig.hold.touch()
    worker = rig.worker(log="w.log")
    try:
        deadline = time.monotonic() + 60
        while f"{sessions[0]}:call-1-1-1.1" not in rig.marker_names():
            assert time.monotonic() < deadline, (rig.root / "w.log").read_text()
            time.sleep(0.02)
        worker.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        assert worker.poll() is None, "the worker left its run before it finished"
        rig.hold.unlink()
        assert worker.wait(timeout=60) == 0, (rig.root / "w.log").read_text()
    finally:
        worker.kill()
        worker.wait()
    log = (rig.root / "w.log").read_text()
    assert "stopping: finishing the runs in progress, claiming none" in log
    states = {run["session_id"]: (run["state"], run["claims"]) for run in rig.runs()}
    assert states == {"s-0": ("completed", 1), "s-1": ("queued", 0), "s-2": ("queued", 0)}
    assert rig.marker_names() == {"s-0:call-1-1-1.1", "s-0:call-1-2-1.1"}


def test_workers_share_a_queue_and_drive_each_run_once(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    rig = Rig.make(tmp_path / "rig", postgres_dsn, pg_schema)
    scenario = rig.scenario("two.json", [[{"ms": 20}, {"ms": 20}]]).read_bytes()
    store = PostgresStore(postgres_dsn, schema=pg_schema)
    try:
        for n in range(12):
            store.runs.submit(f"r-{n:02d}", scenario=scenario, scenario_name="two.json")
    finally:
        store.close()
    workers = [rig.worker("--once", "--concurrency", "2", log=f"w{i}.log") for i in range(3)]
    for worker in workers:
        assert worker.wait(timeout=120) == 0
    runs = rig.runs()
    # Under load a claim may lapse and be taken by a worker that finds the session held and
    # steps back; what must hold is that each run completed and each body ran once.
    assert [run["state"] for run in runs] == ["completed"] * 12
    assert len(rig.marker_names()) == 24
    assert rig.doubles() == []


def test_a_prompt_run_after_a_scenario_run_does_not_replay_that_scenario(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    # Regression: the worker reused the bundle of its last run, whose scripted model was still
    # armed with that run's scenario, so a `--prompt` run claimed next replayed it (its calls
    # ran again under the new session). Each claimed run must get a fresh model adapter.
    rig = Rig.make(tmp_path / "rig", postgres_dsn, pg_schema)
    scenario = rig.scenario("one.json", [[{}]])
    rig.submit(scenario, "s-scenario")
    done = rig.cli(
        "submit", "--profile", str(rig.profile), "--session", "s-prompt", "--prompt", "hello"
    )
    assert done.returncode == 0, done.stderr
    worker = rig.worker("--once", log="w.log")
    assert worker.wait(timeout=120) == 0, (rig.root / "w.log").read_text()
    states = {run["session_id"]: run for run in rig.runs()}
    assert states["s-scenario"]["state"] == "completed"
    # The rig's profile names no scenario, so a prompt run has no model to answer it.
    assert states["s-prompt"]["state"] == "failed", states["s-prompt"]
    assert "no scenario to replay" in states["s-prompt"]["outcome"]
    assert rig.marker_names() == {"s-scenario:call-1-1-1.1"}
