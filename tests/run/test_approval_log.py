"""The approval service writes through its narrow log port, never a live session (design.md §5.6).

The log here is the port and nothing more (:class:`~seamhost.approval.service.ApprovalLog`): a
plain list of events with a seq counter. That the service runs on it is the point: it needs the
question's seq, the policy in force, an append and a flush, and no session at all.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import attrs

from seamhost.approval.request import Answerers, ApprovalOutcome, ApprovalRequest
from seamhost.approval.service import ApprovalDecision, ApprovalService, set_policy
from seamhost.jsonvalue import digest, freeze
from seamhost.sandbox.policy import SandboxMode
from seamhost.session.events import Event
from seamhost.session.record import Record
from seamhost.tool.call import ToolInvocation
from seamhost.tool.declaration import RegisteredTool, ToolSpec


class ListLog:
    """An :class:`ApprovalLog` that keeps the events it is given, and counts its flushes."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.flushes = 0
        self.policy: Record | None = None

    @property
    def next_seq(self) -> int:
        return len(self.events)

    def last(self, type_: str) -> Record | None:
        return self.policy if type_ == "approval/policy" else None

    def append(self, event: Event) -> Record:
        self.events.append(event)
        record = Record(len(self.events) - 1, event.TYPE, 0, plain=attrs.asdict(event))
        if event.TYPE == "approval/policy":
            self.policy = record
        return record

    async def flush(self) -> None:
        self.flushes += 1


@attrs.frozen
class Answer:
    answer: ApprovalOutcome | None
    plugin: str | None
    notes: tuple[str, ...] = ()


def answering(outcome: ApprovalOutcome, asked: list[ApprovalRequest]) -> Answerers:
    async def ask(request: ApprovalRequest) -> Answer:
        asked.append(request)
        return Answer(outcome, "judge")

    return Answerers(("judge",), ask)


def invocation() -> ToolInvocation:
    async def body(ctx: Any) -> Any:
        raise AssertionError("an approval never runs the body")

    spec = ToolSpec("write", "writes", {"type": "object"}, {}, "write", False, body)
    arguments = {"path": "a"}
    return ToolInvocation(
        "session-1",
        1,
        1,
        "call-1",
        RegisteredTool.of(spec, "probe"),
        freeze(arguments),
        digest(arguments),
        Path("/workspace"),
        SandboxMode.READ_ONLY,
    )


def ask(
    service: ApprovalService, log: ListLog, outcome: ApprovalOutcome
) -> tuple[ApprovalDecision, list[ApprovalRequest]]:
    asked: list[ApprovalRequest] = []
    decision = asyncio.run(
        service.request(answering(outcome, asked), log, invocation(), "why", turn_open=True)
    )
    return decision, asked


def test_an_answer_is_recorded_as_its_audit_pair_in_the_log() -> None:
    log = ListLog()
    decision, asked = ask(ApprovalService(), log, ApprovalOutcome.ALLOWED_ONCE)
    assert decision.allowed
    assert [event.TYPE for event in log.events] == ["approval/asked", "approval/decided"]
    assert decision.id.startswith("approval-call-1-0-")
    # The question names the call's own session: the service never asks the log for one.
    assert [(r.id, r.session_id, r.call_id) for r in asked] == [
        (decision.id, "session-1", "call-1")
    ]
    assert log.flushes == 0  # an answer is appended; the pipeline's checkpoint makes it durable


def test_a_deferral_is_appended_and_flushed_through_the_log() -> None:
    log = ListLog()
    decision, _ = ask(ApprovalService(defer_ttl=60), log, ApprovalOutcome.DEFERRED)
    assert decision.outcome is ApprovalOutcome.DEFERRED
    assert [event.TYPE for event in log.events] == ["approval/asked", "approval/deferred"]
    assert log.flushes == 1


def test_the_policy_in_force_is_read_from_the_log() -> None:
    log = ListLog()
    set_policy(log, "never", "the test")
    decision, asked = ask(ApprovalService(), log, ApprovalOutcome.ALLOWED_ONCE)
    assert decision.outcome is ApprovalOutcome.UNAVAILABLE
    assert asked == []  # refused before any answerer ran
    assert decision.id.startswith("approval-call-1-1-")  # after the policy's record
