"""The callback answerer and the API an embedding application registers it through."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from seamhost_user_approval import CallbackRefused, set_callback

from seamhost.approval.request import ApprovalOutcome, ApprovalRequest
from seamhost.errors import ErrorCode
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.sandbox.policy import SandboxMode
from tests.user_approval.conftest import BenchMaker, probe

CALLBACK_ONLY = 'answerers = ["callback"]'


def test_a_bundle_without_user_approval_refuses_a_callback(tmp_path: Path) -> None:
    profile = tmp_path / "bare.toml"
    profile.write_text('[profile]\nname = "bare"\n[plugins.tools]\n')
    bundle = build_bundle(resolve_profile(str(profile)))
    with pytest.raises(CallbackRefused, match=r"add \[plugins\.user-approval\]"):
        set_callback(bundle, lambda request: ApprovalOutcome.ALLOWED_ONCE)


def test_a_profile_that_does_not_list_the_callback_refuses_one(make_bench: BenchMaker) -> None:
    bench = make_bench('answerers = ["rules", "tty"]')
    with pytest.raises(CallbackRefused, match='add "callback" to'):
        set_callback(bench.bundle, lambda request: ApprovalOutcome.ALLOWED_ONCE)


def test_an_async_callback_sees_the_request_and_decides(make_bench: BenchMaker) -> None:
    bench = make_bench(CALLBACK_ONLY)
    seen: list[ApprovalRequest] = []

    async def decide(request: ApprovalRequest) -> ApprovalOutcome:
        seen.append(request)
        await asyncio.sleep(0)
        return ApprovalOutcome.ALLOWED_ONCE

    set_callback(bench.bundle, decide)
    [result] = bench.run(
        probe("c1", ("danger-full-access", "needs it"), path="release/VERSION", n=3)
    )
    assert result.error is None
    [request] = seen
    [asked] = bench.records("approval/asked")
    assert (request.id, request.call_id, request.tool) == (asked["id"], "c1", "probe")
    assert request.args_digest == asked["args_digest"]
    assert dict(request.arguments) == {"path": "release/VERSION", "n": 3}
    assert request.sandbox_mode is SandboxMode.WORKSPACE_WRITE
    assert request.escalation is SandboxMode.DANGER_FULL_ACCESS
    assert request.justification == "needs it"
    [decided] = bench.records("approval/decided")
    assert decided["message"] == "allowed-once by user-approval: callback: allowed-once"


def test_a_plain_function_works_too(make_bench: BenchMaker) -> None:
    bench = make_bench(CALLBACK_ONLY)
    set_callback(bench.bundle, lambda request: ApprovalOutcome.REJECTED)
    [result] = bench.run(probe())
    assert result.error is not None
    assert result.error.code == ErrorCode.APPROVAL_REJECTED


def test_without_a_callback_nothing_answers(make_bench: BenchMaker) -> None:
    bench = make_bench(CALLBACK_ONLY)
    set_callback(bench.bundle, lambda request: ApprovalOutcome.ALLOWED_ONCE)
    set_callback(bench.bundle, None)
    [result] = bench.run(probe())
    assert result.error is not None
    assert result.error.code == ErrorCode.APPROVAL_UNAVAILABLE
    assert "callback: none is registered (seamhost_user_approval.set_callback)" in (
        result.error.message
    )
    assert bench.runs == []


def boom(request: ApprovalRequest) -> ApprovalOutcome:
    raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("callback", "problem"),
    [
        (boom, "the callback answerer failed: the function raised RuntimeError: boom"),
        (lambda r: "allowed-once", "answered 'allowed-once', outside the vocabulary"),
        (lambda r: True, "answered True, outside the vocabulary"),
    ],
    ids=["raises", "a-string", "a-bool"],
)
def test_a_failing_callback_is_unavailable_and_stops_the_chain(
    make_bench: BenchMaker, callback: object, problem: str
) -> None:
    bench = make_bench(CALLBACK_ONLY, fallback=True)
    set_callback(bench.bundle, callback)  # type: ignore[arg-type]
    [result] = bench.run(probe())
    assert result.error is not None
    assert result.error.code == ErrorCode.APPROVAL_UNAVAILABLE
    assert problem in result.error.message
    assert bench.fallback_asked == [], "a broken answerer must not let a later one decide"
    assert bench.runs == []


def test_a_slow_callback_times_out_as_unavailable(make_bench: BenchMaker) -> None:
    bench = make_bench(CALLBACK_ONLY + "\ncallback_timeout_seconds = 0.2")

    async def ponder(request: ApprovalRequest) -> ApprovalOutcome:
        await asyncio.sleep(60)
        return ApprovalOutcome.ALLOWED_ONCE

    set_callback(bench.bundle, ponder)
    [result] = bench.run(probe())
    assert result.error is not None
    assert result.error.code == ErrorCode.APPROVAL_UNAVAILABLE
    assert "gave no answer within 0.2s" in result.error.message
    assert "callback_timeout_seconds" in result.error.message
    assert bench.runs == []
