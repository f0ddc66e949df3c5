"""Randomised crash matrix (issue "Crash repair", point 5): SIGKILL at random moments, then repair.

The scenario mixes a parallel batch of reads, exclusive writes and approved calls over three steps;
every phase of every call waits a random moment (jitter) so kills land everywhere. For each kill
the aftermath is checked: no misclassification (an effect present is never TOOL_NOT_STARTED), no
committed record lost (what a returned checkpoint covered is still there), the session opens and
repairs to a well-formed closed log. The slow set runs ``CRASH_TRIALS`` (default 1000) kills and
writes its counts, including where the kills landed, to ``crash-matrix.json`` in the run's
temporary directory and to stdout; the default run does a small sample.
"""

from __future__ import annotations

import os
import random
import subprocess
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.crash.harness import Rig, aftermath, kill_after, last_phase, scenario, summary

STEPS = [
    [("peek", False), ("peek", False), ("peek", False)],
    [("effect", False), ("effect", True)],
    [("peek", True), ("effect", False)],
]
JITTER = 0.03


def trial(root: Path, seed: int, spans: tuple[float, float]) -> dict[str, Any]:
    """One run killed at a random moment: 1 in 10 anywhere, else once the calls are under way."""
    rig = Rig.make(root)
    rng = random.Random(seed)
    phase_file = root / "phases"
    script = scenario(root / "s.json", STEPS)
    whole, governed = spans
    child = rig.start("crash", script, rig.env(phase_file, jitter=JITTER))
    if rng.random() < 0.1:
        killed = kill_after(child, rng.uniform(0.0, whole))
    else:
        deadline = time.monotonic() + 60
        while not phase_file.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        killed = kill_after(child, rng.uniform(0.0, governed))
    phase = last_phase(phase_file) if killed else "finished"
    outcome: dict[str, Any] = {"seed": seed, "phase": phase, "killed": killed}
    try:
        after = aftermath(rig, "crash", phase_file)
    except Exception as exc:  # the session must always open; anything else is a finding
        message = str(exc)
        if phase == "start" and "no session 'crash'" in message:
            outcome["unopened"] = "killed before anything was written"
            return outcome
        outcome["broken"] = message[:500]
        return outcome
    outcome["misclassified"] = after.misclassified()
    outcome["lost"] = max(0, after.durable - len(after.stored))
    outcome["shape"] = [p for p in after.problems() if p not in outcome["misclassified"]]
    outcome["codes"] = sorted(after.results().values())
    outcome["snapshot"] = after.snapshots[0]
    return outcome


def horizon(root: Path) -> tuple[float, float]:
    """How long an unkilled run takes here, whole and from its first phase on."""
    rig = Rig.make(root)
    phase_file = root / "p"
    start = time.monotonic()
    child = rig.start("crash", scenario(root / "s.json", STEPS), rig.env(phase_file, jitter=JITTER))
    first = None
    while child.poll() is None:
        if first is None and phase_file.exists():
            first = time.monotonic()
        time.sleep(0.002)
    end = time.monotonic()
    return (end - start), (end - (first or start)) * 0.9


def run_matrix(base: Path, trials: int) -> dict[str, Any]:
    spans = horizon(base / "calibrate")
    with ThreadPoolExecutor(max_workers=max(1, (os.cpu_count() or 2))) as pool:
        outcomes = list(pool.map(lambda n: trial(base / f"t{n}", n, spans), range(trials)))
    report: dict[str, Any] = {
        "trials": trials,
        "run_seconds": [round(s, 3) for s in spans],
        "kills": sum(o["killed"] for o in outcomes),
        "phases": dict(Counter(o["phase"] for o in outcomes)),
        "misclassifications": sum(len(o.get("misclassified", ())) for o in outcomes),
        "committed_records_lost": sum(o.get("lost", 0) for o in outcomes),
        "sessions_not_opening": sum("broken" in o for o in outcomes),
        "killed_before_first_write": sum("unopened" in o for o in outcomes),
        "malformed_after_repair": sum(bool(o.get("shape")) for o in outcomes),
        "repaired_codes": dict(Counter(c for o in outcomes for c in o.get("codes", ()))),
        # What the reopening after the kill found (matches: it resumed from a snapshot).
        "snapshots_left": dict(Counter(o.get("snapshot", "none") for o in outcomes)),
    }
    report["findings"] = [
        o
        for o in outcomes
        if o.get("misclassified") or o.get("lost") or "broken" in o or o.get("shape")
    ][:10]
    return report


def check(report: dict[str, Any]) -> None:
    assert report["misclassifications"] == 0, summary(report)
    assert report["committed_records_lost"] == 0, summary(report)
    assert report["sessions_not_opening"] == 0, summary(report)
    assert report["malformed_after_repair"] == 0, summary(report)


def test_crash_matrix_sample(tmp_path: Path) -> None:
    check(run_matrix(tmp_path, 12))


@pytest.mark.slow
def test_crash_matrix(tmp_path: Path) -> None:
    report = run_matrix(tmp_path, int(os.environ.get("CRASH_TRIALS", "1000")))
    print("\ncrash matrix:\n" + summary(report))
    (tmp_path / "crash-matrix.json").write_text(summary(report))
    assert report["kills"] >= 0.8 * report["trials"], "most trials must end in a kill"
    check(report)


def test_the_matrix_really_kills(tmp_path: Path) -> None:
    """Guard against a matrix that passes because nothing was ever killed mid-run."""
    rig = Rig.make(tmp_path)
    child = rig.start(
        "crash", scenario(tmp_path / "s.json", STEPS), rig.env(tmp_path / "p", jitter=1.0)
    )
    assert kill_after(child, 1.5)
    assert child.returncode == -9
    assert subprocess.run(["true"], check=False).returncode == 0
