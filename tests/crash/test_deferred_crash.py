"""Crashes while a deferred approval is answered or resumed: SIGKILL `approve`, `run --resume`.

Each trial parks a fresh session on a deferred approval through the real CLI (a profile
extending ``default`` whose user-approval answers ``defer``; a throwaway ``count_write`` tool whose
body appends one line to a counter file outside the log, asked about on every call). Then it
starts either ``seamhost approve`` or (after a completed approve) ``seamhost run --resume ID
SCENARIO`` in a child and SIGKILLs it after a random delay, drawn (each way equally often)
uniform over the measured duration of an unkilled run of that command (times 0.9), or, once the
counter plugin announced the built bundle, uniform over the rest of that duration (where the
log is written), or, for a resume, over 0.5 to 1.5 times the measured time from the built
bundle to the body's effect. The durations are measured under the trials' own load first.

After each kill: the body ran at most once; it ran only if an ``allowed-once`` ``approval/decided``
and the call's ``tool/dispatch`` are durable in the log; a killed ``approve`` leaves the session
parked; ``session verify`` exits 0 (after ``session repair`` when the tail is a crash). Then the
job is finished the way an operator would (resume at once: it must run the body if and only if the
decision is durable; approve again if it was not; resume until the parked turn is done) and the
body must have run exactly once. The one exception is a kill between the durable dispatch and the
body's first write: the call is then ``TOOL_OUTCOME_UNKNOWN`` (the runtime never re-runs it) and
the counter may hold nothing; those trials are counted in the report.

The default run kills 6 children; the slow one ``CRASH_TRIALS`` (default 200: here the number of
kills, trials go on until that many children were killed) and prints its figures (where the kills
landed, what repair closed, the time taken).
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import attrs
import pytest

from seamhost.session.record import Record
from seamhost.session.shape import shape_problems
from seamhost.session.suspension import find_suspension
from seamhost.testing.sites import PluginSite
from tests.crash.harness import kill_after, summary
from tests.run.deferral_kit import COUNTER, SCENARIO, deferring_profile

SESSION = "parked"
COUNT = "call-1-1-2"


@attrs.frozen
class Rig:
    """One trial's directory: plugin site, profile, scenario, store and counter."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def profile(self) -> Path:
        return self.root / "deferring.toml"

    @property
    def scenario(self) -> Path:
        return self.root / "scenario.toml"

    @property
    def counter(self) -> Path:
        return self.root / "counter.txt"

    @property
    def phases(self) -> Path:
        return self.root / "phases"

    @classmethod
    def make(cls, root: Path) -> Rig:
        rig = cls(root)
        PluginSite(root / "site").add("counter", COUNTER)
        rig.profile.write_text(deferring_profile(rig.counter))
        rig.scenario.write_text(SCENARIO)
        return rig

    def env(self, *, announce: bool = False) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SEAMHOST_", "DEFER_"))}
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(self.root / "site"), env.get("PYTHONPATH", "")])
        )
        env["SEAMHOST_HOME"] = str(self.home)
        if announce:
            env["DEFER_PHASES"] = str(self.phases)
        return env

    def argv(self, command: str, approval: str = "") -> list[str]:
        profile = ("--profile", str(self.profile))
        if command == "park":
            return ["run", *profile, "--session", SESSION, "--workspace", str(self.root / "ws")]
        if command == "approve":
            return ["approve", *profile, SESSION, approval]
        if command == "resume":
            return ["run", *profile, "--resume", SESSION, str(self.scenario)]
        raise ValueError(command)

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "seamhost", *args],
            capture_output=True,
            text=True,
            env=self.env(),
            cwd=self.root,
            timeout=60,
            check=False,
        )

    def start(self, args: list[str]) -> subprocess.Popen[bytes]:
        """Start a child whose stderr goes to `child.err` in the rig."""
        with open(self.root / "child.err", "ab") as err:
            return subprocess.Popen(
                [sys.executable, "-m", "seamhost", *args],
                env=self.env(announce=True),
                cwd=self.root,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )

    def park(self) -> str:
        parked = self.cli(*self.argv("park"), str(self.scenario))
        assert parked.returncode == 4, parked.stdout + parked.stderr
        found = find_suspension(self.records())
        assert found is not None, "the run did not park"
        return found.approval_id

    def records(self) -> list[Record]:
        from seamhost_persistence_jsonl.store import JsonlStore

        return list(JsonlStore(self.home / "sessions").read(SESSION).records())

    def runs(self) -> int:
        """How many times count_write's body ran (one counter line each)."""
        return len(self.counter.read_text().splitlines()) if self.counter.exists() else 0

    def ready(self) -> bool:
        return self.phases.exists() and "ready" in self.phases.read_text()


