"""checkpoint-policy's refusals before a body: each ends the call, and the body never runs."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from seamhost_checkpoint_policy import CheckpointPolicy

from seamhost import ToolResult
from seamhost.errors import LeaseLost


class Session:
    def __init__(self, error: Exception | None) -> None:
        self.error = error

    async def flush(self) -> None:
        if self.error is not None:
            raise self.error


def execute(error: Exception | None, *, cancelled: bool = False) -> tuple[ToolResult, list[str]]:
    ran: list[str] = []

    async def body(execution: Any) -> ToolResult:
        ran.append(execution.invocation.call_id)
        return ToolResult("c-1", "ran")

    event = asyncio.Event()
    if cancelled:
        event.set()
    execution = SimpleNamespace(
        invocation=SimpleNamespace(call_id="c-1"),
        session=Session(error),
        parent=None,
        cancelled=event,
    )
    policy = CheckpointPolicy(SimpleNamespace(name="checkpoint-policy"))  # type: ignore[arg-type]
    result = asyncio.run(policy.tools_execute(execution, body))  # type: ignore[arg-type]
    return result, ran


@pytest.mark.parametrize(
    ("error", "code", "words"),
    [
        (OSError("disk gone"), "CHECKPOINT_FAILED", "could not be made durable"),
        (LeaseLost("s-1"), "LEASE_LOST", "another writer took the session over"),
        (RuntimeError("wrapped"), "CHECKPOINT_FAILED", "wrapped"),
    ],
)
def test_a_checkpoint_that_fails_refuses_the_call(error: Exception, code: str, words: str) -> None:
    result, ran = execute(error)
    assert result.error is not None
    assert result.error.code == code
    assert words in result.content
    assert "the tool did not run" in result.content
    assert result.call_id == "c-1"
    assert ran == []


def test_a_lease_lost_behind_a_seam_failure_is_still_lease_lost() -> None:
    wrapped = RuntimeError("session/flush failed")
    wrapped.__cause__ = LeaseLost("s-1")
    result, ran = execute(wrapped)
    assert result.error is not None
    assert result.error.code == "LEASE_LOST"
    assert ran == []


def test_a_cancellation_during_the_checkpoint_aborts_before_dispatch() -> None:
    result, ran = execute(None, cancelled=True)
    assert result.error is not None
    assert result.error.code == "ABORTED_BEFORE_DISPATCH"
    assert ran == []


def test_a_durable_checkpoint_runs_the_body() -> None:
    result, ran = execute(None)
    assert result.content == "ran"
    assert ran == ["c-1"]
