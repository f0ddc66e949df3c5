"""What a crashed turn left open, read for continuing it (design.md §6, "Continue").

Repair (:mod:`seamhost.session.repair`) closes a crashed tail; a continuation finishes it. Both
read the same durable prefix. :func:`plan_continuation` reads, from the open turn alone:

* the open step, if any, and whether its ``assistant/message`` is durable: without it the step's
  model request is issued again as the next attempt (an attempt left open is closed as
  ``model/failed {interrupted}`` first); without an open step, the next step's request follows;
* each call of the open step without a ``tool/result``, in model order: **not started** when no
  ``tool/dispatch`` is durable for it (governed again, then dispatched once under the same call
  id), **in flight** when one is (the body may have run: its outcome is unknown). A session
  written without barriers has every unfinished call in flight: without a checkpoint, a missing
  dispatch record proves nothing;
* ``approval/asked`` without a decision that did not park the turn (the person who was asked
  is gone with the process: they are cancelled and asked again), and the ``allowed-once``
  decisions of not-started calls never consumed by a dispatch, which still cover their call and
  digest;
* whether the turn is parked for reconciliation (``turn/parked``) and which unknown outcomes of
  the open step are still unreconciled.

Nothing here writes; :func:`seamhost.run.sessions.continue_session` records the takeover and
:meth:`seamhost.run.agent.Agent.continue_turn` drives the turn to its end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import attrs

from seamhost.session.suspension import find_suspension, last_open

if TYPE_CHECKING:
    from seamhost.session.record import Record
    from seamhost.session.store import SessionHeader

CallState = Literal["not-started", "in-flight"]


@attrs.frozen
class PendingCall:
    """A proposed call of the open step without a result."""

    index: int  # its position in the assistant message
    call_id: str
    name: str
    arguments: str  # the raw string the model produced
    sandbox_permissions: str | None
    justification: str | None
    state: CallState
    attempt: int  # the last attempt dispatched; 0 when none was
    intent: bool  # its ``tool/call`` is in the log
    effect: str | None = None  # as its last dispatch record declared it
    idempotent: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return {"call_id": self.call_id, "state": self.state, "attempt": self.attempt}


@attrs.frozen
class Grant:
    """An ``allowed-once`` decided durably for a not-started call, never consumed."""

    approval_id: str
    call_id: str
    args_digest: str
    escalation: str | None
    decision: Mapping[str, Any]


@attrs.frozen
class ContinuationPlan:
    """Where a crashed turn stands, and what continuing it does first."""

    turn: int
    turn_started: int  # Unix ms of its ``turn/start``: its deadline counts from there
    step: int | None  # the open step; None when every step of the turn has ended
    last_step: int  # the last step started in the turn (0: only the user message)
    answered: bool  # the open step's assistant/message is durable
    # The model's last durable answer in the turn proposed no call: the turn had its answer.
    final: bool
    open_attempt: int | None  # a model attempt of the turn with no outcome (closed as interrupted)
    next_attempt: int  # the attempt number the open step's request is issued again with
    calls: tuple[PendingCall, ...] = ()
    approvals: tuple[str, ...] = ()  # asked, never decided, not deferred: cancelled
    grants: tuple[Grant, ...] = ()
    parked: bool = False  # the turn waits on reconciliation (``turn/parked`` is its last word)
    unreconciled: tuple[str, ...] = ()  # unknown outcomes of the open step, not reconciled

    @property
    def in_flight(self) -> tuple[PendingCall, ...]:
        return tuple(c for c in self.calls if c.state == "in-flight")

    @property
    def not_started(self) -> tuple[PendingCall, ...]:
        return tuple(c for c in self.calls if c.state == "not-started")

    def grant_for(self, call_id: str) -> Grant | None:
        return next((g for g in self.grants if g.call_id == call_id), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "step": self.step,
            "answered": self.answered,
            "final": self.final,
            "open_attempt": self.open_attempt,
            "calls": [c.to_json() for c in self.calls],
            "approvals": list(self.approvals),
            "parked": self.parked,
            "unreconciled": list(self.unreconciled),
        }


def plan_continuation(header: SessionHeader, records: Sequence[Record]) -> ContinuationPlan | None:
    """Where the open turn of `records` stands; ``None`` when no turn is open or it is parked
    on a deferred approval (:mod:`seamhost.session.suspension`: ``Agent.resume`` continues it)."""
    start = last_open(records, "turn/start", "turn/end")
    if start is None or find_suspension(records) is not None:
        return None
    tail = records[start:]
    turn = int(tail[0].data["turn"])
    reader = _Reader(barriers=header.barriers)
    for record in tail:
        reader.feed(record)
    calls = reader.pending()
    return ContinuationPlan(
        turn=turn,
        turn_started=tail[0].time,
        step=reader.step,
        last_step=reader.last_step,
        answered=reader.answered,
        final=reader.final,
        open_attempt=reader.open_attempt,
        next_attempt=reader.attempts + 1,
        calls=calls,
        approvals=tuple(a for a in reader.asked if a not in reader.decided),
        grants=reader.grants({c.call_id for c in calls if c.state == "not-started"}),
        parked=reader.parked,
        unreconciled=tuple(c for c in reader.unknown if c not in reader.reconciled),
    )


class _Reader:
    """Follows the open turn record by record."""

    def __init__(self, *, barriers: bool) -> None:
        self.barriers = barriers
        self.step: int | None = None
        self.last_step = 0
        self.answered = False
        self.final = False
        self.open_attempt: int | None = None
        self.attempts = 0  # model attempts of the open step
        self.proposed: list[Mapping[str, Any]] = []
        self.intents: set[str] = set()
        self.dispatched: dict[str, Mapping[str, Any]] = {}
        self.results: set[str] = set()
        self.asked: dict[str, Mapping[str, Any]] = {}
        self.decided: dict[str, Mapping[str, Any]] = {}
        self.unknown: list[str] = []
        self.reconciled: set[str] = set()
        self.parked = False

    def feed(self, record: Record) -> None:
        kind, data = record.type, record.data
        self.parked = self.parked and kind in ("tool/reconciled", "tool/reconcile/pending")
        if kind == "step/start":
            self.step = self.last_step = int(data["step"])
            self.answered, self.final, self.attempts, self.open_attempt = False, False, 0, None
            self.proposed, self.intents, self.dispatched, self.results = [], set(), {}, set()
            self.unknown = []
        elif kind == "step/end":
            self.step = None
        elif kind == "model/attempt":
            self.open_attempt = self.attempts = int(data["attempt"])
        elif kind in ("model/usage", "model/failed"):
            self.open_attempt = None
        elif kind == "assistant/message":
            self.answered, self.open_attempt = True, None
            self.proposed = list(data.get("tool_calls", ()))
            self.final = not self.proposed
        elif kind == "tool/call":
            self.intents.add(str(data["call_id"]))
        elif kind == "tool/dispatch":
            self.dispatched[str(data["call_id"])] = data
        elif kind == "tool/result":
            self.results.add(str(data["call_id"]))
            if (data.get("error") or {}).get("code") == "TOOL_OUTCOME_UNKNOWN":
                self.unknown.append(str(data["call_id"]))
        elif kind == "tool/reconciled":
            self.reconciled.add(str(data["call_id"]))
        elif kind == "approval/asked":
            self.asked[str(data["id"])] = data
        elif kind == "approval/decided":
            self.decided[str(data["id"])] = data
        elif kind == "turn/parked":
            self.parked = True

    def pending(self) -> tuple[PendingCall, ...]:
        if self.step is None:
            return ()
        calls = []
        for index, call in enumerate(self.proposed):
            call_id = str(call["call_id"])
            if call_id in self.results:
                continue
            dispatch = self.dispatched.get(call_id)
            started = dispatch is not None or not self.barriers
            calls.append(
                PendingCall(
                    index,
                    call_id,
                    str(call["name"]),
                    str(call["arguments"]),
                    call.get("sandbox_permissions"),
                    call.get("justification"),
                    "in-flight" if started else "not-started",
                    int(dispatch["attempt"]) if dispatch is not None else 0,
                    call_id in self.intents,
                    dispatch.get("effect") if dispatch is not None else None,
                    dispatch.get("idempotent") if dispatch is not None else None,
                )
            )
        return tuple(calls)

    def grants(self, not_started: set[str]) -> tuple[Grant, ...]:
        found = []
        for approval_id, asked in self.asked.items():
            decision = self.decided.get(approval_id)
            call_id = str(asked["call_id"])
            if decision is None or call_id not in not_started:
                continue
            if decision["outcome"] != "allowed-once" or decision.get("interrupted"):
                continue
            found.append(
                Grant(
                    approval_id,
                    call_id,
                    str(asked["args_digest"]),
                    asked.get("escalation"),
                    decision,
                )
            )
        return tuple(found)


__all__ = ["CallState", "ContinuationPlan", "Grant", "PendingCall", "plan_continuation"]