def decided(records: list[Record], approval: str) -> bool:
    """An ``allowed-once`` answer to `approval` is in the log."""
    return any(
        r.type == "approval/decided"
        and r.data["id"] == approval
        and r.data["outcome"] == "allowed-once"
        for r in records
    )


def dispatched(records: list[Record]) -> bool:
    return any(r.type == "tool/dispatch" and r.data["call_id"] == COUNT for r in records)


def outcome(records: list[Record]) -> str | None:
    """The counted call's recorded outcome ("ok" or its code), ``None`` while it has none."""
    for r in records:
        if r.type == "tool/result" and r.data["call_id"] == COUNT:
            return str((r.data.get("error") or {}).get("code", "ok"))
    return None


def closed(records: list[Record]) -> bool:
    """The last turn has its ``turn/end``."""
    for r in reversed(records):
        if r.type == "turn/end":
            return True
        if r.type == "turn/start":
            return False
    return True


def landing(command: str, records: list[Record], approval: str) -> str:
    """Where a kill landed, read from the durable log."""
    if command == "approve":
        return "decided" if decided(records, approval) else "undecided"
    if not dispatched(records):
        return "parked"
    if outcome(records) is None:
        return "dispatched"
    return "closed" if closed(records) else "resulted"


@attrs.frozen
class Span:
    """How long an unkilled command takes: from its start, and from the built bundle on; and
    from the built bundle to the body's effect (resume only; else the same as `after_ready`)."""

    whole: float
    after_ready: float
    to_effect: float


def measure(root: Path) -> dict[str, Span]:
    """Time one unkilled approve and one unkilled resume."""
    rig = Rig.make(root)
    approval = rig.park()
    spans = {}
    for command in ("approve", "resume"):
        rig.phases.unlink(missing_ok=True)
        start = time.monotonic()
        child = rig.start(rig.argv(command, approval))
        ready = effect = None
        while child.poll() is None:
            if ready is None and rig.ready():
                ready = time.monotonic()
            if effect is None and rig.runs():
                effect = time.monotonic()
            time.sleep(0.001)
        end = time.monotonic()
        assert child.returncode == 0, f"unkilled {command} exited {child.returncode}"
        ready = ready or start
        spans[command] = Span(end - start, end - ready, (effect or end) - ready)
    assert rig.runs() == 1
    return spans


def trial(root: Path, seed: int, spans: dict[str, Span]) -> dict[str, Any]:
    """Park, kill `approve` or `run --resume` at a random moment, check, finish, check."""
    rng = random.Random(seed)
    command = "approve" if seed % 2 == 0 else "resume"
    rig = Rig.make(root)
    approval = rig.park()
    if command == "resume":
        approved = rig.cli(*rig.argv("approve", approval))
        assert approved.returncode == 0, approved.stderr
    span = spans[command]
    child = rig.start(rig.argv(command, approval))
    mode = rng.choice(["whole", "after-ready", "near-effect"][: 3 if command == "resume" else 2])
    if mode == "whole":
        killed = kill_after(child, rng.uniform(0.0, 0.9 * span.whole))
    else:
        deadline = time.monotonic() + 60
        while not rig.ready() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.001)
        low, high = (0.0, span.after_ready) if mode == "after-ready" else (0.5, 1.5)
        if mode == "near-effect":
            low, high = low * span.to_effect, high * span.to_effect
        killed = kill_after(child, rng.uniform(low, high))
    out: dict[str, Any] = {"seed": seed, "command": command, "mode": mode, "killed": killed}
    problems: list[str] = []
    out["problems"] = problems

    stored = rig.records()
    out["landed"] = landing(command, stored, approval) if killed else "exited"
    runs = rig.runs()
    if runs > 1:
        problems.append(f"the body ran {runs} times")
    if runs and not decided(stored, approval):
        problems.append("the body ran without a durable allowed-once decision")
    if runs and not dispatched(stored):
        problems.append("the body ran without a durable tool/dispatch")
    parked = find_suspension(stored)
    if command == "approve" and parked is None:
        problems.append("a killed approve left the session not parked")
    if not killed and (child.returncode != 0 or (command == "resume" and not closed(stored))):
        err = (rig.root / "child.err").read_text()[-600:]
        problems.append(f"unkilled {command} exited {child.returncode}: {err}")
    if parked is None and not closed(stored):  # a crash tail: repair it first
        repaired = rig.cli("session", "repair", SESSION)
        if repaired.returncode != 0:
            problems.append(f"session repair exited {repaired.returncode}: {repaired.stderr}")
        out["repaired"] = True
    verified = rig.cli("session", "verify", SESSION)
    if verified.returncode != 0:
        problems.append(f"session verify exited {verified.returncode}: {verified.stdout}")

    # Finish the job: resume at once; answer again only if the answer was not durable.
    for _ in range(3):
        records = rig.records()
        parked = find_suspension(records)
        if parked is None:
            break
        before = len(records)
        durable = decided(records, approval)
        resumed = rig.cli(*rig.argv("resume"))
        if durable and resumed.returncode != 0:
            problems.append(f"resume after a durable decision exited {resumed.returncode}")
        if not durable:
            if resumed.returncode != 4 or len(rig.records()) != before or rig.runs():
                problems.append("resume of an unanswered question did something")
            again = rig.cli(*rig.argv("approve", approval))
            if again.returncode != 0:
                problems.append(f"approving again exited {again.returncode}: {again.stderr}")
    final = rig.records()
    runs = rig.runs()
    code = outcome(final)
    out["outcome"] = code
    if find_suspension(final) is not None or not closed(final):
        problems.append("the session was not finished")
    problems += shape_problems(final, closed=True)
    if code == "TOOL_OUTCOME_UNKNOWN":
        if runs > 1:  # killed between the durable dispatch and the recorded result
            problems.append(f"the body ran {runs} times")
        out["unknown_without_effect"] = runs == 0
    elif code != "ok" or runs != 1:
        problems.append(f"in the end the body ran {runs} time(s); the call's outcome is {code}")
    return out


