"""What a host hands back for a run: how it ended, and what became of each call, from the log.

A :class:`RunReport` is read from the session's records once the run is over, never from what
the run believed along the way, so it says no more than the log holds (design.md §4: the log is
the truth). Its calls are those of the turns the run drove: a resumed turn's report lists the
calls settled before it parked too.

A :class:`CallReport`'s ``decision`` says how governance came down on the call:

==========  ======================================================================
``ask``     a person (or the callback, or an approval rule) was asked: ``approval``
            holds the answer (``allowed-once``, ``rejected``, ``cancelled``,
            ``unavailable``, or ``deferred`` while it waits)
``deny``    policy (``DENIED_BY_POLICY``) or a guard (``DENIED_BY_GUARD``) refused it
``allow``   it was dispatched without asking anyone
``None``    it stopped before dispatch without a denial: its arguments, its tool, a
            budget, the sandbox...
==========  ======================================================================

``code`` is ``"ok"`` for a success, the error code of an error result, ``None`` while the call
has no result (it waits on a deferred approval); ``ran`` is whether its body started (a
``tool/dispatch`` was committed, and no checkpoint failure or lost lease stopped it first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from seamhost.run.deferred import PendingApproval
    from seamhost.run.turn_outcome import TurnOutcome
    from seamhost.run.usage import SessionUsage
    from seamhost.session.record import Record

DENIALS = frozenset({"DENIED_BY_POLICY", "DENIED_BY_GUARD"})
# A dispatched call whose body never started: the flush before it failed, or another writer
# took the session over (design.md §14).
STOPPED_BEFORE_BODY = frozenset({"CHECKPOINT_FAILED", "LEASE_LOST"})


@attrs.frozen
class CallReport:
    """One call the model proposed, as the log says it went."""

    call_id: str  # the call's id, as the model (or the scenario) named it
    tool: str  # the tool it called
    turn: int  # the turn it was proposed in
    decision: str | None  # ask | deny | allow, or None when refused before a decision
    approval: str | None  # the approval's outcome when one was asked (deferred while it waits)
    code: str | None  # "ok", the error code of its result, or None without a result
    ran: bool  # whether its body started

    @property
    def error(self) -> bool:
        """Whether the call ended with an error result."""
        return self.code is not None and self.code != "ok"


@attrs.frozen
class RunReport:
    """How a host's run (or resume) ended: the session, the outcome, the calls."""

    session_id: str  # the session it ran in; resume it or answer its approvals by this id
    outcome: str  # completed | parked | failed | interrupted, as `seamhost run --json` says it
    turns: tuple[TurnOutcome, ...]  # how each turn it drove ended
    calls: tuple[CallReport, ...]  # every call of those turns, in log order
    parked: tuple[PendingApproval, ...]  # the deferred approvals the session now waits on
    usage: SessionUsage | None  # the session's tokens and cost; None when no model reported any
    workspace: Path  # where its tools worked (removed again when it was temporary)

    @property
    def ok(self) -> bool:
        """Whether the run ended as a `seamhost run` that exits 0 does: every turn completed.

        Refused calls are normal outcomes, as they are for the CLI; :attr:`errors` lists them.
        """
        return self.outcome == "completed"

    @property
    def errors(self) -> tuple[CallReport, ...]:
        """The calls that ended with an error result."""
        return tuple(call for call in self.calls if call.error)

    def call(self, call_id: str) -> CallReport:
        """The report of the call `call_id` (`KeyError` when the run has none)."""
        for call in self.calls:
            if call.call_id == call_id:
                return call
        raise KeyError(call_id)


def call_reports(records: Sequence[Record], turns: set[int]) -> tuple[CallReport, ...]:
    """The report of every call proposed in `turns`, from the whole log `records`."""
    calls: dict[str, dict[str, Any]] = {}
    approvals: dict[str, str] = {}  # approval id -> call id
    for record in records:
        data: Mapping[str, Any] = record.data
        kind = record.type
        if kind == "tool/call":
            if int(data["turn"]) in turns:
                calls[str(data["call_id"])] = {
                    "tool": str(data["name"]),
                    "turn": int(data["turn"]),
                    "approval": None,
                    "code": None,
                    "dispatched": False,
                }
            continue
        call = calls.get(str(data.get("call_id", "")))
        if kind == "approval/decided":
            asked = approvals.get(str(data["id"]))
            if asked is not None and asked in calls:
                calls[asked]["approval"] = str(data["outcome"])
        elif call is None:
            continue
        elif kind == "approval/asked":
            approvals[str(data["id"])] = str(data["call_id"])
            call["approval"] = "asked"
        elif kind == "approval/deferred":
            call["approval"] = "deferred"
        elif kind == "tool/dispatch":
            call["dispatched"] = True
        elif kind == "tool/result":
            error = data.get("error")
            call["code"] = str(error["code"]) if error else "ok"
    return tuple(_report(call_id, call) for call_id, call in calls.items())


def _report(call_id: str, call: Mapping[str, Any]) -> CallReport:
    code, approval = call["code"], call["approval"]
    if approval is not None:
        decision: str | None = "ask"
    elif code in DENIALS:
        decision = "deny"
    elif call["dispatched"]:
        decision = "allow"
    else:
        decision = None
    ran = bool(call["dispatched"]) and code not in STOPPED_BEFORE_BODY
    return CallReport(call_id, call["tool"], call["turn"], decision, approval, code, ran)


__all__ = ["CallReport", "RunReport", "call_reports"]
