"""What the model is shown (design.md §12): escalation fields and the sandbox notice.

The ``seer`` adapter records every request it gets and proposes the calls a test gives it, as a
real model would: the escalation inside the arguments.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from seamhost.kernel.bundle import Bundle
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session
from tests.conftest import BundleMaker, plugin_source, plugin_state

SEER = """
seen = []
calls = []
name = "seer"
@hookimpl
def llm_adapter(self):
    return self
async def stream(self, request):
    Plugin.seen.append(request)
    if len(Plugin.seen) == 1:
        for index, (tool, args) in enumerate(Plugin.calls):
            yield ToolCallProposal(f"c{index}", tool, args)
    yield ModelDone()
@hookimpl
def tools_register(self, register):
    async def body(ctx):
        return ToolOutput("done")
    schema = {"type": "object", "properties": {"x": {"type": "integer"}},
              "additionalProperties": False}
    register(ToolSpec("put", "writes", schema, {}, "write", False, body))
    register(ToolSpec("get", "reads", schema, {}, "read-only", True, body))
"""


def bundle_of(make_bundle: BundleMaker) -> Bundle:
    source = plugin_source(SEER, name="seer", provides='["llm/adapter"]')
    return make_bundle({"seer": source}, profile='[sandbox]\nmode = "workspace-write"\n')


def turn(bundle: Bundle, tmp_path: Path, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    plugin_state(bundle, "seer").calls = [(tool, json.dumps(args)) for tool, args in calls]
    session = create_session(bundle)
    asyncio.run(Agent(bundle, session, workspace=tmp_path).run_turn("go"))
    return [r.data for r in session.records if r.type == "tool/result"]


def test_escalating_tools_offer_the_fields_and_the_model_is_told_its_sandbox(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = bundle_of(make_bundle)
    turn(bundle, tmp_path)
    [request] = plugin_state(bundle, "seer").seen
    tools = {t["name"]: t["input_schema"]["properties"] for t in request.tools}
    assert {"sandbox_permissions", "justification"} <= set(tools["put"])
    assert "sandbox_permissions" not in tools["get"], "a read-only tool has nothing to widen"
    notices = [m["content"] for m in request.messages if m["role"] == "context"]
    assert any("`workspace-write`" in n and "sandbox_permissions" in n for n in notices)


def test_an_escalation_inside_the_arguments_is_asked_for_not_invalid(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = bundle_of(make_bundle)
    wider = {"x": 1, "sandbox_permissions": "danger-full-access", "justification": "needs /etc"}
    results = turn(bundle, tmp_path, ("put", wider), ("get", wider), ("put", {"x": 2}))
    codes = [(r.get("error") or {}).get("code") for r in results]
    # No answerer in this bundle: the escalation is asked for, so it is unavailable; the
    # read-only tool was never offered the fields, so they are invalid arguments there.
    assert codes == ["APPROVAL_UNAVAILABLE", "INVALID_ARGUMENTS", None]
