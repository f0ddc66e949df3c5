"""Model requests as attempts (design.md §12), with an adapter that fails as it is told.

The ``flaky-model`` adapter plays one behaviour per attempt from ``Plugin.plan`` (a class
attribute each test sets): ``ok`` answers text with usage, ``call`` proposes one tool call,
``retry`` raises a retryable rate limit, ``refuse`` a non-retryable failure, ``no-end`` ends
without its terminal event, ``after-end`` yields after it, ``bug`` raises a plain exception, and
``hang`` never answers.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from seamhost.kernel.bundle import Bundle
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session
from seamhost.session.repair import plan_repair
from tests.conftest import BundleMaker, plugin_source, plugin_state

ADAPTER = """
plan = []
requests = []
name = "flaky"
identity = {"plugin": "flaky-model", "model": "flaky-1"}
max_attempts = 3
@hookimpl
def llm_adapter(self):
    return self
async def stream(self, request):
    import asyncio
    Plugin.requests.append((request.turn, request.step))
    mode = Plugin.plan.pop(0) if Plugin.plan else "ok"
    if mode == "call":
        yield ToolCallProposal(f"c{len(Plugin.requests)}", "noop", "{}")
        yield ModelDone("tool_calls", Usage(10, 5))
        return
    yield TextDelta("partial ")
    if mode == "retry":
        raise ModelFailed("rate-limited", "slow down", retryable=True, retry_after=0.01)
    if mode == "refuse":
        raise ModelFailed("refused", "bad key")
    if mode == "bug":
        raise KeyError("choices")
    if mode == "hang":
        await asyncio.sleep(60)
    if mode == "no-end":
        return
    yield TextDelta("answer")
    yield ModelDone("end", Usage(100, 20, 30))
    if mode == "after-end":
        yield TextDelta("more")
@hookimpl
def tools_register(self, register):
    async def body(ctx):
        return ToolOutput("done")
    register(ToolSpec("noop", "does nothing", {"type": "object"}, {}, "read-only", True, body))
