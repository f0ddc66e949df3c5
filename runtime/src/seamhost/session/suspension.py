"""A suspended turn: the log shape of a call whose approval waits for a person (design.md §11).

When an answerer defers a question, the service appends ``approval/deferred`` and the step stops
there: the calls before the deferred one have their results, the deferred call and the calls
after it have none, and neither ``step/end`` nor ``turn/end`` is written. The turn is *parked*,
not crashed: repair leaves it as it is, ``session verify`` accepts it, and a later ``--resume``
continues the step from the deferred call once ``approval/decided`` (from ``seamhost approve`` or
``reject``) answers it, or refuses the call once the question has expired.

:func:`find_suspension` reads that shape from the records. A deferred call that was dispatched
after its approval (the resume had started) is no longer parked: if the process then stopped,
it is an ordinary crash tail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from seamhost.session.record import Record


@attrs.frozen
class Suspension:
    """A parked step: which question it waits on, and what the step proposed.

    `calls` are the step's proposed calls in model order (as the ``assistant/message`` holds
    them) and `index` the position of the deferred one; `decision` is the ``approval/decided``
    data once someone answered, ``None`` while the question is pending.
    """

    turn: int
    step: int
    approval_id: str
    call_id: str
    tool: str
    reason: str
    args_digest: str
    escalation: str | None
    deferred_at: int
    expires: int | None
    decision: Mapping[str, Any] | None
    calls: tuple[Mapping[str, Any], ...]
    index: int

    @property
    def pending(self) -> bool:
        """Nobody has answered yet."""
        return self.decision is None

    def expired(self, now: int) -> bool:
        """The question can no longer be answered (`now` in Unix ms)."""
        return self.pending and self.expires is not None and now >= self.expires


def find_suspension(records: Sequence[Record]) -> Suspension | None:
    """The parked step at the end of `records`, or ``None`` when the log ends otherwise."""
    start = last_open(records, "turn/start", "turn/end")
    if start is None:
        return None
    step_start = last_open(records[start:], "step/start", "step/end")
    if step_start is None:
        return None
    tail = records[start + step_start :]
    calls: tuple[Mapping[str, Any], ...] = ()
    asked: dict[str, Mapping[str, Any]] = {}
    deferred: dict[str, Record] = {}
    decided: dict[str, Mapping[str, Any]] = {}
    settled: set[str] = set()  # calls with a result or a dispatch: no longer parked
    for record in tail:
        data = record.data
        if record.type == "assistant/message":
            calls = tuple(data.get("tool_calls", ()))
        elif record.type == "approval/asked":
            asked[str(data["id"])] = data
        elif record.type == "approval/deferred":
            deferred[str(data["id"])] = record
        elif record.type == "approval/decided":
            decided[str(data["id"])] = data
        elif record.type in ("tool/result", "tool/dispatch"):
            settled.add(str(data["call_id"]))
    for approval_id, record in reversed(deferred.items()):
        data = record.data
        call_id = str(data["call_id"])
        if call_id in settled or approval_id not in asked:
            continue
        index = next((i for i, c in enumerate(calls) if c["call_id"] == call_id), None)
        if index is None:
            continue
        question = asked[approval_id]
        return Suspension(
            turn=int(tail[0].data["turn"]),
            step=int(tail[0].data["step"]),
            approval_id=approval_id,
            call_id=call_id,
            tool=str(question["tool"]),
            reason=str(question["reason"]),
            args_digest=str(data["args_digest"]),
            escalation=question.get("escalation"),
            deferred_at=record.time,
            expires=data.get("expires"),
            decision=decided.get(approval_id),
            calls=calls,
            index=index,
        )
    return None


# What may follow a ``turn/parked`` while the turn still waits: the reconciliation it waits for.
WHILE_PARKED = frozenset({"tool/reconciled", "tool/reconcile/pending"})


def find_parking(records: Sequence[Record]) -> Mapping[str, Any] | None:
    """The ``turn/parked`` data of a turn waiting on reconciliation (``[recovery] on_unknown =
    "park"``), or ``None`` when the log ends otherwise. Like a deferred approval, it is open but
    not a crash tail: repair leaves it, ``session verify`` accepts it, a resume continues it."""
    for index in range(len(records) - 1, -1, -1):
        kind = records[index].type
        if kind == "turn/parked":
            return records[index].data
        if kind not in WHILE_PARKED:
            return None
    return None


def last_open(records: Sequence[Record], opening: str, closing: str) -> int | None:
    """The index of the last `opening` record when no `closing` record follows it."""
    for index in range(len(records) - 1, -1, -1):
        kind = records[index].type
        if kind == closing:
            return None
        if kind == opening:
            return index
    return None
