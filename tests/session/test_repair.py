"""Repair (design.md §6): classification from the durable prefix, and its properties on real
logs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from seamhost.run.sessions import bind_session
from seamhost.session.live import Session
from seamhost.session.memory import MemoryStore
from seamhost.session.record import Record
from seamhost.session.repair import apply_repair, plan_repair
from seamhost.session.shape import shape_problems
from seamhost.session.store import SessionHeader
from seamhost.testing.sites import PluginSite
from tests.conftest import plugin_source

TOOLS = """
from seamhost import ToolOutput, ToolSpec, Decision, ApprovalOutcome
SAY = {"say": {"type": "string"}}
SCHEMA = {"type": "object", "properties": SAY, "additionalProperties": False}
async def body(ctx):
    return ToolOutput("said " + ctx.arguments.get("say", ""))
"""
BODY = """
@hookimpl
def tools_register(self, register):
    register(ToolSpec("read", "read", SCHEMA, {}, "read-only", True, body))
    register(ToolSpec("write", "write", SCHEMA, {}, "write", False, body))
@hookimpl
def tools_pre_execute(self, call):
    say = call.arguments.get("say", "")
    if say == "deny":
        return Decision.deny("no")
    if say.startswith("ask"):
        return Decision.ask("sure?")
    return None
@hookimpl
def approval_request(self, request):
    return {"ask-yes": ApprovalOutcome.ALLOWED_ONCE, "ask-no": ApprovalOutcome.REJECTED}.get(
        request.arguments.get("say"))