def calibrate(base: Path, workers: int) -> dict[str, Span]:
    """The spans measured under the trials' load: one measure per worker, at once; the medians."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        measured = list(pool.map(lambda n: measure(base / f"calibrate{n}"), range(workers)))
    return {
        command: Span(
            *(statistics.median(attrs.astuple(m[command])[i] for m in measured) for i in range(3))
        )
        for command in ("approve", "resume")
    }


def run_trials(base: Path, kills: int) -> dict[str, Any]:
    """Trials until `kills` children were killed (a child may exit before its delay is up), at
    most three times as many trials."""
    started = time.monotonic()
    workers = max(1, os.cpu_count() or 2)
    spans = calibrate(base, workers)
    outcomes: list[dict[str, Any]] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        while (done := sum(o["killed"] for o in outcomes)) < kills and len(outcomes) < 3 * kills:
            seeds = range(len(outcomes), len(outcomes) + max(workers, kills - done))
            outcomes += pool.map(lambda n: trial(base / f"t{n}", n, spans), seeds)
    report: dict[str, Any] = {
        "trials": len(outcomes),
        "seconds": round(time.monotonic() - started, 1),
        "measured": {k: [round(x, 3) for x in attrs.astuple(v)] for k, v in spans.items()},
        "kills": sum(o["killed"] for o in outcomes),
        "kills_by_command": dict(Counter(o["command"] for o in outcomes if o["killed"])),
        "kills_by_mode": dict(Counter(o["mode"] for o in outcomes if o["killed"])),
        "landed": dict(Counter(f"{o['command']}:{o['landed']}" for o in outcomes)),
        "repaired": sum(bool(o.get("repaired")) for o in outcomes),
        "outcomes": dict(Counter(str(o["outcome"]) for o in outcomes)),
        "unknown_without_effect": sum(bool(o.get("unknown_without_effect")) for o in outcomes),
        "failed_trials": sum(bool(o["problems"]) for o in outcomes),
    }
    report["findings"] = [o for o in outcomes if o["problems"]][:10]
    return report


def test_deferred_crash_sample(tmp_path: Path) -> None:
    report = run_trials(tmp_path, 6)
    assert report["failed_trials"] == 0, summary(report)
    assert report["kills"] >= 6, summary(report)


@pytest.mark.slow
def test_deferred_crash_matrix(tmp_path: Path) -> None:
    kills = int(os.environ.get("CRASH_TRIALS", "200"))
    report = run_trials(tmp_path, kills)
    print("\ndeferred-approval crash matrix:\n" + summary(report))
    (tmp_path / "deferred-crash.json").write_text(summary(report))
    assert report["kills"] >= kills, summary(report)
    assert set(report["kills_by_command"]) == {"approve", "resume"}, summary(report)
    assert report["failed_trials"] == 0, summary(report)
