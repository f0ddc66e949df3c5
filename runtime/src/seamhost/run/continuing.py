"""Continuing a crashed turn on a new owner (design.md §6, "Continue").

:func:`continue_open_turn` takes the plan :mod:`seamhost.session.continuation` read and drives
the open turn to its end, in the same turn, with the same call ids:

1. no step open: the next step's request follows, as any step's would (unless the last step's
   answer proposed no call: the turn had its answer, and only its end is written);
2. the open step has no durable ``assistant/message``: its request is issued again as the next
   attempt (the open one was closed ``interrupted`` by the takeover);
3. the open step's calls without a result:

   * **in flight** (dispatch durable): a tool that is read-only or idempotent, with retries
     left (``[limits] tool_retries``), is dispatched again as ``attempt + 1`` under the same
     idempotency key, after a ``tool/attempt/failed`` saying why. Any other gets its
     ``TOOL_OUTCOME_UNKNOWN`` result; status probes are asked (:mod:`seamhost.run.probing`);
     what they cannot resolve goes to ``[recovery] on_unknown``: ``report`` goes on (the
     result tells the model plainly), ``park`` appends ``turn/parked`` and the run ends
     ``parked`` until ``session reconcile`` resolves it, ``fail`` ends the turn with that
     error (the calls that never started get ``TOOL_NOT_STARTED``);
   * **not started**: governed again in model order (guards and sandbox readiness asked
     again), except that an ``allowed-once`` decided durably for that exact call and digest
     and never consumed still stands for its approval; then dispatched once.

   Then the step ends and the next steps run. The budgets are the log's (:class:`Budget`
   follows every record from the start), so a re-issued request or a re-dispatch finds what
   the turn used before the crash; the turn's deadline counts from its original
   ``turn/start``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from seamhost.errors import ErrorCode, describe
from seamhost.llm.adapter import ToolCallProposal
from seamhost.run.probing import probe_unknowns
from seamhost.run.turn_outcome import TurnOutcome
from seamhost.session.events import (
    StepEnd,
    ToolAttemptFailed,
    ToolCall,
    ToolError,
    ToolResultEvent,
    TurnEnd,
    TurnParked,
)
from seamhost.session.repair import NOT_STARTED_ADVICE, UNKNOWN_ADVICE, unknown_advice
from seamhost.session.suspension import Suspension

if TYPE_CHECKING:
    import asyncio
    from pathlib import Path

    from seamhost.kernel.bundle import Bundle
    from seamhost.run.pipeline import ToolPipeline
    from seamhost.session.continuation import ContinuationPlan, PendingCall
    from seamhost.session.live import Session
    from seamhost.session.record import Record

ON_UNKNOWN = ("report", "park", "fail")


class TurnDriver(Protocol):
    """What a continuation needs of the agent (:class:`seamhost.run.agent.Agent`) it drives."""

    bundle: Bundle
    session: Session
    workspace: Path
    pipeline: ToolPipeline
    cancelled: asyncio.Event

    async def run_steps(
        self, turn: int, step: int, open_step: list[int], *, reissue: int | None = None
    ) -> TurnOutcome: ...

    def close_turn(
        self, turn: int, step: int, open_step: list[int], reason: str, message: str | None
    ) -> TurnOutcome: ...

    def suspended_turn(self, turn: int, step: int, approval: str) -> TurnOutcome: ...


async def continue_open_turn(agent: TurnDriver, plan: ContinuationPlan) -> TurnOutcome:
    """Drive the open turn of `plan` to its end (or to a park); see the module docstring."""
    turn, step = plan.turn, plan.step
    if plan.final and not plan.calls:  # the answer was in: only its step/end, turn/end were lost
        return agent.close_turn(
            turn, plan.last_step, [] if step is None else [step], "completed", None
        )
    if step is None:
        return await agent.run_steps(turn, plan.last_step, [])
    if not plan.answered:
        return await agent.run_steps(turn, step - 1, [], reissue=plan.next_attempt)
    session, bundle = agent.session, agent.bundle
    pipeline = agent.pipeline
    policy = on_unknown(agent)
    again: list[PendingCall] = []  # dispatched again, or for the first time, in model order
    unknown: list[str] = []
    for call in plan.calls:
        if call.state == "not-started":
            again.append(call)
            continue
        tool = bundle.tools.get(call.name)
        if tool is not None and tool.spec.retry_safe and call.attempt <= pipeline.tool_retries:
            error = ToolError(ErrorCode.TOOL_OUTCOME_UNKNOWN, UNKNOWN_ADVICE.strip())
            session.append(ToolAttemptFailed(call.call_id, call.attempt, error))
            pipeline.next_attempts[call.call_id] = call.attempt + 1
            again.append(call)
            continue
        session.append(unknown_result(turn, step, call))
        unknown.append(call.call_id)
    mark = len(session.records)
    if unknown or plan.unreconciled:
        await probe_unknowns(bundle, session, agent.workspace, cancelled=agent.cancelled)
    still = unresolved(session.records[mark:], [*plan.unreconciled, *unknown])
    if still and policy == "park":
        reason = f"{ErrorCode.TOOL_OUTCOME_UNKNOWN}: awaits reconciliation of {', '.join(still)}"
        session.append(TurnParked(turn, step, tuple(still), reason))
        return TurnOutcome(turn, "parked", step, reason)
    if still and policy == "fail":
        for call in again:
            session.append(not_started_result(turn, step, call))
        message = f"{ErrorCode.TOOL_OUTCOME_UNKNOWN}: the outcome of {', '.join(still)} is unknown"
        session.append(StepEnd(turn=turn, step=step))
        session.append(TurnEnd(turn=turn, reason="error", message=message))
        return TurnOutcome(turn, "error", step, message)
    if again:
        try:
            await _dispatch_again(agent, plan, again)
        except Exception as exc:
            return agent.close_turn(turn, step, [step], "error", describe(exc))
        if pipeline.suspended is not None:
            return agent.suspended_turn(turn, step, pipeline.suspended)
    session.append(StepEnd(turn=turn, step=step))
    return await agent.run_steps(turn, step, [])


async def _dispatch_again(
    agent: TurnDriver, plan: ContinuationPlan, calls: list[PendingCall]
) -> None:
    """Govern and dispatch `calls` of the open step, in model order, through the pipeline."""
    turn, step = plan.turn, plan.step
    assert step is not None
    pipeline = agent.pipeline
    tools = agent.bundle.tools
    proposals = []
    for call in calls:
        if not call.intent:  # the crash came between the assistant message and the intent
            tool = tools.get(call.name)
            digest = tool.digest if tool is not None else None
            agent.session.append(
                ToolCall(turn, step, call.call_id, call.name, call.arguments, digest)
            )
        proposals.append(
            ToolCallProposal(
                call.call_id,
                call.name,
                call.arguments,
                call.sandbox_permissions,
                call.justification,
            )
        )
        grant = plan.grant_for(call.call_id)
        if grant is not None and call.state == "not-started":
            pipeline.carried[call.call_id] = Suspension(
                turn=turn,
                step=step,
                approval_id=grant.approval_id,
                call_id=call.call_id,
                tool=call.name,
                reason="",
                args_digest=grant.args_digest,
                escalation=grant.escalation,
                deferred_at=plan.turn_started,
                expires=None,  # a question asked live has no expiry; a deferred one parks
                decision=grant.decision,
                calls=(),
                index=call.index,
            )
    await pipeline.run_calls(turn, step, proposals, agent.cancelled, None)


def on_unknown(agent: TurnDriver) -> str:
    """The ``[recovery] on_unknown`` policy the session recorded, else the profile's."""
    recorded = agent.session.header.bundle.get("recovery")
    if recorded is not None and recorded.get("on_unknown") in ON_UNKNOWN:
        return str(recorded["on_unknown"])
    return agent.bundle.profile.recovery.on_unknown