"""


def bundle_of(make_bundle: BundleMaker, limits: str = "") -> Bundle:
    source = plugin_source(ADAPTER, name="flaky-model", provides='["llm/adapter"]')
    return make_bundle({"flaky-model": source}, profile=f"[limits]\n{limits}" if limits else "")


def run(bundle: Bundle, tmp_path: Path, *plan: str, turns: int = 1) -> tuple[Any, list[Any]]:
    plugin_state(bundle, "flaky-model").plan = list(plan)
    session = create_session(bundle)
    agent = Agent(bundle, session, workspace=tmp_path)
    outcome = None
    for _ in range(turns):
        outcome = asyncio.run(agent.run_turn("go"))
    return outcome, list(session.records)


def kinds(records: list[Any], prefix: str = "model/") -> list[str]:
    return [r.type for r in records if r.type.startswith(prefix) or r.type == "assistant/message"]


def test_a_retryable_failure_is_a_new_attempt_and_no_partial_message(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    outcome, records = run(bundle_of(make_bundle), tmp_path, "retry", "ok")
    assert outcome.reason == "completed"
    assert kinds(records) == [
        "model/attempt",
        "model/failed",
        "model/attempt",
        "model/usage",
        "assistant/message",
    ]
    failed = next(r.data for r in records if r.type == "model/failed")
    assert (failed["attempt"], failed["code"], failed["retryable"]) == (1, "rate-limited", True)
    [message] = [r.data for r in records if r.type == "assistant/message"]
    assert message["content"] == "partial answer", "only the successful attempt's text"
    usage = next(r.data for r in records if r.type == "model/usage")
    assert (usage["attempt"], usage["input_tokens"], usage["cached_input_tokens"]) == (2, 100, 30)
    attempt = next(r.data for r in records if r.type == "model/attempt")
    assert attempt["model"] == "flaky-1"
    assert attempt["request_digest"].startswith("sha256:")


@pytest.mark.parametrize(
    ("plan", "code"),
    [
        (("refuse",), "refused"),
        (("no-end",), "incomplete"),
        (("after-end",), "malformed"),
        (("bug",), "malformed"),
    ],
)
def test_a_failed_attempt_that_is_not_retried_ends_the_turn_without_a_message(
    make_bundle: BundleMaker, tmp_path: Path, plan: tuple[str, ...], code: str
) -> None:
    outcome, records = run(bundle_of(make_bundle), tmp_path, *plan)
    assert outcome.reason == "error"
    assert outcome.message.startswith("MODEL_UNAVAILABLE")
    assert kinds(records) == ["model/attempt", "model/failed"]
    assert next(r.data["code"] for r in records if r.type == "model/failed") == code


def test_retries_stop_at_the_adapters_max_attempts(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    outcome, records = run(bundle_of(make_bundle), tmp_path, "retry", "retry", "retry", "ok")
    assert outcome.reason == "error"
    assert kinds(records).count("model/attempt") == 3
    assert "assistant/message" not in kinds(records)


def test_the_output_token_budget_is_summed_from_the_log(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = bundle_of(make_bundle, "max_output_tokens = 30\n")
    outcome, records = run(bundle, tmp_path, "ok", "ok", "ok", turns=3)
    assert outcome.reason == "error"
    assert outcome.message.startswith("BUDGET_EXCEEDED"), outcome.message
    assert kinds(records).count("model/attempt") == 2  # 20 tokens, then 40 ≥ 30: no third


def test_the_tool_call_budget_refuses_the_dispatch_and_ends_the_turn(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = bundle_of(make_bundle, "max_tool_calls = 1\n")
    outcome, records = run(bundle, tmp_path, "call", "call", "ok")
    results = [r.data for r in records if r.type == "tool/result"]
    assert [bool(r.get("error")) for r in results] == [False, True]
    assert results[1]["error"]["code"] == "BUDGET_EXCEEDED"
    assert [r.data["call_id"] for r in records if r.type == "tool/dispatch"] == ["c1"]
    assert outcome.reason == "error"
    assert outcome.message.startswith("BUDGET_EXCEEDED")


def test_the_turn_deadline_stops_a_hanging_request(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = bundle_of(make_bundle, "turn_deadline_s = 0.3\n")
    outcome, records = run(bundle, tmp_path, "hang")
    assert outcome.reason == "error"
    assert next(r.data["code"] for r in records if r.type == "model/failed") == "deadline"


def test_cancelling_the_turn_closes_the_open_request(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = bundle_of(make_bundle)
    plugin_state(bundle, "flaky-model").plan = ["hang"]
    session = create_session(bundle)
    agent = Agent(bundle, session, workspace=tmp_path)

    async def cancel_soon() -> Any:
        turn = asyncio.ensure_future(agent.run_turn("go"))
        await asyncio.sleep(0.2)
        agent.cancel()
        return await asyncio.wait_for(turn, 5)

    outcome = asyncio.run(cancel_soon())
    assert outcome.reason == "aborted"
    assert next(r.data["code"] for r in session.records if r.type == "model/failed") == (
        "cancelled"
    )


def test_repair_closes_an_interrupted_attempt(make_bundle: BundleMaker, tmp_path: Path) -> None:
    bundle = bundle_of(make_bundle)
    session = create_session(bundle)
    session.append_data("turn/start", {"turn": 1})
    session.append_data("user/message", {"turn": 1, "step": 0, "content": "go", "source": "u"})
    session.append_data("step/start", {"turn": 1, "step": 1})
    attempt = {"turn": 1, "step": 1, "attempt": 1, "model": "m", "request_digest": "sha256:0"}
    session.append_data("model/attempt", attempt)
    plan = plan_repair(session.header, session.records)
    assert plan is not None
    failed = [d for t, d in plan.events if t == "model/failed"]
    assert failed == [
        {
            "turn": 1,
            "step": 1,
            "attempt": 1,
            "code": "interrupted",
            "message": "the process stopped while this model request was open",
            "retryable": True,
        }
    ]
