"""Continuing a crashed turn, in process, on a real JSONL store (issue 32, points 2 and 3).

Each test writes the durable prefix a killed process would have left (the records up to the
crash, flushed, the writer released), then opens the session with ``continue_session`` and
drives ``Agent.continue_turn``: what is governed again, what is dispatched once, what is
reported unknown, and what ``[recovery] on_unknown`` does. The kill itself is in tests/crash.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from seamhost import jsonvalue
from seamhost.errors import BundleChanged
from seamhost.kernel.bundle import Bundle
from seamhost.run.agent import Agent
from seamhost.run.sessions import continue_session, create_session
from seamhost.session.events import (
    ApprovalAsked,
    ApprovalDecided,
    AssistantMessage,
    ModelAttempt,
    ModelUsage,
    ProposedCall,
    StepStart,
    ToolCall,
    ToolDispatch,
    ToolError,
    ToolResultEvent,
    TurnStart,
    UserMessage,
)
from seamhost.session.record import Record
from seamhost.session.shape import shape_problems
from tests.conftest import BundleMaker, plugin_state

PROBE = """
from seamhost import Decision, ToolOutput, ToolSpec, ApprovalOutcome
async def body(ctx):
    Plugin.runs.append((ctx.call_id, ctx.attempt, ctx.idempotency_key))
    return ToolOutput("ran " + ctx.call_id)
schema = {"type": "object", "properties": {"path": {"type": "string"}},
          "additionalProperties": False}
class Plugin:
    runs = []
    asks = []
    floor = []
    def __init__(self, ctx):
        self.ctx = ctx
    @hookimpl
    def tools_register(self, register):
        register(ToolSpec("probe", "records its runs", schema, {}, "write", False, body))
        register(ToolSpec("again", "idempotent", schema, {}, "write", False, body, True))
    @hookimpl
    def tools_pre_execute(self, call):
        if call.arguments.get("path", "").startswith("ask"):
            return Decision.ask("a person decides")
        return None
    @hookimpl
    def tools_guard(self, call):
        if Plugin.floor:
            return Decision.deny("a floor raised after the crash")
        return None
    @hookimpl
    def approval_request(self, request):
        Plugin.asks.append(request.call_id)
        return ApprovalOutcome.REJECTED