def unresolved(probed: Sequence[Record], call_ids: list[str]) -> list[str]:
    """Those of `call_ids` the probe pass that appended `probed` did not reconcile."""
    done = {str(r.data["call_id"]) for r in probed if r.type == "tool/reconciled"}
    return [c for c in dict.fromkeys(call_ids) if c not in done]


def unknown_result(turn: int, step: int, call: PendingCall) -> ToolResultEvent:
    """The ``TOOL_OUTCOME_UNKNOWN`` result of a call the crash left in flight."""
    advice = UNKNOWN_ADVICE + unknown_advice(call.effect, call.idempotent)
    error = ToolError(ErrorCode.TOOL_OUTCOME_UNKNOWN, advice)
    content = f"{ErrorCode.TOOL_OUTCOME_UNKNOWN}: {advice}"
    meta = {"continued": True, "attempt": call.attempt}
    return ToolResultEvent(turn, step, call.call_id, True, content, error, None, meta)


def not_started_result(turn: int, step: int, call: PendingCall) -> ToolResultEvent:
    """The ``TOOL_NOT_STARTED`` result of a call left undispatched by a turn that fails."""
    error = ToolError(ErrorCode.TOOL_NOT_STARTED, NOT_STARTED_ADVICE)
    content = f"{ErrorCode.TOOL_NOT_STARTED}: {NOT_STARTED_ADVICE}"
    return ToolResultEvent(turn, step, call.call_id, True, content, error, None, None)


__all__ = ["ON_UNKNOWN", "TurnDriver", "continue_open_turn", "on_unknown"]
