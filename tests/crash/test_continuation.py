"""A run killed by SIGKILL at each barrier, then continued with ``run --resume ID SCENARIO``.

Issue 32: a crash no longer ends the work. For each barrier (before the model request, after the
assistant message, before dispatch, mid-body, after the result before its flush) the child is
killed there, then resumed through the real CLI on the same JSONL store. Under ``[recovery]
on_unknown = "report"`` the run ends ``completed`` in one turn; every step's body ran at most once
(the markers hold one line per body run); a body that was mid-flight is reported
``TOOL_OUTCOME_UNKNOWN`` and not run again; the steps after it run once; call ids (and so
idempotency keys, ``<session>:<call id>``) are the scenario's own; ``session verify`` is clean.
Under ``park`` the run ends ``parked`` (exit 4) until ``session reconcile``, then completes.
The default run takes a few cases; the whole matrix is marked ``slow``.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import orjson
import pytest

from tests.crash.harness import Rig, phases, scenario

SESSION = "cont"
STEPS = [[("effect", False)], [("effect", True)], [("effect", False)]]
CALLS = ["call-1-1-1", "call-1-2-1", "call-1-3-1"]

# (the phase the child is held at, the n-th time it is announced): where the kill lands.
BARRIERS = {
    "before-model-request": ("model", 1),
    "after-assistant-message": ("approval", 1),  # step 2 asks; its message is in the log
    "before-dispatch": ("dispatch", 2),
    "mid-body-before-effect": ("body-before", 2),
    "mid-body-after-effect": ("body-after", 2),
    "after-result-before-flush": ("model", 3),  # step 2's result is appended, not flushed
}
FAST = ("before-dispatch", "mid-body-after-effect", "after-result-before-flush")


def killed_run(rig: Rig, phase: str, nth: int) -> Path:
    """Start the run held at the `nth` announcement of `phase`, and SIGKILL it there."""
    phase_file = rig.root / "phases"
    script = scenario(rig.root / "s.json", STEPS)
    child = rig.start(SESSION, script, rig.env(phase_file, hold=[phase], nth=nth))
    deadline = time.monotonic() + 30
    while sum(1 for name, _ in phases(phase_file) if name == phase) < nth:
        assert child.poll() is None, "the child ended before the barrier"
        assert time.monotonic() < deadline, f"phase {phase} #{nth} never came"
        time.sleep(0.002)
    time.sleep(0.05)  # held there: let it settle, then kill
    child.send_signal(signal.SIGKILL)
    child.wait()
    return script


def stored(rig: Rig) -> list[dict[str, object]]:
    return [{"type": r.type, **r.data} for r in rig.bundle().store.read(SESSION).records()]


def marker_lines(rig: Rig) -> dict[str, int]:
    return {p.name: len(p.read_text().splitlines()) for p in rig.markers.iterdir()}


def resume(rig: Rig, script: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = rig.env(rig.root / "resume-phases")
    return rig.cli("run", "--resume", SESSION, str(script), *extra, env=env)


def check_continued(rig: Rig, before: dict[str, int]) -> list[dict[str, object]]:
    records = stored(rig)
    turns = [r for r in records if r["type"] == "turn/start"]
    ends = [r for r in records if r["type"] == "turn/end"]
    assert len(turns) == 1, records
    assert [e["reason"] for e in ends] == ["completed"], records
    assert any(r["type"] == "session/takeover" for r in records)
    results = {str(r["call_id"]): r for r in records if r["type"] == "tool/result"}
    assert sorted(results) == CALLS  # the scenario's call ids, one result each, no new ones
    assert sorted({str(r["call_id"]) for r in records if r["type"] == "tool/call"}) == CALLS
    lines = marker_lines(rig)
    assert all(n == 1 for n in lines.values()), lines  # no body ran twice
    for call_id, result in results.items():
        error = result.get("error") or {}
        code = error.get("code") if isinstance(error, dict) else None
        if code == "TOOL_OUTCOME_UNKNOWN":
            # Left in flight by the kill: reported unknown, never run again.
            assert lines.get(call_id, 0) == before.get(call_id, 0)
        else:
            assert code is None, result
            assert lines[call_id] == 1
    for call_id in CALLS:  # every marker carries the same idempotency key
        text = (rig.markers / call_id).read_text() if (rig.markers / call_id).exists() else ""
        assert all(line.endswith(f"key {SESSION}:{call_id}") for line in text.splitlines())
    verify = rig.cli(
        "session", "verify", "--profile", str(rig.profile), SESSION, env=rig.env(rig.root / "v")
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    return records


def run_case(tmp_path: Path, barrier: str) -> None:
    rig = Rig.make(tmp_path)
    phase, nth = BARRIERS[barrier]
    script = killed_run(rig, phase, nth)
    before = marker_lines(rig)
    done = resume(rig, script)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "continuing turn 1" in done.stdout
    assert "profile crashrig" in done.stdout  # the recorded one: no --profile was given
    check_continued(rig, before)


@pytest.mark.parametrize("barrier", FAST)
def test_a_run_killed_at_a_barrier_is_continued_to_completion(tmp_path: Path, barrier: str) -> None:
    run_case(tmp_path, barrier)


@pytest.mark.slow
@pytest.mark.parametrize("barrier", sorted(set(BARRIERS) - set(FAST)))
def test_every_barrier_is_continued_to_completion(tmp_path: Path, barrier: str) -> None:
    run_case(tmp_path, barrier)


def test_under_park_a_body_killed_mid_flight_parks_until_reconciled(tmp_path: Path) -> None:
    rig = Rig.make(tmp_path)
    with rig.profile.open("a") as fh:
        fh.write('[recovery]\non_unknown = "park"\n')
    script = killed_run(rig, "body-after", 2)
    parked = resume(rig, script)
    assert parked.returncode == 4, parked.stdout + parked.stderr
    assert "parked" in parked.stderr
    assert "session reconcile" in parked.stderr
    records = stored(rig)
    assert records[-1]["type"] == "turn/parked"
    assert list(records[-1]["calls"]) == ["call-1-2-1"]  # type: ignore[call-overload]
    assert "call-1-3-1" not in marker_lines(rig)  # nothing after the unknown ran
    env = rig.env(rig.root / "r")
    then = f"then continue with `seamhost run --resume {SESSION} [SCENARIO]`"  # a scripted one
    assert parked.stderr.strip().endswith(then), parked.stderr
    shown = rig.cli("session", "show", "--profile", str(rig.profile), SESSION, env=env)
    assert f"`seamhost session reconcile {SESSION} CALL_ID ...`, {then}" in shown.stdout
    again = resume(rig, script)  # still unknown: parked again, nothing run
    assert again.returncode == 4
    assert "call-1-3-1" not in marker_lines(rig)
    reconciled = rig.cli(
        "session", "reconcile", "--profile", str(rig.profile), SESSION, "call-1-2-1",
        "--error", "TOOL_ERROR", "--message", "checked: it did not happen", "--source", "test",
        env=env,
    )  # fmt: skip
    assert reconciled.returncode == 0, reconciled.stdout + reconciled.stderr
    done = resume(rig, script)
    assert done.returncode == 0, done.stdout + done.stderr
    check_continued(rig, {"call-1-2-1": 1})


def test_a_finished_session_is_left_as_it_is(tmp_path: Path) -> None:
    rig = Rig.make(tmp_path)
    script = scenario(rig.root / "s.json", STEPS)
    env = rig.env(rig.root / "phases")
    first = rig.cli(
        "run", "--profile", str(rig.profile), "--session", SESSION, str(script), env=env
    )
    assert first.returncode == 0, first.stdout + first.stderr
    count = len(stored(rig))
    again = resume(rig, script)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "nothing to continue: the last turn ended" in again.stdout
    assert len(stored(rig)) == count
    assert all(n == 1 for n in marker_lines(rig).values())
    assert orjson.dumps(stored(rig)[-1])  # the log still reads


def test_a_changed_tool_schema_is_refused_until_accepted(tmp_path: Path) -> None:
    rig = Rig.make(tmp_path)
    script = killed_run(rig, "body-after", 2)
    before = stored(rig)
    module = rig.site / "seamhost_crashprobe.py"
    module.write_text(
        module.read_text().replace('{"ask": {"type": "boolean"}}', '{"ask": {"type": "integer"}}')
    )
    refused = resume(rig, script)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    for tool in ("effect", "effect_q", "peek"):
        assert f"tool {tool} digest: sha256:" in refused.stderr
    assert stored(rig) == before, "a refused resume appends nothing"
    done = resume(rig, script, "--accept-changes")
    assert done.returncode == 0, done.stdout + done.stderr
    records = stored(rig)
    [takeover] = [r for r in records if r["type"] == "session/takeover"]
    assert any(str(c).startswith("tool effect digest") for c in takeover["accepted_changes"])  # type: ignore[attr-defined]
    assert [r["reason"] for r in records if r["type"] == "turn/end"] == ["completed"]


def test_a_session_a_live_writer_holds_is_refused_naming_it(tmp_path: Path) -> None:
    rig = Rig.make(tmp_path)
    phase_file = rig.root / "phases"
    script = scenario(rig.root / "s.json", STEPS)
    child = rig.start(SESSION, script, rig.env(phase_file, hold=["body-after"]))
    try:
        deadline = time.monotonic() + 30
        while not any(name == "body-after" for name, _ in phases(phase_file)):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        before = stored(rig)
        refused = resume(rig, script)
        assert refused.returncode != 0
        assert "lock" in refused.stderr or "held" in refused.stderr, refused.stderr
        assert str(child.pid) in refused.stderr, refused.stderr
        assert stored(rig) == before
    finally:
        child.kill()
        child.wait()


def test_a_resume_that_cannot_continue_leaves_the_session_as_it_found_it(tmp_path: Path) -> None:
    rig = Rig.make(tmp_path)
    script = killed_run(rig, "body-after", 2)
    before, ran = stored(rig), marker_lines(rig)
    env = rig.env(rig.root / "resume-phases")
    refused = rig.cli("run", "--resume", SESSION, env=env)  # the scripted model needs SCENARIO
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "SCENARIO" in refused.stderr
    time.sleep(0.3)  # past the write-behind window: nothing was queued to be written
    assert stored(rig) == before
    done = resume(rig, script)  # the next attempt starts from the same state
    assert done.returncode == 0, done.stdout + done.stderr
    check_continued(rig, ran)
