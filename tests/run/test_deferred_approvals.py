"""Deferred approvals through the real CLI, one process per command (design.md §11).

A profile extending ``default`` answers every question with user-approval's ``defer``
answerer. A throwaway plugin provides ``count_write``, whose body appends one line to a counter
file outside the session log, and asks about every call to it: the counter says exactly how
many times the body ran. The scenario's first step reads a file, then calls ``count_write``
(asked, so the step parks), then writes a file; a second step and a second turn write more.

Each test drives ``seamhost run`` (exit 4 when parked), ``approvals --json``, ``approve`` and
``reject`` (exit 2 when the question is not open), ``run --resume ID [SCENARIO]`` and the
``session`` commands, and reads the store directly to check what was written.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import attrs
import pytest

from seamhost import jsonvalue
from seamhost.cli.exitcodes import ExitCode
from seamhost.session.live import Session
from seamhost.session.record import Record
from seamhost.session.store import SessionHeader
from seamhost.session.suspension import find_suspension
from seamhost.testing.sites import PluginSite
from tests.conftest import run_cli
from tests.run.deferral_kit import COUNTER, SCENARIO, deferring_profile

READ, COUNT, AFTER = "call-1-1-1", "call-1-1-2", "call-1-1-3"
STEP2, TURN2 = "call-1-2-1", "call-2-1-1"


@attrs.frozen
class Deferring:
    """A SEAMHOST_HOME, the deferring profile, the scenario and the counter, under tmp_path."""

    root: Path
    site: PluginSite

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def profile(self) -> Path:
        return self.root / "deferring.toml"

    @property
    def scenario(self) -> Path:
        return self.root / "deferred.toml"

    @property
    def counter(self) -> Path:
        return self.root / "counter.txt"

    def workspace(self, session: str) -> Path:
        return self.root / f"ws-{session}"

    @classmethod
    def make(
        cls,
        root: Path,
        site: PluginSite,
        *,
        expires: float | None = None,
        scenario: str = SCENARIO,
    ) -> Deferring:
        rig = cls(root, site)
        site.add("counter", COUNTER)
        rig.profile.write_text(deferring_profile(rig.counter, expires))
        rig.scenario.write_text(scenario)
        return rig

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, site=self.site, env={"SEAMHOST_HOME": str(self.home)}, cwd=self.root)

    def run(self, session: str) -> subprocess.CompletedProcess[str]:
        return self.cli(
            "run",
            "--profile",
            str(self.profile),
            "--session",
            session,
            "--workspace",
            str(self.workspace(session)),
            str(self.scenario),
        )

    def resume(self, session: str, *, scenario: bool = True) -> subprocess.CompletedProcess[str]:
        tail = (str(self.scenario),) if scenario else ()
        return self.cli("run", "--profile", str(self.profile), "--resume", session, *tail)

    def answer(self, verb: str, session: str, approval: str) -> subprocess.CompletedProcess[str]:
        return self.cli(verb, "--profile", str(self.profile), session, approval)

    def park(self, session: str) -> str:
        """Run the scenario until it parks; the id of the approval it waits on."""
        parked = self.run(session)
        assert parked.returncode == ExitCode.AWAITS_APPROVAL, parked.stdout + parked.stderr
        found = re.search(r"awaits approval ([\w.-]+)", parked.stderr)
        assert found is not None, parked.stderr
        return found.group(1)

    def pending(self) -> list[dict[str, Any]]:
        listed = self.cli("approvals", "--profile", str(self.profile), "--json")
        assert listed.returncode == 0, listed.stderr
        found: list[dict[str, Any]] = json.loads(listed.stdout)
        return found

    def store(self) -> Any:
        from seamhost_persistence_jsonl.store import JsonlStore

        return JsonlStore(self.home / "sessions")

    def records(self, session: str) -> list[Record]:
        return list(self.store().read(session).records())

    def runs(self) -> list[str]:
        """One line per run of count_write's body: `<call id> <n>`."""
        return self.counter.read_text().splitlines() if self.counter.exists() else []


def results(records: list[Record]) -> dict[str, str]:
    """Each call's outcome: "ok" or its error code."""
    return {
        str(r.data["call_id"]): str((r.data.get("error") or {}).get("code", "ok"))
        for r in records
        if r.type == "tool/result"
    }


def of_type(records: list[Record], kind: str) -> list[Record]:
    return [r for r in records if r.type == kind]


def dispatches(records: list[Record], call_id: str) -> int:
    return sum(1 for r in of_type(records, "tool/dispatch") if r.data["call_id"] == call_id)


def shown(rig: Deferring, session: str) -> list[dict[str, Any]]:
    """The session's records as `session show --json` prints them."""
    out = rig.cli("session", "show", session, "--json")
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


