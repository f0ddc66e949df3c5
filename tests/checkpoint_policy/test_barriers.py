"""checkpoint-policy's three barriers and the agent's fourth, on a real session (design.md §6).

A flush recorder (a ``session/flush`` implementation) notes what the log holds at every flush;
a probe tool notes what had been flushed when its body started. The barriers: before each step
(``agent/pre-step``), before the model request is consumed (``llm/stream``), and before the
outermost tool body (``tools/execute``); and the agent's, in a bundle with the plugin: once the
model's answer is appended, before any of its calls is governed. Without the plugin, the header
says the session has no barriers and no body waits for a flush.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from seamhost.kernel.bundle import Bundle
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session
from tests.conftest import BundleMaker, plugin_source, plugin_state

RECORDER = """
flushes = []
bodies = []
@hookimpl
async def session_flush(self, session):
    Plugin.flushes.append([r.type for r in session.records])
@hookimpl
def tools_register(self, register):
    async def body(ctx):
        flushed = Plugin.flushes[-1] if Plugin.flushes else []
        Plugin.bodies.append((ctx.call_id, flushed.count("tool/dispatch")))
        return ToolOutput("ok")
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    register(ToolSpec("probe", "notes the flushes", schema, {}, "write", False,
                      body))
"""

SCENARIO = """
[[turn]]
user = "go"
[[turn.step]]
text = "first"
[[turn.step.call]]
tool = "probe"
[[turn.step]]
text = "second"
[[turn.step.call]]
tool = "probe"
[[turn.step]]
text = "done"
"""


def bundle_with(make_bundle: BundleMaker, tmp_path: Path, *, barriers: bool) -> Bundle:
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO)
    tables = f'[plugins.model-scripted]\nscenario = "{scenario}"\n'
    if barriers:
        tables += "[plugins.checkpoint-policy]\n"
    source = plugin_source(RECORDER, name="recorder", provides='["session/flush"]')
    return make_bundle({"recorder": source}, profile=tables)


def run_turn(bundle: Bundle, tmp_path: Path) -> Agent:
    session = create_session(bundle)
    agent = Agent(bundle, session, workspace=tmp_path)
    outcome = asyncio.run(agent.run_turn("go"))
    assert outcome.reason == "completed"
    return agent


def test_a_flush_precedes_each_step_each_model_request_and_each_body(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = bundle_with(make_bundle, tmp_path, barriers=True)
    agent = run_turn(bundle, tmp_path)
    assert agent.session.header.durability["barriers"] is True
    state = plugin_state(bundle, "recorder")
    # Each body started only after a flush that covered its own dispatch record.
    assert state.bodies == [("call-1-1-1", 1), ("call-1-2-1", 2)]
    # What the log ended with at each flush, step by step: before the step starts (agent/pre-step),
    # before its model request goes out (llm/stream, after the attempt's model/attempt record,
    # before the assistant message), once the answer is in (the agent's, before governance), and
    # before its body (tools/execute, after the call's dispatch record).
    assert [flushed[-1] for flushed in state.flushes] == [
        "user/message",  # step 1: pre-step
        "model/attempt",  # step 1: model request
        "assistant/message",  # step 1: the answer
        "tool/dispatch",  # step 1: body
        "step/end",  # step 2: pre-step
        "model/attempt",  # step 2: model request
        "assistant/message",  # step 2: the answer
        "tool/dispatch",  # step 2: body
        "step/end",  # step 3: pre-step
        "model/attempt",  # step 3: model request
        "assistant/message",  # step 3: the answer (it proposes no call)
    ]


def test_without_the_policy_no_body_waits_for_a_flush(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = bundle_with(make_bundle, tmp_path, barriers=False)
    agent = run_turn(bundle, tmp_path)
    assert agent.session.header.durability["barriers"] is False
    state = plugin_state(bundle, "recorder")
    assert state.flushes == []
    assert [count for _, count in state.bodies] == [0, 0]
