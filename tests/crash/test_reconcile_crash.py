"""The crash matrix's reconciliation phase (issue 16): SIGKILL around a probe-capable body, then
reconcile, and the outcome recorded is what really happened.

A child runs one call of the harness's ``effect_q`` (a write, not idempotent, with a status
query whose answer is the marker file named by the call's idempotency key) and is SIGKILLed
exactly at one of five points: with the dispatch appended but not yet flushed (``dispatch``, at
once or after the write-behind window), while it is made durable (``flush``, settled a random
moment so the kill lands before or after the record is on disk), in the body before the effect
(``q-enter``), in the middle of the effect (``q-mid``: the marker staged, not yet renamed into
place) and after the effect before the result (``q-after``). Then, through the real CLI, either
``session repair`` and ``session reconcile --due``, or ``run --resume ID SCENARIO`` (which
probes the unknown outcome, then continues the turn: a call that never started is dispatched
then, once).

Each trial must end with no unresolved unknown outcome, a final outcome matching the marker
(success exactly when the marker exists: 0 wrong), the body run at most once (one ``q-enter``
and at most one marker line), at most one probe per unknown, and a well-formed closed log. The
slow set runs ``RECONCILE_TRIALS`` kills (default 200) spread over the points and both paths and
prints a JSON report (also written to ``reconcile-crash.json``); the default run kills once.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from seamhost.run.unknowns import unknowns
from seamhost.session.shape import shape_problems
from tests.crash.harness import Rig, kill_at, phases, scenario, summary

POINTS = ("dispatch", "flush", "q-enter", "q-mid", "q-after")
PATHS = ("repair-and-due", "resume")
CALL = "call-1-1-1"
SESSION = "crash"


def settle_outcome(records: list[Any]) -> tuple[str, str, str | None]:
    """(the result's code, the final outcome, the reconciliation's source) of the call.

    A call killed before its records were durable may be absent from the log altogether.
    """
    found = [r.data for r in records if r.type == "tool/result" and r.data["call_id"] == CALL]
    if not found:
        return "absent", "absent", None
    [result] = found
    code = (result.get("error") or {}).get("code", "ok")
    reconciled = [r.data for r in records if r.type == "tool/reconciled"]
    if not reconciled:
        return code, code, None
    [data] = reconciled
    final = "ok" if data["outcome"] == "result" else data["error"]["code"]
    return code, final, data["source"]


def trial(root: Path, n: int, point: str, path: str) -> dict[str, Any]:
    """Kill one run at `point`, settle it along `path`, and judge it by the marker."""
    rig = Rig.make(root)
    phase_file, after_file = root / "phases", root / "after-phases"
    script = scenario(root / "s.json", [[("effect_q", False)]])
    child = rig.start(SESSION, script, rig.env(phase_file, hold=[point]))
    rng = random.Random(n)
    # A kill at once at `dispatch` loses the unflushed call; after the write-behind window
    # (200 ms) the call and its dispatch are on disk without a checkpoint: an unknown outcome.
    settle = {
        "dispatch": rng.choice([0.0, 0.3]),
        "flush": rng.choice([0.0, rng.uniform(0.0, 0.02)]),
    }.get(point, 0.0)
    outcome: dict[str, Any] = {"trial": n, "point": point, "path": path}
    if not kill_at(child, phase_file, point, settle=settle):
        outcome["broken"] = "the child exited before the kill: " + (root / "child.err").read_text()
        return outcome
    env = rig.env(after_file)
    profile = ("--profile", str(rig.profile))
    if path == "resume":
        # A resume continues the killed turn (design.md §6), so it needs the scenario again.
        steps = [rig.cli("run", *profile, "--resume", SESSION, str(script), env=env)]
    else:
        steps = [
            rig.cli("session", "repair", SESSION, *profile, env=env),
            rig.cli("session", "reconcile", "--due", SESSION, *profile, "--json", env=env),
        ]
    for done in steps:
        if done.returncode != 0:
            outcome["broken"] = f"{done.args[3:6]} exited {done.returncode}: {done.stderr[-400:]}"
            return outcome
    records = list(rig.bundle().store.read(SESSION).records())
    code, final, source = settle_outcome(records)
    marker = rig.markers / f"q-{SESSION}:{CALL}"
    effect = marker.exists()
    entered = [p for f in (phase_file, after_file) for p in phases(f) if p == ("q-enter", CALL)]
    outcome.update(
        code=code,
        final=final,
        effect=effect,
        probes=sum(1 for p in phases(after_file) if p == ("probe", CALL)),
        body_runs=len(entered),
        marker_lines=len(marker.read_text().splitlines()) if effect else 0,
    )
    problems = []
    if (final == "ok") != effect:
        problems.append(f"recorded {final} but the marker {'is' if effect else 'is not'} there")
    if unknowns(SESSION, records):
        problems.append("an unknown outcome is left unresolved")
    if source not in {None, "probe:crashprobe"}:
        problems.append(f"reconciled by {source}, not the probe")
    if code == "TOOL_OUTCOME_UNKNOWN" and source is None:
        problems.append("the unknown outcome was never reconciled")
    if outcome["body_runs"] > 1 or outcome["marker_lines"] > 1:
        problems.append("the body ran twice")
    if outcome["probes"] > (1 if code == "TOOL_OUTCOME_UNKNOWN" else 0):
        problems.append(f"asked the probe {outcome['probes']} times")
    problems += shape_problems(records, closed=True)
    outcome["problems"] = problems
    return outcome


def run_matrix(base: Path, trials: int) -> dict[str, Any]:
    plan = [
        (n, POINTS[n % len(POINTS)], PATHS[(n // len(POINTS)) % len(PATHS)]) for n in range(trials)
    ]
    with ThreadPoolExecutor(max_workers=max(1, (os.cpu_count() or 2))) as pool:
        outcomes = list(pool.map(lambda t: trial(base / f"t{t[0]}", *t), plan))
    by_point: dict[str, Any] = {}
    for point in POINTS:
        mine = [o for o in outcomes if o["point"] == point and "broken" not in o]
        by_point[point] = {
            "trials": len(mine),
            "recorded": dict(Counter(o["code"] for o in mine)),
            "final": dict(Counter(o["final"] for o in mine)),
            "effects": sum(o["effect"] for o in mine),
        }
    settled = [o for o in outcomes if "broken" not in o]
    report: dict[str, Any] = {
        "trials": trials,
        "paths": dict(Counter(o["path"] for o in outcomes)),
        "points": by_point,
        "wrong": sum(any("recorded" in p for p in o["problems"]) for o in settled),
        "unresolved": sum(any("unresolved" in p for p in o["problems"]) for o in settled),
        "body_ran_twice": sum(any("twice" in p for p in o["problems"]) for o in settled),
        "probes": sum(o["probes"] for o in settled),
        "broken": sum("broken" in o for o in outcomes),
        "with_problems": sum(bool(o["problems"]) for o in settled),
    }
    report["findings"] = [o for o in outcomes if "broken" in o or o.get("problems")][:10]
    return report


def check(report: dict[str, Any]) -> None:
    assert report["broken"] == 0, summary(report)
    assert report["wrong"] == 0, summary(report)
    assert report["unresolved"] == 0, summary(report)
    assert report["body_ran_twice"] == 0, summary(report)
    assert report["with_problems"] == 0, summary(report)


def test_reconcile_after_a_kill_after_the_effect(tmp_path: Path) -> None:
    """The fast sample: killed after the marker, before the result; the probe says it happened."""
    outcome = trial(tmp_path, 0, "q-after", "repair-and-due")
    assert "broken" not in outcome, outcome
    assert outcome["problems"] == [], outcome
    assert (outcome["code"], outcome["final"], outcome["effect"]) == (
        "TOOL_OUTCOME_UNKNOWN",
        "ok",
        True,
    )
    assert (outcome["probes"], outcome["body_runs"], outcome["marker_lines"]) == (1, 1, 1)


@pytest.mark.slow
def test_reconcile_crash_matrix(tmp_path: Path) -> None:
    report = run_matrix(tmp_path, int(os.environ.get("RECONCILE_TRIALS", "200")))
    print("\nreconcile crash matrix:\n" + summary(report))
    (tmp_path / "reconcile-crash.json").write_text(summary(report))
    check(report)
    for point in POINTS:  # every point was really exercised, and the matrix can tell them apart
        assert report["points"][point]["trials"] > 0, summary(report)
    assert report["points"]["q-after"]["final"] == {"ok": report["points"]["q-after"]["trials"]}
    assert report["points"]["q-mid"]["effects"] == 0, summary(report)
    assert report["probes"] > 0