@pytest.fixture
def rig(tmp_path: Path, plugin_site: PluginSite) -> Deferring:
    return Deferring.make(tmp_path, plugin_site)


def test_an_approved_call_runs_once_then_the_rest_of_the_session(rig: Deferring) -> None:
    parked = rig.run("s")
    assert parked.returncode == ExitCode.AWAITS_APPROVAL, parked.stdout + parked.stderr
    found = re.search(r"awaits approval ([\w.-]+)", parked.stderr)
    assert found is not None, parked.stderr
    approval = found.group(1)
    assert f"seamhost approve s {approval}" in parked.stderr

    before = rig.records("s")
    assert results(before) == {READ: "ok"}, "the read ran; the asked call and the one after wait"
    [deferred] = of_type(before, "approval/deferred")
    assert deferred.data["id"] == approval
    assert deferred.data["call_id"] == COUNT
    assert not of_type(before, "step/end")
    assert not of_type(before, "turn/end")
    assert rig.runs() == []

    [listed] = rig.pending()
    assert listed["session_id"] == "s"
    assert listed["approval_id"] == approval
    assert listed["call_id"] == COUNT
    assert listed["tool"] == "count_write"
    assert json.loads(listed["arguments"]) == {"n": 1}
    assert listed["decision"] is None

    # As the hint says: no --profile, the default profile finds the same store.
    approved = rig.cli("approve", "s", approval)
    assert approved.returncode == 0, approved.stderr
    decided = rig.records("s")
    assert decided[: len(before)] == before
    [answer] = decided[len(before) :]
    assert answer.type == "approval/decided"
    assert answer.data["id"] == approval
    assert answer.data["outcome"] == "allowed-once"
    assert answer.data["source"] == "cli"
    assert answer.data["decider"]
    assert [p["decision"] for p in rig.pending()] == ["allowed-once"]
    assert rig.runs() == [], "approving runs nothing"

    resumed = rig.resume("s")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert rig.runs() == [f"{COUNT} 1"]
    after = rig.records("s")
    assert after[: len(decided)] == decided
    assert results(after) == {READ: "ok", COUNT: "ok", AFTER: "ok", STEP2: "ok", TURN2: "ok"}
    assert dispatches(after, COUNT) == 1
    [dispatch] = [r for r in of_type(after, "tool/dispatch") if r.data["call_id"] == COUNT]
    assert dispatch.data["args_digest"] == deferred.data["args_digest"]
    assert [r.data["reason"] for r in of_type(after, "turn/end")] == ["completed", "completed"]
    ws = rig.workspace("s")
    assert (ws / "after.txt").read_text() == "after\n"
    assert (ws / "step2.txt").read_text() == "two\n"
    assert (ws / "turn2.txt").read_text() == "turn two\n"
    assert rig.pending() == []

    # Nothing is left to continue: a second resume writes nothing and runs nothing.
    again = rig.resume("s", scenario=False)
    assert again.returncode == 0, again.stderr
    assert rig.records("s") == after
    assert rig.runs() == [f"{COUNT} 1"]

    # The question was answered and used: answering it again is refused, nothing is written.
    for verb in ("approve", "reject"):
        twice = rig.answer(verb, "s", approval)
        assert twice.returncode == ExitCode.USAGE, twice.stdout + twice.stderr
        assert approval in twice.stderr
        assert "Traceback" not in twice.stderr
    assert rig.records("s") == after

    # With SCENARIO, session turn k is the scenario's turn k (user guide): its one turn is the
    # session's finished turn 1, so nothing is replayed, nothing asked, nothing written.
    replay = rig.resume("s")
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "nothing to continue" in replay.stdout
    assert rig.runs() == [f"{COUNT} 1"]
    assert rig.records("s") == after


def test_a_rejected_call_never_runs_and_the_step_goes_on(rig: Deferring) -> None:
    approval = rig.park("s")
    rejected = rig.cli(
        "reject", "--profile", str(rig.profile), "--reason", "not today", "s", approval
    )
    assert rejected.returncode == 0, rejected.stderr
    assert [p["decision"] for p in rig.pending()] == ["rejected"]

    resumed = rig.resume("s")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert rig.runs() == []
    records = shown(rig, "s")
    decided = [r["data"] for r in records if r["type"] == "approval/decided"]
    assert [(d["id"], d["outcome"]) for d in decided] == [(approval, "rejected")]
    assert "not today" in decided[0]["message"]
    outcome = {
        r["data"]["call_id"]: (r["data"].get("error") or {}).get("code", "ok")
        for r in records
        if r["type"] == "tool/result"
    }
    assert outcome == {
        READ: "ok",
        COUNT: "APPROVAL_REJECTED",
        AFTER: "ok",
        STEP2: "ok",
        TURN2: "ok",
    }
    assert not [
        r for r in records if r["type"] == "tool/dispatch" and r["data"]["call_id"] == COUNT
    ]
    assert rig.pending() == []


