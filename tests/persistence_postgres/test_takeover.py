"""Takeover continues the run (issue 32 points 7, 8): a worker SIGKILLed mid-body leaves a call in
flight that `session unknowns` lists before anyone repairs it; the next worker records the
takeover (who, when, epoch), reports the killed body unknown, runs what never started, and the
run ends ``completed``; `runs show` and `session show` show each takeover and each claim. A
takeover that loses its own lease mid-continuation stops before its next body (``LEASE_LOST``)
and the run goes on with the next owner."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable
from pathlib import Path

from seamhost_persistence_postgres.store import PostgresStore

from tests.persistence_postgres.chaos import fence_violations
from tests.persistence_postgres.rig import Rig


def wait_for(predicate: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def claims_lapsed(rig: Rig) -> None:
    """Wait until no run is held by a claim: a `worker --once` started then finds the dead
    worker's run claimable, instead of nothing, and exiting."""
    wait_for(
        lambda: (
            not rig.rows(
                "SELECT id FROM {s}.runs WHERE state = 'running' "
                "AND claim_expires > clock_timestamp()"
            )
        ),
        "the dead worker's claim to lapse",
    )


def two_held_calls_then_one(rig: Rig) -> Path:
    """Turn 1: step 1 holds two held `mark` calls, step 2 one plain call."""
    scenario = rig.scenario("held.json", [[{"hold": True}, {}]])
    doc = json.loads(scenario.read_text())
    doc["turn"][0]["step"][0]["call"].append({"tool": "mark", "args": {"hold": True}})
    scenario.write_text(json.dumps(doc))
    return scenario


def results(dsn: str, schema: str, session: str) -> dict[str, str]:
    store = PostgresStore(dsn, schema=schema)
    try:
        assert store.verify(session).intact
        return {
            r.data["call_id"]: (r.data.get("error") or {}).get("code", "ok")
            for r in store.read(session).records()
            if r.type == "tool/result"
        }
    finally:
        store.close()


