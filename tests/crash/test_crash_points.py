"""Real process death at each point of a governed call (issue "Crash repair"), then repair.

A child runs `seamhost run` on persistence-jsonl with checkpoint-policy; its tool writes a marker
file outside the store (the external effect) and the probe holds the chosen phase so the parent's
SIGKILL lands exactly there: (a) waiting for approval, (b) inside the checkpoint flush before the
body, (c) in the body before the effect, (d) after the effect. After repair: an effect present is
never "not started"; (a) is "not started"; every record a returned flush covered survives; the
session reopens and resumes with a new turn.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.crash.harness import Rig, aftermath, kill_at, scenario

POINTS = {
    "approval": ({"TOOL_NOT_STARTED"}, False),
    "flush": ({"TOOL_NOT_STARTED", "TOOL_OUTCOME_UNKNOWN"}, False),
    "body-before": ({"TOOL_OUTCOME_UNKNOWN"}, False),
    "body-after": ({"TOOL_OUTCOME_UNKNOWN"}, True),
}


@pytest.mark.parametrize("point", list(POINTS))
def test_kill_at_each_point_then_repair_and_resume(tmp_path: Path, point: str) -> None:
    rig = Rig.make(tmp_path)
    phase_file = tmp_path / "phases"
    script = scenario(tmp_path / "s.json", [[("effect", point == "approval")]])
    child = rig.start("crash", script, rig.env(phase_file, hold=[point]))
    # Waiting for a person outlasts the write-behind window (200 ms), which makes the prefix up to
    # approval/asked durable without any checkpoint; the other points are killed at once.
    settle = 0.5 if point == "approval" else 0.0
    assert kill_at(child, phase_file, point, settle=settle), (tmp_path / "child.err").read_text()

    after = aftermath(rig, "crash", phase_file)
    codes, effect = POINTS[point]
    assert after.results() == {"call-1-1-1": after.results()["call-1-1-1"]}
    assert after.results()["call-1-1-1"] in codes
    assert ("call-1-1-1" in after.markers) is effect
    assert after.problems() == []
    assert after.durable > 0, "the step's checkpoint was reported before the kill"
    if point == "approval":
        decided = [r.data for r in after.repaired if r.type == "approval/decided"]
        assert [(d["outcome"], d.get("interrupted")) for d in decided] == [("cancelled", True)]
    repaired = [r.data for r in after.repaired if r.type == "session/repaired"]
    assert len(repaired) == 1

    # Session turn k is the scenario's turn k: turn 1 was repaired, so only turn 2 runs.
    again = scenario(tmp_path / "again.json", [[("effect", False)]], user="once more", turns=2)
    result = rig.cli(
        "run",
        "--profile",
        str(rig.profile),
        "--resume",
        "crash",
        str(again),
        env=rig.env(tmp_path / "phases2"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "turn 2 completed" in result.stdout
    assert "call-2-1-1" in {p.name for p in rig.markers.iterdir()}