def test_a_parked_session_survives_repair_verify_and_an_early_resume(rig: Deferring) -> None:
    approval = rig.park("s")
    parked = rig.records("s")

    for args in (("session", "repair", "s"), ("session", "repair", "--all")):
        repaired = rig.cli(*args)
        assert repaired.returncode == 0, repaired.stdout + repaired.stderr
        assert rig.records("s") == parked, f"{' '.join(args)} appended to a parked session"
    for target in ("s", "--all"):
        verified = rig.cli("session", "verify", target)
        assert verified.returncode == 0, verified.stdout + verified.stderr

    for scenario in (True, False):
        early = rig.resume("s", scenario=scenario)
        assert early.returncode == ExitCode.AWAITS_APPROVAL, early.stdout + early.stderr
        assert approval in early.stderr
        assert rig.records("s") == parked, "a resume while pending wrote something"
    assert rig.runs() == []
    assert [(p["approval_id"], p["decision"]) for p in rig.pending()] == [(approval, None)]

    # Still answerable, and it still runs once.
    approved = rig.answer("approve", "s", approval)
    assert approved.returncode == 0, approved.stderr
    resumed = rig.resume("s")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert rig.runs() == [f"{COUNT} 1"]
    assert results(rig.records("s"))[COUNT] == "ok"


def test_an_expired_question_cannot_be_answered_and_the_call_is_refused(
    tmp_path: Path, plugin_site: PluginSite
) -> None:
    rig = Deferring.make(tmp_path, plugin_site, expires=0.5)
    approval = rig.park("s")
    [listed] = rig.pending()
    expires = listed["expires"]
    assert isinstance(expires, int)
    assert 0 < expires - listed["deferred_at"] <= 500
    parked = rig.records("s")

    time.sleep(max(0.0, expires / 1000 - time.time()) + 0.05)
    late = rig.answer("approve", "s", approval)
    assert late.returncode == ExitCode.USAGE, late.stdout + late.stderr
    assert "expired" in late.stderr
    assert rig.records("s") == parked

    resumed = rig.resume("s")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert rig.runs() == []
    records = rig.records("s")
    assert results(records) == {
        READ: "ok",
        COUNT: "APPROVAL_DEFERRED",
        AFTER: "ok",
        STEP2: "ok",
        TURN2: "ok",
    }
    assert dispatches(records, COUNT) == 0
    assert rig.pending() == []


def forge(rig: Deferring, source: str, target: str, change: str) -> None:
    """Write session `target` by hand: `source`'s records, with `change` applied.

    ``digest``: the question (asked and deferred) is for ``{"n": 2}`` while the call has
    ``{"n": 1}``; ``arguments``: the call says ``{"n": 2}`` while the question is for ``{"n": 1}``;
    ``respelled``: the call's arguments are spelled differently but mean the same (a control:
    the same canonical digest, so the approval holds).
    """
    store = rig.store()
    old = store.read(source)
    header: SessionHeader = old.header
    writer = store.create(attrs.evolve(header, session_id=target))
    session = Session(writer)
    other = jsonvalue.digest({"n": 2})
    spelled = {"arguments": '{"n":2}', "respelled": '{ "n" : 1 }'}.get(change)
    for record in old.records():
        data = jsonvalue.thaw(record.data)
        if change == "digest" and record.type in ("approval/asked", "approval/deferred"):
            data["args_digest"] = other
        if spelled is not None and record.type == "assistant/message":
            for call in data["tool_calls"]:
                if call["call_id"] == COUNT:
                    call["arguments"] = spelled
        if spelled is not None and record.type == "tool/call" and data["call_id"] == COUNT:
            data["arguments"] = spelled
        session.append_data(record.type, data, time=record.time)
    asyncio.run(session.writer.flush())
    session.close()


@pytest.mark.parametrize(
    ("change", "code", "runs"),
    [
        ("digest", "APPROVAL_UNAVAILABLE", []),
        ("arguments", "APPROVAL_UNAVAILABLE", []),
        ("respelled", "ok", [f"{COUNT} 1"]),
    ],
)
def test_an_approval_holds_only_for_the_arguments_it_was_asked_for(
    rig: Deferring, change: str, code: str, runs: list[str]
) -> None:
    rig.park("original")
    forge(rig, "original", "forged", change)
    forged = rig.records("forged")
    parked = find_suspension(forged)
    assert parked is not None, "the forged session is parked like the original"
    assert parked.pending
    verified = rig.cli("session", "verify", "forged")
    assert verified.returncode == 0, verified.stdout + verified.stderr

    approved = rig.answer("approve", "forged", parked.approval_id)
    assert approved.returncode == 0, approved.stderr
    resumed = rig.resume("forged")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert rig.runs() == runs
    records = rig.records("forged")
    assert results(records)[COUNT] == code
    assert dispatches(records, COUNT) == len(runs)
    assert results(records)[AFTER] == "ok", "the rest of the step goes on either way"