"""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("repair")
    site = PluginSite(root / "site")
    site.add("probe", TOOLS + plugin_source(BODY, name="probe"))
    scenario = root / "scenario.json"
    scenario.write_text('{"turn": [{"user": "x"}]}')
    import sys

    sys.path.insert(0, str(site.root))
    try:
        yield lambda path: build_bundle(resolve_profile(str(path)))
    finally:
        sys.path.remove(str(site.root))


calls = st.lists(
    st.tuples(
        st.sampled_from(["read", "write", "nope"]),
        st.sampled_from(["a", "deny", "ask-yes", "ask-no", "ask-none", "{bad"]),
    ),
    max_size=4,
)
scenarios = st.lists(st.lists(calls, min_size=0, max_size=3), min_size=1, max_size=3)


def scenario_json(turns: list[list[list[tuple[str, str]]]]) -> bytes:
    def call(tool: str, say: str) -> dict[str, Any]:
        return (
            {"tool": tool, "args_raw": say}
            if say == "{bad"
            else {"tool": tool, "args": {"say": say}}
        )

    doc = {
        "turn": [
            {
                "user": f"turn {t}",
                "step": [
                    {"text": "go", "call": [call(*c) for c in step]} for step in steps if step
                ],
            }
            for t, steps in enumerate(turns)
        ]
    }
    return orjson.dumps(doc)


def run_scenario(make: Any, tmp: Path, turns: list[list[list[tuple[str, str]]]]) -> list[Record]:
    scenario = tmp / "s.json"
    scenario.write_bytes(scenario_json(turns))
    profile = tmp / "p.toml"
    profile.write_text(f'[plugins.probe]\n[plugins.model-scripted]\nscenario = "{scenario}"\n')
    bundle: Bundle = make(profile)
    store = MemoryStore()
    header = SessionHeader("s", 1, "/", bundle.snapshot.to_json(), {"barriers": True})
    session = bind_session(bundle, store.create(header))
    agent = Agent(bundle, session, workspace=tmp)

    async def drive() -> None:
        for n in range(len(turns)):
            await agent.run_turn(f"turn {n}")

    asyncio.run(drive())
    return list(session.records)


def repaired(prefix: list[Record], barriers: bool = True) -> list[Record]:
    store = MemoryStore()
    header = SessionHeader("r", 1, "/", {}, {"barriers": barriers})
    writer = store.create(header)
    for record in prefix:
        writer.submit(record)
    writer.close()
    session = Session(store.open("r"))
    apply_repair(session)
    return list(session.records)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(turns=scenarios)
def test_repair_of_any_prefix_is_closed_idempotent_and_never_adds_a_second_result(
    bundle: Any, tmp_path: Path, turns: list[list[list[tuple[str, str]]]]
) -> None:
    records = run_scenario(bundle, tmp_path, turns)
    assert shape_problems(records, closed=True) == []
    for cut in range(1, len(records) + 1):
        prefix = records[:cut]
        fixed = repaired(prefix)
        assert fixed[:cut] == prefix, "repair only appends"
        assert shape_problems(fixed, closed=True) == [], (cut, [r.type for r in fixed])
        again = repaired(fixed)
        assert again == fixed, "repairing a repaired log changes nothing"
        had_result = {r.data["call_id"] for r in prefix if r.type == "tool/result"}
        added = [r.data["call_id"] for r in fixed[cut:] if r.type == "tool/result"]
        assert not had_result & set(added)
        assert all(r.time == prefix[-1].time for r in fixed[cut:]), "no time is invented"


def prefix_of(*types_and_data: tuple[str, dict[str, Any]]) -> list[Record]:
    return [Record(i, t, 10 + i, plain=d) for i, (t, d) in enumerate(types_and_data)]


OPEN_STEP = (
    ("turn/start", {"turn": 1}),
    ("user/message", {"turn": 1, "step": 0, "content": "u", "source": "user"}),
    ("step/start", {"turn": 1, "step": 1}),
    (
        "assistant/message",
        {
            "turn": 1,
            "step": 1,
            "content": "",
            "tool_calls": [
                {"call_id": "a", "name": "write", "arguments": "{}"},
                {"call_id": "b", "name": "write", "arguments": "{}"},
                {"call_id": "c", "name": "read", "arguments": "{}"},
            ],
        },
    ),
    ("tool/call", {"turn": 1, "step": 1, "call_id": "a", "name": "write", "arguments": "{}"}),
    ("tool/call", {"turn": 1, "step": 1, "call_id": "b", "name": "write", "arguments": "{}"}),
    ("tool/call", {"turn": 1, "step": 1, "call_id": "c", "name": "read", "arguments": "{}"}),
    (
        "tool/dispatch",
        {"call_id": "a", "attempt": 1, "sandbox_mode": "read-only", "args_digest": "d"},
    ),
    ("tool/result", {"turn": 1, "step": 1, "call_id": "a", "is_error": False, "content": "ok"}),
    (
        "tool/dispatch",
        {"call_id": "b", "attempt": 1, "sandbox_mode": "read-only", "args_digest": "d"},
    ),
    (
        "approval/asked",
        {"id": "approval-c", "call_id": "c", "tool": "read", "reason": "r", "args_digest": "d"},
    ),
)


def test_dispatched_is_unknown_and_undispatched_is_not_started() -> None:
    fixed = repaired(prefix_of(*OPEN_STEP))
    added = [(r.type, dict(r.data)) for r in fixed[len(OPEN_STEP) :]]
    results = {d["call_id"]: d["error"]["code"] for t, d in added if t == "tool/result"}
    assert results == {"b": "TOOL_OUTCOME_UNKNOWN", "c": "TOOL_NOT_STARTED"}
    assert [t for t, _ in added] == [
        "tool/result",
        "tool/result",
        "approval/decided",
        "step/end",
        "turn/end",
        "session/repaired",
    ]
    decided = added[2][1]
    assert decided == {"id": "approval-c", "outcome": "cancelled", "interrupted": True}
    assert added[4][1]["reason"] == "interrupted"
    summary = added[5][1]
    assert summary["calls"] == (
        {"call_id": "b", "code": "TOOL_OUTCOME_UNKNOWN"},
        {"call_id": "c", "code": "TOOL_NOT_STARTED"},
    )
    unknown = next(d for t, d in added if t == "tool/result" and d["call_id"] == "b")
    assert "idempotent" in unknown["content"]
    assert "external state" in unknown["content"]


@pytest.mark.parametrize(
    ("declared", "advice"),
    [
        ({"effect": "read-only", "idempotent": False}, "The tool is read-only: it may be retried."),
        ({"effect": "write", "idempotent": True}, "retry it with the same idempotency key"),
        ({"effect": "write", "idempotent": False}, "do not retry it blindly"),
    ],
)
def test_the_advice_for_an_unknown_outcome_follows_what_the_tool_declared(
    declared: dict[str, Any], advice: str
) -> None:
    """design.md §10: the dispatch record says what the tool declared; repair advises from it."""
    steps = [
        (kind, {**data, **declared} if kind == "tool/dispatch" and data["call_id"] == "b" else data)
        for kind, data in OPEN_STEP
    ]
    fixed = repaired(prefix_of(*steps))
    unknown = next(r.data for r in fixed if r.type == "tool/result" and r.data["call_id"] == "b")
    assert unknown["error"]["code"] == "TOOL_OUTCOME_UNKNOWN"
    assert advice in unknown["error"]["message"]


def test_without_barriers_every_unfinished_call_is_unknown() -> None:
    fixed = repaired(prefix_of(*OPEN_STEP), barriers=False)
    codes = {
        r.data["call_id"]: r.data["error"]["code"]
        for r in fixed
        if r.type == "tool/result" and r.data["is_error"]
    }
    assert codes == {"b": "TOOL_OUTCOME_UNKNOWN", "c": "TOOL_OUTCOME_UNKNOWN"}


def test_a_closed_log_needs_no_repair() -> None:
    records = prefix_of(
        ("turn/start", {"turn": 1}), ("turn/end", {"turn": 1, "reason": "completed"})
    )
    header = SessionHeader("s", 1, "/", {}, {"barriers": True})
    assert plan_repair(header, records) is None
    assert plan_repair(header, []) is None
