"""Repair of a crashed tail (design.md §6): close what the dead writer left open, never guess.

Repair runs on a cold session (no live writer) whose last turn is open. From the durable prefix
alone it appends, in this order:

1. for each call of the open step without a ``tool/result``, in model order, an error result:
   ``TOOL_OUTCOME_UNKNOWN`` when its ``tool/dispatch`` record is present (the body may have run),
   ``TOOL_NOT_STARTED`` when it is absent (it never started). A session written without barriers
   (its header says so) gets ``TOOL_OUTCOME_UNKNOWN`` for every unfinished call: without a
   checkpoint, a missing dispatch record proves nothing;
2. ``model/failed`` (``interrupted``) for a model attempt left open (no usage, failure or
   message after it), then ``approval/decided`` (``cancelled``, ``interrupted: true``) for every
   ``approval/asked`` of the turn without a decision;
3. ``step/end`` if a step is open, then ``turn/end {interrupted}``;
4. ``session/repaired``, summarising what was closed and how many torn records were recovered.

Seq continues; every appended record reuses the time of the last real record (no time is
invented). Repair never re-runs a tool, never adds a result to a call that has one, and never
marks an unknown outcome as known. Repairing a repaired log changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.errors import ErrorCode
from seamhost.session.suspension import find_parking, find_suspension, last_open

if TYPE_CHECKING:
    from seamhost.session.live import Session
    from seamhost.session.record import Record
    from seamhost.session.store import SessionHeader

NOT_STARTED_ADVICE = (
    "the process stopped before this call was dispatched: it never started. "
    "It may be retried if it is still needed."
)
UNKNOWN_ADVICE = (
    "the process stopped after this call was dispatched and before its result was recorded: "
    "it may or may not have taken effect. "
)
RETRY_ADVICE = {
    "read-only": "The tool is read-only: it may be retried.",
    "idempotent": "The tool is idempotent: retry it with the same idempotency key "
    "(<session id>:<call id>), or reconcile it (`seamhost session reconcile`).",
    "write": "The tool is neither read-only nor idempotent: do not retry it blindly; check the "
    "external system (the idempotency key is <session id>:<call id>), then reconcile it "
    "(`seamhost session reconcile`) or ask the user.",
    None: "Retry it only if it is read-only or idempotent; otherwise check the external state "
    "(the idempotency key is <session id>:<call id>) or ask the user.",
}


def unknown_advice(effect: str | None, idempotent: bool | None) -> str:
    """What to do about an unknown outcome of a tool with this declared effect and idempotency.

    ``None`` for both (a log written before dispatch records carried them) gives general advice.
    """
    key = effect
    if effect == "write" and idempotent:
        key = "idempotent"
    return RETRY_ADVICE[key]


UNKNOWN_NO_BARRIERS = (
    "the session was written without checkpoint barriers, so the log cannot tell whether this "
    "call started. "
)


@attrs.frozen
class ClosedCall:
    """A call repair closes, and how."""

    call_id: str
    name: str
    code: ErrorCode
    effect: str | None = None  # as the call's last dispatch record declared it
    idempotent: bool | None = None


@attrs.frozen
class RepairPlan:
    """What repair would append to a session, as (type, data) pairs in order."""

    turn: int
    step: int | None
    calls: tuple[ClosedCall, ...]
    approvals: tuple[str, ...]
    events: tuple[tuple[str, dict[str, Any]], ...]
    time: int

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "step": self.step,
            "calls": [
                {"call_id": c.call_id, "name": c.name, "code": str(c.code)} for c in self.calls
            ],
            "approvals": list(self.approvals),
            "events": [{"type": t, "data": d} for t, d in self.events],
        }


def open_turn(records: Sequence[Record]) -> int | None:
    """The number of the last turn if it has no ``turn/end``, else ``None``."""
    start = last_open(records, "turn/start", "turn/end")
    return int(records[start].data["turn"]) if start is not None else None


def plan_repair(
    header: SessionHeader, records: Sequence[Record], *, torn_records: int = 0
) -> RepairPlan | None:
    """What repair appends to `records`, or ``None`` when the last turn is closed or parked.

    A turn parked on a deferred approval or on reconciliation is not a crash tail
    (:mod:`seamhost.session.suspension`): it is left open for ``--resume``.
    """
    start = last_open(records, "turn/start", "turn/end")  # from the end: resume reads no more
    if start is None or find_suspension(records) is not None or find_parking(records):
        return None
    turn = int(records[start].data["turn"])
    tail = records[start:]
    step = _open_step(tail)
    calls = _unfinished_calls(tail, step, barriers=header.barriers)
    approvals = _undecided_approvals(tail)
    events: list[tuple[str, dict[str, Any]]] = []
    for call in calls:
        advice = NOT_STARTED_ADVICE
        if call.code is ErrorCode.TOOL_OUTCOME_UNKNOWN:
            advice = UNKNOWN_ADVICE + unknown_advice(call.effect, call.idempotent)
            if not header.barriers:
                advice = UNKNOWN_NO_BARRIERS + advice
        events.append(
            (
                "tool/result",
                {
                    "turn": turn,
                    "step": step or 0,
                    "call_id": call.call_id,
                    "is_error": True,
                    "content": f"{call.code}: {advice}",
                    "error": {"code": str(call.code), "message": advice},
                    "meta": {"repaired": True},
                },
            )
        )
    for attempt in _open_model_attempts(tail):
        events.append(
            (
                "model/failed",
                {
                    **attempt,
                    "code": "interrupted",
                    "message": "the process stopped while this model request was open",
                    "retryable": True,
                },
            )
        )
    for approval in approvals:
        events.append(
            ("approval/decided", {"id": approval, "outcome": "cancelled", "interrupted": True})
        )
    if step is not None:
        events.append(("step/end", {"turn": turn, "step": step}))
    events.append(
        ("turn/end", {"turn": turn, "reason": "interrupted", "message": "closed by repair"})
    )
    events.append(
        (
            "session/repaired",
            {
                "turn": turn,
                "calls": [{"call_id": c.call_id, "code": str(c.code)} for c in calls],
                "approvals": list(approvals),
                "torn_records": torn_records,
            },
        )
    )
    return RepairPlan(turn, step, calls, approvals, tuple(events), records[-1].time)


def apply_repair(session: Session) -> RepairPlan | None:
    """Append the repair of `session`'s open tail (not flushed); ``None`` when nothing is open.

    The torn records counted are those the session's writer recovered when it opened the log.
    """
    plan = plan_repair(session.header, session.records, torn_records=session.writer.torn_records)
    if plan is not None:
        for type_, data in plan.events:
            session.append_data(type_, data, time=plan.time)
    return plan


def _open_step(tail: Sequence[Record]) -> int | None:
    start = last_open(tail, "step/start", "step/end")
    return int(tail[start].data["step"]) if start is not None else None


def _unfinished_calls(
    tail: Sequence[Record], step: int | None, *, barriers: bool
) -> tuple[ClosedCall, ...]:
    if step is None:
        return ()
    proposed: list[tuple[str, str]] = []
    finished: set[str] = set()
    dispatched: dict[str, Any] = {}
    for record in _in_step(tail, step):
        data = record.data
        if record.type == "assistant/message":
            proposed = [(c["call_id"], c["name"]) for c in data.get("tool_calls", ())]
        elif record.type == "tool/call" and data["call_id"] not in {c for c, _ in proposed}:
            proposed.append((data["call_id"], data["name"]))
        elif record.type == "tool/dispatch":
            dispatched[data["call_id"]] = data
        elif record.type == "tool/result":
            finished.add(data["call_id"])
    closed = []
    for call_id, name in proposed:
        if call_id in finished:
            continue
        started = call_id in dispatched or not barriers
        code = ErrorCode.TOOL_OUTCOME_UNKNOWN if started else ErrorCode.TOOL_NOT_STARTED
        dispatch = dispatched.get(call_id, {})
        effect, idempotent = dispatch.get("effect"), dispatch.get("idempotent")
        closed.append(ClosedCall(call_id, name, code, effect, idempotent))
    return tuple(closed)


def _in_step(tail: Sequence[Record], step: int) -> Iterable[Record]:
    start = max(i for i, r in enumerate(tail) if r.type == "step/start" and r.data["step"] == step)
    return tail[start:]


def _open_model_attempts(tail: Sequence[Record]) -> list[dict[str, int]]:
    """The model attempt of the turn left open: no usage, failure or message after it."""
    last: dict[str, int] | None = None
    for record in tail:
        if record.type == "model/attempt":
            last = {k: int(record.data[k]) for k in ("turn", "step", "attempt")}
        elif record.type in ("model/usage", "model/failed", "assistant/message"):
            last = None
    return [last] if last is not None else []


def _undecided_approvals(tail: Sequence[Record]) -> tuple[str, ...]:
    asked: list[str] = []
    decided: set[str] = set()
    for record in tail:
        if record.type == "approval/asked":
            asked.append(str(record.data["id"]))
        elif record.type == "approval/decided":
            decided.add(str(record.data["id"]))
    return tuple(a for a in asked if a not in decided)