TWO_ASKS = """
[[turn]]
user = "count twice"
final = "done"

[[turn.step]]
[[turn.step.call]]
tool = "count_write"
args = { n = 1 }
[[turn.step.call]]
tool = "count_write"
args = { n = 2 }
[[turn.step.call]]
tool = "write_file"
args = { path = "after.txt", content = "after\\n" }
"""


def test_a_resumed_step_parks_again_on_its_next_question(
    tmp_path: Path, plugin_site: PluginSite
) -> None:
    rig = Deferring.make(tmp_path, plugin_site, scenario=TWO_ASKS)
    first = rig.park("s")
    assert rig.answer("approve", "s", first).returncode == 0

    second = rig.resume("s")
    assert second.returncode == ExitCode.AWAITS_APPROVAL, second.stdout + second.stderr
    assert rig.runs() == ["call-1-1-1 1"], "the approved call ran; the next one is asked"
    [listed] = rig.pending()
    assert listed["call_id"] == "call-1-1-2"
    assert listed["approval_id"] != first
    assert listed["decision"] is None
    assert results(rig.records("s")) == {"call-1-1-1": "ok"}

    assert rig.answer("approve", "s", listed["approval_id"]).returncode == 0
    done = rig.resume("s")
    assert done.returncode == 0, done.stdout + done.stderr
    assert rig.runs() == ["call-1-1-1 1", "call-1-1-2 2"]
    assert results(rig.records("s")) == {"call-1-1-1": "ok", "call-1-1-2": "ok", "call-1-1-3": "ok"}


def test_a_live_writer_refuses_an_answer(rig: Deferring) -> None:
    approval = rig.park("s")
    parked = rig.records("s")
    writer = rig.store().open("s")  # this process holds the session's writer
    try:
        refused = rig.answer("approve", "s", approval)
    finally:
        writer.close()
    assert refused.returncode != 0
    assert "already open for writing" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert rig.records("s") == parked
    unknown = rig.answer("approve", "s", "approval-nonesuch")
    assert unknown.returncode == ExitCode.USAGE, unknown.stdout + unknown.stderr
    assert rig.records("s") == parked


SECOND_TURN = """
[[turn]]
user = "first"
final = "turn one done"

[[turn.step]]
text = "turn one, step one"
[[turn.step.call]]
tool = "write_file"
args = { path = "t1s1.txt", content = "1\\n" }

[[turn.step]]
text = "turn one, step two"
[[turn.step.call]]
tool = "write_file"
args = { path = "t1s2.txt", content = "1\\n" }

[[turn]]
user = "second"
final = "turn two done"

[[turn.step]]
text = "turn two, step one"
[[turn.step.call]]
tool = "count_write"
args = { n = 2 }

[[turn.step]]
text = "turn two, step two"
[[turn.step.call]]
tool = "write_file"
args = { path = "t2s2.txt", content = "2\\n" }
"""


def test_a_turn_parked_after_the_first_continues_with_its_own_steps(
    tmp_path: Path, plugin_site: PluginSite
) -> None:
    """The parked turn 2 goes on with scenario turn 2's next step, not turn 1's."""
    rig = Deferring.make(tmp_path, plugin_site, scenario=SECOND_TURN)
    approval = rig.park("s")
    assert approval.startswith("approval-call-2-1-1")
    assert rig.answer("approve", "s", approval).returncode == 0
    resumed = rig.resume("s")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert rig.runs() == ["call-2-1-1 2"]
    records = rig.records("s")
    said = [
        (r.data["turn"], r.data["step"], r.data["content"])
        for r in of_type(records, "assistant/message")
    ]
    assert said == [
        (1, 1, "turn one, step one"),
        (1, 2, "turn one, step two"),
        (1, 3, "turn one done"),
        (2, 1, "turn two, step one"),
        (2, 2, "turn two, step two"),
        (2, 3, "turn two done"),
    ]
    assert (rig.workspace("s") / "t2s2.txt").exists()


def test_approvals_names_a_session_it_cannot_read(rig: Deferring) -> None:
    approval = rig.park("s")
    rig.park("t")
    (log,) = [p for p in (rig.home / "sessions" / "t").iterdir() if p.name.startswith("session.v")]
    log.write_bytes(b"\x00garbage, not a session log\n" + log.read_bytes()[40:])

    listed = rig.cli("approvals", "--profile", str(rig.profile), "--json")

    assert listed.returncode == 0, listed.stderr
    assert [p["approval_id"] for p in json.loads(listed.stdout)] == [approval]
    assert "session t could not be read" in listed.stderr
    assert "seamhost session verify t" in listed.stderr
