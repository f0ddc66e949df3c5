"""``[limits] max_tool_calls_per_turn``: a turn's dispatches stop at the limit (issue 33, point 10).

``max_tool_calls`` counts the whole session; a model answering with thousands of calls in one
step ran every one of them (10,000 did). The per-turn limit refuses the calls past it with
``BUDGET_EXCEEDED`` (their bodies never run) and ends the turn; the next turn counts afresh.
The shipped profiles set it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session
from tests.conftest import BundleMaker, plugin_source, plugin_state

ADAPTER = """
plan = []
ran = 0
name = "many"
identity = {"plugin": "many-calls", "model": "many-1"}
max_attempts = 1
@hookimpl
def llm_adapter(self):
    return self
async def stream(self, request):
    calls = Plugin.plan.pop(0) if Plugin.plan else 0
    for n in range(calls):
        yield ToolCallProposal(f"t{request.turn}-s{request.step}-{n}", "count", "{}")
    yield ModelDone("tool_calls" if calls else "end")
@hookimpl
def tools_register(self, register):
    async def body(ctx):
        Plugin.ran += 1
        return ToolOutput("counted")
    register(ToolSpec("count", "counts", {"type": "object"}, {}, "read-only", False, body))
"""


def test_calls_past_the_turn_limit_are_refused_and_the_next_turn_counts_afresh(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    source = plugin_source(ADAPTER, name="many-calls", provides='["llm/adapter"]')
    bundle = make_bundle({"many-calls": source}, profile="[limits]\nmax_tool_calls_per_turn = 3\n")
    state = plugin_state(bundle, "many-calls")
    state.plan = [2, 2, 1, 0]  # turn 1: two steps of 2 calls (it ends there); turn 2: one
    session = create_session(bundle)
    agent = Agent(bundle, session, workspace=tmp_path)
    first = asyncio.run(agent.run_turn("go"))
    assert first.reason == "error"
    assert first.message is not None
    assert "max_tool_calls_per_turn" in first.message
    results = [r.data for r in session.records if r.type == "tool/result"]
    codes = [r["error"]["code"] if r.get("error") else "ok" for r in results]
    assert codes == ["ok", "ok", "ok", "BUDGET_EXCEEDED"]
    assert state.ran == 3
    second = asyncio.run(agent.run_turn("again"))
    assert second.reason == "completed", second
    assert state.ran == 4


@pytest.mark.parametrize(
    "name", ["default", "strict", "ci", "minimal", "openai", "anthropic", "postgres"]
)
def test_shipped_profiles_cap_a_turns_calls(name: str) -> None:
    environ = {"OPENAI_API_KEY": "x", "ANTHROPIC_API_KEY": "x", "SEAMHOST_POSTGRES_DSN": "x"}
    assert resolve_profile(name, environ=environ).limits.max_tool_calls_per_turn == 256
