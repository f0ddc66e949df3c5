"""A parked step, in process: what runs before a deferral, what waits, and what resuming checks.

The bundle is durable (persistence-jsonl) so the deferral can wait; a probe plugin asks about
calls whose `path` starts with "ask", defers every question, and has a floor it can raise
between parking and resuming, to show that the guards are asked again on resume.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from seamhost.kernel.bundle import Bundle
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session
from seamhost.session.events import ApprovalDecided
from seamhost.session.shape import shape_problems
from seamhost.session.suspension import find_suspension
from tests.conftest import BundleMaker, plugin_state

PROBE = """
from seamhost import Decision, ToolOutput, ToolSpec, ApprovalOutcome
async def body(ctx):
    Plugin.runs.append(ctx.call_id)
    return ToolOutput("ran " + ctx.call_id)
schema = {"type": "object", "properties": {"path": {"type": "string"}},
          "additionalProperties": False}
class Plugin:
    runs = []
    floor = []
    def __init__(self, ctx):
        self.ctx = ctx
    @hookimpl
    def tools_register(self, register):
        register(ToolSpec("probe", "records its runs", schema, {}, "write", False,
                          body))
    @hookimpl
    def tools_pre_execute(self, call):
        if call.arguments.get("path", "").startswith("ask"):
            return Decision.ask("a person decides")
        return None
    @hookimpl
    def tools_guard(self, call):
        if Plugin.floor:
            return Decision.deny("a floor raised after the approval")
        return None
    @hookimpl
    def approval_request(self, request):
        return ApprovalOutcome.DEFERRED
descriptor = PluginDescriptor(name="probe", factory=Plugin)
"""

SCENARIO = """
[[turn]]
user = "go"
[[turn.step]]
text = "three calls"
[[turn.step.call]]
tool = "probe"
args = { path = "first" }
[[turn.step.call]]
tool = "probe"
args = { path = "ask-me" }
[[turn.step.call]]
tool = "probe"
args = { path = "after" }
[[turn.step]]
text = "done"
"""


def durable_bundle(make_bundle: BundleMaker, tmp_path: Path) -> Bundle:
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO)
    tables = (
        f'[plugins.persistence-jsonl]\nroot = "{tmp_path / "sessions"}"\n'
        "[plugins.checkpoint-policy]\n"
        f'[plugins.model-scripted]\nscenario = "{scenario}"\n'
    )
    return make_bundle(
        {"probe": "from seamhost import *\nfrom seamhost import hookimpl\n" + PROBE}, profile=tables
    )


def park(bundle: Bundle, tmp_path: Path) -> Agent:
    session = create_session(bundle)
    agent = Agent(bundle, session, workspace=tmp_path)
    outcome = asyncio.run(agent.run_turn("go"))
    assert outcome.reason == "suspended"
    assert outcome.approval is not None
    return agent


def decide(agent: Agent, outcome: str) -> None:
    parked = find_suspension(agent.session.records)
    assert parked is not None
    agent.session.append(ApprovalDecided(id=parked.approval_id, outcome=outcome, decider="t"))  # type: ignore[arg-type]


def codes(agent: Agent) -> dict[str, str]:
    return {
        r.data["call_id"]: (r.data.get("error") or {}).get("code", "ok")
        for r in agent.session.records
        if r.type == "tool/result"
    }


def test_the_calls_before_a_deferral_run_and_the_rest_wait_in_an_open_step(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = durable_bundle(make_bundle, tmp_path)
    agent = park(bundle, tmp_path)
    assert plugin_state(bundle, "probe").runs == ["call-1-1-1"]
    assert codes(agent) == {"call-1-1-1": "ok"}
    types = [r.type for r in agent.session.records]
    assert types[-2:] == ["approval/asked", "approval/deferred"]
    assert "step/end" not in types
    assert "turn/end" not in types
    assert shape_problems(agent.session.records, closed=True) == []
    # pending: resuming writes nothing
    before = len(agent.session.records)
    again = asyncio.run(agent.resume())
    assert again is not None
    assert again.reason == "suspended"
    assert len(agent.session.records) == before


def test_an_allowed_call_runs_once_then_the_rest_of_the_step_and_the_turn(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = durable_bundle(make_bundle, tmp_path)
    agent = park(bundle, tmp_path)
    decide(agent, "allowed-once")
    outcome = asyncio.run(agent.resume())
    assert outcome is not None
    assert outcome.reason == "completed"
    assert plugin_state(bundle, "probe").runs == ["call-1-1-1", "call-1-1-2", "call-1-1-3"]
    assert list(codes(agent).values()) == ["ok", "ok", "ok"]
    assert shape_problems(agent.session.records, closed=True) == []
    assert asyncio.run(agent.resume()) is None  # nothing is parked any more


def test_resuming_asks_the_guards_again(make_bundle: BundleMaker, tmp_path: Path) -> None:
    bundle = durable_bundle(make_bundle, tmp_path)
    agent = park(bundle, tmp_path)
    decide(agent, "allowed-once")
    plugin_state(bundle, "probe").floor.append(True)
    outcome = asyncio.run(agent.resume())
    assert outcome is not None
    assert outcome.reason == "completed"
    assert codes(agent)["call-1-1-2"] == "DENIED_BY_GUARD"
    assert plugin_state(bundle, "probe").runs == ["call-1-1-1"]


def test_a_rejected_call_is_refused_and_the_step_goes_on(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = durable_bundle(make_bundle, tmp_path)
    agent = park(bundle, tmp_path)
    decide(agent, "rejected")
    outcome = asyncio.run(agent.resume())
    assert outcome is not None
    assert outcome.reason == "completed"
    assert codes(agent) == {
        "call-1-1-1": "ok",
        "call-1-1-2": "APPROVAL_REJECTED",
        "call-1-1-3": "ok",
    }
    assert plugin_state(bundle, "probe").runs == ["call-1-1-1", "call-1-1-3"]