def test_a_killed_worker_s_run_is_continued_and_each_takeover_is_shown(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    rig = Rig.make(tmp_path / "rig", postgres_dsn, pg_schema)
    session = rig.submit(rig.scenario("three.json", [[{"hold": True}, {}, {}]]), "s-1")
    profile = ("--profile", str(rig.profile))
    rig.hold.touch()
    a = rig.worker("--name", "worker-a", log="a.log")
    try:
        wait_for(lambda: "s-1:call-1-1-1.1" in rig.marker_names(), "worker A's body")
        a.send_signal(signal.SIGKILL)
    finally:
        a.kill()
        a.wait()
    # Before anyone repairs it, the killed body is listed, marked unrepaired.
    listed = rig.cli("session", "unknowns", *profile, "--json")
    assert listed.returncode == 0, listed.stderr
    (unknown,) = json.loads(listed.stdout)
    assert (unknown["call_id"], unknown["unrepaired"], unknown["attempt"]) == (
        "call-1-1-1",
        True,
        1,
    )
    assert "unrepaired" in rig.cli("session", "unknowns", *profile).stdout
    rig.hold.unlink()
    claims_lapsed(rig)
    b = rig.worker("--once", "--name", "worker-b", log="b.log")
    wait_for(lambda: rig.runs()[0]["state"] == "completed", "worker B to finish the run")
    assert b.wait(timeout=60) == 0, (rig.root / "b.log").read_text()
    assert results(postgres_dsn, pg_schema, session) == {
        "call-1-1-1": "TOOL_OUTCOME_UNKNOWN",  # killed mid-body: reported, not run again
        "call-1-2-1": "ok",
        "call-1-3-1": "ok",
    }
    assert rig.marker_names() == {"s-1:call-1-1-1.1", "s-1:call-1-2-1.1", "s-1:call-1-3-1.1"}
    assert rig.doubles() == []
    listed = rig.cli("session", "unknowns", *profile, "--json")
    (unknown,) = json.loads(listed.stdout)
    assert (unknown["call_id"], unknown["unrepaired"]) == ("call-1-1-1", False)

    shown = rig.cli("runs", "show", "s-1", *profile, "--json")
    assert shown.returncode == 0, shown.stderr
    run = json.loads(shown.stdout)
    assert run["state"] == "completed"
    assert run["outcome"].startswith("completed; 1 turn(s); taken over at turn 1 step 1")
    (takeover,) = run["takeovers"]
    assert (takeover["owner"], takeover["epoch"], takeover["turn"]) == ("worker-b", 2, 1)
    assert takeover["calls"] == [{"call_id": "call-1-1-1", "state": "in-flight", "attempt": 1}]
    first, second = run["attempts"]
    assert (first["claim"], first["worker"], first["ended"]) == (1, "worker-a", None)
    assert (second["claim"], second["worker"]) == (2, "worker-b")
    assert second["how"].startswith("completed")
    # The scripted model reports no tokens and has no price: totals of 0, a cost unknown.
    assert [t["turn"] for t in run["usage"]["turns"]] == [1]
    assert (run["usage"]["output_tokens"], run["usage"]["cost"]) == (0, None)
    text = rig.cli("runs", "show", "s-1", *profile).stdout
    assert "epoch 2  by worker-b" in text
    assert "no end recorded: the worker died or stalled" in text
    assert "     usage  0 in (0 cached), 0 out, cost ? (no [pricing] for " in text
    assert "    turn 1  0 in (0 cached), 0 out, cost ?" in text
    timeline = rig.cli("session", "show", "s-1", *profile).stdout
    assert "taken over by worker-b at " in timeline
    assert "lease epoch 2: continues turn 1 step 1; open calls: call-1-1-1 in-flight" in timeline
    listing = rig.cli("runs", "ls", *profile).stdout
    assert "completed" in listing
    assert "interrupted" not in listing


def test_a_takeover_that_loses_its_lease_mid_continuation_stops_before_its_next_body(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    rig = Rig.make(tmp_path / "rig", postgres_dsn, pg_schema, lease_s=1.5)
    session = rig.submit(two_held_calls_then_one(rig), "s-lost")
    rig.hold.touch()
    a = rig.worker("--name", "worker-a", log="a.log")
    try:
        wait_for(lambda: "s-lost:call-1-1-1.1" in rig.marker_names(), "worker A's body")
        a.send_signal(signal.SIGKILL)
    finally:
        a.kill()
        a.wait()
    # B takes over and dispatches the call A never started; it holds, and B is stopped past
    # its lease there. C takes over from B and finishes the run.
    claims_lapsed(rig)
    b = rig.worker("--once", "--name", "worker-b", log="b.log")
    try:
        wait_for(lambda: "s-lost:call-1-1-2.1" in rig.marker_names(), "worker B's body")
        b.send_signal(signal.SIGSTOP)
        time.sleep(2.5)  # past B's lease (1.5 s) and its claim
        claims_lapsed(rig)
        c = rig.worker("--once", "--name", "worker-c", log="c.log")
        assert c.wait(timeout=120) == 0, (rig.root / "c.log").read_text()
        rig.hold.unlink()
        b.send_signal(signal.SIGCONT)
        assert b.wait(timeout=120) == 0, (rig.root / "b.log").read_text()
    finally:
        b.send_signal(signal.SIGCONT)
        b.kill()
        b.wait()
    b_log = (rig.root / "b.log").read_text()
    assert "LEASE_LOST" in b_log, b_log
    assert "run 1 lost" in b_log, b_log
    ran_by = {name: (rig.markers / name).read_text() for name in rig.marker_names()}
    assert ran_by == {
        "s-lost:call-1-1-1.1": str(a.pid),
        "s-lost:call-1-1-2.1": str(b.pid),
        "s-lost:call-1-2-1.1": str(c.pid),  # B never started it: its flush was refused
    }
    assert rig.doubles() == []
    assert results(postgres_dsn, pg_schema, session) == {
        "call-1-1-1": "TOOL_OUTCOME_UNKNOWN",
        "call-1-1-2": "TOOL_OUTCOME_UNKNOWN",
        "call-1-2-1": "ok",
    }
    assert fence_violations(rig, session) == []
    (run,) = rig.runs()
    assert (run["state"], run["claims"]) == ("completed", 3), run
    shown = json.loads(rig.cli("runs", "show", "1", "--profile", str(rig.profile), "--json").stdout)
    assert [t["owner"] for t in shown["takeovers"]] == ["worker-b", "worker-c"]
    assert [t["epoch"] for t in shown["takeovers"]] == [2, 3]
    assert [a["how"].split(":")[0] for a in shown["attempts"][1:]] == ["lost", "completed"]


def test_under_on_unknown_park_a_taken_over_run_ends_parked_saying_why(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    rig = Rig.make(tmp_path / "rig", postgres_dsn, pg_schema)
    rig.profile.write_text(rig.profile.read_text() + '[recovery]\non_unknown = "park"\n')
    session = rig.submit(rig.scenario("two.json", [[{"hold": True}, {}]]), "s-park")
    rig.hold.touch()
    a = rig.worker("--name", "worker-a", log="a.log")
    try:
        wait_for(lambda: "s-park:call-1-1-1.1" in rig.marker_names(), "worker A's body")
        a.send_signal(signal.SIGKILL)
    finally:
        a.kill()
        a.wait()
    rig.hold.unlink()
    state = rig.root / "state"
    claims_lapsed(rig)
    b = rig.worker("--once", "--state-dir", str(state), "--name", "worker-b", log="b.log")
    wait_for(lambda: rig.runs()[0]["state"] == "parked", "worker B to park the run")
    assert b.wait(timeout=60) == 0, (rig.root / "b.log").read_text()
    (run,) = rig.runs()
    assert run["outcome"].startswith("parked: waits on reconciliation; 1 turn(s)"), run
    assert "call-1-1-1" in run["outcome"]
    assert "parked" in rig.cli("runs", "ls", "--profile", str(rig.profile)).stdout
    assert rig.marker_names() == {"s-park:call-1-1-1.1"}  # the next step waits, not run
    assert results(postgres_dsn, pg_schema, session) == {"call-1-1-1": "TOOL_OUTCOME_UNKNOWN"}
    assert (state / "runs" / str(run["id"])).is_dir()  # a parked run keeps its workspace
    # The worker's report says what a person does next, in the store of the worker's profile.
    said = (rig.root / "b.log").read_text()
    assert f"`seamhost session reconcile --profile {rig.profile} s-park CALL_ID ...`" in said
    assert f"continue with `seamhost run --profile {rig.profile} --resume s-park [SCENARIO]`" in (
        said
    )


def test_a_session_the_worker_s_bundle_did_not_write_is_not_continued(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    rig = Rig.make(tmp_path / "rig", postgres_dsn, pg_schema)
    session = rig.submit(rig.scenario("two.json", [[{"hold": True}, {}]]), "s-changed")
    rig.hold.touch()
    a = rig.worker("--name", "worker-a", log="a.log")
    try:
        wait_for(lambda: "s-changed:call-1-1-1.1" in rig.marker_names(), "worker A's body")
        a.send_signal(signal.SIGKILL)
    finally:
        a.kill()
        a.wait()
    rig.hold.unlink()
    # The operator changes the profile the workers run before the run is taken over.
    text = rig.profile.read_text().replace('mode = "workspace-write"', 'mode = "read-only"')
    rig.profile.write_text(text)
    claims_lapsed(rig)
    b = rig.worker("--once", "--name", "worker-b", log="b.log")
    wait_for(lambda: rig.runs()[0]["state"] == "failed", "worker B to refuse the run")
    assert b.wait(timeout=60) == 0, (rig.root / "b.log").read_text()
    (run,) = rig.runs()
    assert "BundleChanged" in run["outcome"], run
    assert "sandbox mode: workspace-write -> read-only" in run["outcome"]
    assert rig.marker_names() == {"s-changed:call-1-1-1.1"}
    # Nothing was appended: the session is as worker A left it, its call still in flight.
    assert results(postgres_dsn, pg_schema, session) == {}