descriptor = PluginDescriptor(name="probe", factory=Plugin)
"""

SCENARIO = """
[[turn]]
user = "go"
[[turn.step]]
text = "two calls"
[[turn.step.call]]
tool = "probe"
args = { path = "ask-me" }
[[turn.step.call]]
tool = "probe"
args = { path = "after" }
[[turn.step]]
text = "done"
"""
FIRST, SECOND = "call-1-1-1", "call-1-1-2"


def durable_bundle(make_bundle: BundleMaker, tmp_path: Path, extra: str = "") -> Bundle:
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO)
    tables = (
        f'[plugins.persistence-jsonl]\nroot = "{tmp_path / "sessions"}"\n'
        "[plugins.checkpoint-policy]\n"
        f'[plugins.model-scripted]\nscenario = "{scenario}"\n' + extra
    )
    return make_bundle(
        {"probe": "from seamhost import *\nfrom seamhost import hookimpl\n" + PROBE}, profile=tables
    )


def crashed(bundle: Bundle, *, tools: tuple[str, str] = ("probe", "probe"), tail: Any = ()) -> str:
    """Write the prefix of a turn killed after its assistant message (and `tail`); its id."""
    session = create_session(bundle)
    args = ['{"path": "ask-me"}', '{"path": "after"}']
    calls = [ProposedCall(c, t, a) for c, t, a in zip((FIRST, SECOND), tools, args, strict=True)]
    session.append(TurnStart(turn=1))
    session.append(UserMessage(turn=1, step=0, content="go", source="user"))
    session.append(StepStart(turn=1, step=1))
    session.append(ModelAttempt(turn=1, step=1, attempt=1, model="s", request_digest="sha256:0"))
    session.append(ModelUsage(turn=1, step=1, attempt=1, input_tokens=1, output_tokens=1))
    session.append(AssistantMessage(turn=1, step=1, content="two calls", tool_calls=tuple(calls)))
    for call in calls:
        session.append(ToolCall(1, 1, call.call_id, call.name, call.arguments))
    for event in tail:
        session.append(event)
    asyncio.run(session.flush())
    session.close()
    return session.id


def digest(arguments: dict[str, Any]) -> str:
    return jsonvalue.digest(arguments)


def resumed(bundle: Bundle, session_id: str, tmp_path: Path) -> tuple[Agent, Any]:
    session, plan = continue_session(bundle, session_id, owner="test")
    agent = Agent(bundle, session, workspace=tmp_path)
    outcome = asyncio.run(agent.continue_turn(plan))
    asyncio.run(session.flush())
    session.close()
    return agent, outcome


def codes(agent: Agent) -> dict[str, str]:
    return {
        r.data["call_id"]: (r.data.get("error") or {}).get("code", "ok")
        for r in agent.session.records
        if r.type == "tool/result"
    }


def test_an_approval_decided_before_the_crash_still_covers_its_call(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = durable_bundle(make_bundle, tmp_path)
    asked = ApprovalAsked("a-1", FIRST, "probe", "a person decides", digest({"path": "ask-me"}))
    decided = ApprovalDecided(id="a-1", outcome="allowed-once", answerer="tty")
    session_id = crashed(bundle, tail=(asked, decided))
    agent, outcome = resumed(bundle, session_id, tmp_path)
    assert outcome.reason == "completed"
    probe = plugin_state(bundle, "probe")
    assert probe.asks == [], "the durable allowed-once stood: nobody was asked again"
    key = f"{session_id}:{FIRST}"
    assert probe.runs == [(FIRST, 1, key), (SECOND, 1, f"{session_id}:{SECOND}")]
    assert codes(agent) == {FIRST: "ok", SECOND: "ok"}
    [takeover] = [r.data for r in agent.session.records if r.type == "session/takeover"]
    assert [(c["call_id"], c["state"]) for c in takeover["calls"]] == [
        (FIRST, "not-started"),
        (SECOND, "not-started"),
    ]
    assert [r.data["turn"] for r in agent.session.records if r.type == "turn/start"] == [1]
    assert shape_problems(agent.session.records, closed=True) == []


def test_calls_never_started_are_governed_again(make_bundle: BundleMaker, tmp_path: Path) -> None:
    bundle = durable_bundle(make_bundle, tmp_path)
    session_id = crashed(bundle)
    plugin_state(bundle, "probe").floor.append(True)  # raised while the process was dead
    agent, outcome = resumed(bundle, session_id, tmp_path)
    assert outcome.reason == "completed"
    assert plugin_state(bundle, "probe").runs == []
    assert codes(agent) == {FIRST: "DENIED_BY_GUARD", SECOND: "DENIED_BY_GUARD"}
    assert shape_problems(agent.session.records, closed=True) == []


def test_an_idempotent_call_in_flight_is_dispatched_again_as_its_next_attempt(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = durable_bundle(make_bundle, tmp_path, "[limits]\ntool_retries = 1\n")
    dispatched = ToolDispatch(
        SECOND, 1, "workspace-write", digest({"path": "after"}), "write", True
    )
    refused = ApprovalDecided(id="a-1", outcome="rejected", answerer="tty")
    asked = ApprovalAsked("a-1", FIRST, "probe", "a person decides", digest({"path": "ask-me"}))
    first = ToolResultEvent(1, 1, FIRST, True, "no", ToolError("APPROVAL_REJECTED", "no"))
    session_id = crashed(bundle, tools=("probe", "again"), tail=(asked, refused, first, dispatched))
    agent, outcome = resumed(bundle, session_id, tmp_path)
    assert outcome.reason == "completed"
    assert plugin_state(bundle, "probe").runs == [(SECOND, 2, f"{session_id}:{SECOND}")]
    failed = [r.data for r in agent.session.records if r.type == "tool/attempt/failed"]
    assert [(f["call_id"], f["attempt"]) for f in failed] == [(SECOND, 1)]
    assert codes(agent) == {FIRST: "APPROVAL_REJECTED", SECOND: "ok"}
    assert shape_problems(agent.session.records, closed=True) == []


def test_under_fail_an_unknown_outcome_ends_the_turn(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = durable_bundle(make_bundle, tmp_path, '[recovery]\non_unknown = "fail"\n')
    dispatched = ToolDispatch(
        FIRST, 1, "workspace-write", digest({"path": "ask-me"}), "write", False
    )
    session_id = crashed(bundle, tail=(dispatched,))
    agent, outcome = resumed(bundle, session_id, tmp_path)
    assert outcome.reason == "error"
    assert outcome.message.startswith("TOOL_OUTCOME_UNKNOWN")
    assert plugin_state(bundle, "probe").runs == [], "nothing ran: not the unknown, not the next"
    assert codes(agent) == {FIRST: "TOOL_OUTCOME_UNKNOWN", SECOND: "TOOL_NOT_STARTED"}
    ends = [r.data for r in agent.session.records if r.type == "turn/end"]
    assert [e["reason"] for e in ends] == ["error"]
    assert shape_problems(agent.session.records, closed=True) == []


def test_a_refused_identity_leaves_the_log_as_it_was(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = durable_bundle(make_bundle, tmp_path)
    session_id = crashed(bundle)
    before = list(bundle.store.read(session_id).records())
    other = durable_bundle(make_bundle, tmp_path, "[limits]\nmax_steps = 5\n")
    with pytest.raises(BundleChanged) as refused:
        continue_session(other, session_id)
    assert refused.value.changes == ("limits.max_steps: 32 -> 5",)
    assert list(bundle.store.read(session_id).records()) == before
    session, plan = continue_session(other, session_id, accept_changes=True)  # not locked
    assert plan is not None
    session.close()


def test_a_takeover_names_the_open_turn_and_step() -> None:
    def rec(seq: int, kind: str, **data: Any) -> Record:
        return Record(seq, kind, seq, plain=data)

    records = [
        rec(0, "turn/start", turn=1),
        rec(1, "turn/end", turn=1, reason="completed"),
        rec(2, "session/takeover", owner="x", turn=1, step=None),
    ]
    assert shape_problems(records) == ["seq 2: takeover of turn 1, which is not open"]


def test_a_turn_that_had_its_answer_is_only_ended(make_bundle: BundleMaker, tmp_path: Path) -> None:
    bundle = durable_bundle(make_bundle, tmp_path)
    session = create_session(bundle)
    session.append(TurnStart(turn=1))
    session.append(UserMessage(turn=1, step=0, content="go", source="user"))
    session.append(StepStart(turn=1, step=1))
    session.append(ModelAttempt(turn=1, step=1, attempt=1, model="s", request_digest="sha256:0"))
    session.append(AssistantMessage(turn=1, step=1, content="all done"))
    asyncio.run(session.flush())
    session.close()  # killed before step/end and turn/end were written
    agent, outcome = resumed(bundle, session.id, tmp_path)
    assert outcome.reason == "completed"
    kinds = [r.type for r in agent.session.records]
    assert kinds.count("model/attempt") == 1, "the model is not asked again"
    assert kinds[-3:] == ["session/takeover", "step/end", "turn/end"]
    assert shape_problems(agent.session.records, closed=True) == []
