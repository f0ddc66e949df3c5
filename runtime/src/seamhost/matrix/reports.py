"""What happened to each call of a session, read from its log (a matrix cell's report).

A call's *decision* is derived from the records its session committed: ``ask`` when an
``approval/asked`` names it, else ``allow`` when it has a ``tool/dispatch`` (its body was
started), else ``deny`` when it has a ``tool/result`` (it was refused before its body started:
guard, policy, arguments, budget, sandbox), else none (proposed, never settled).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from seamhost.session.record import Record

OK = "ok"


@attrs.frozen
class CallReport:
    """How one proposed call went: its decision, its approval, its result, whether it ran."""

    call_id: str
    tool: str
    decision: str | None  # allow | deny | ask (seamhost.llm.replay.CALL_DECISIONS); None: unsettled
    approval: str | None  # the approval's outcome when one was asked (allowed-once, ...)
    code: str | None  # "ok" or the result's error code; None: no result
    ran: bool  # whether its body was dispatched


def call_reports(records: Sequence[Record]) -> tuple[CallReport, ...]:
    """Each proposed call of a session's log, in order, and how it went."""
    tools: dict[str, str] = {}
    asked: dict[str, str] = {}  # approval id → call id
    approvals: dict[str, str | None] = {}  # call id → the approval's outcome
    dispatched: set[str] = set()
    codes: dict[str, str] = {}
    for record in records:
        data = record.data
        if record.type == "tool/call":
            tools.setdefault(data["call_id"], data["name"])
        elif record.type == "approval/asked":
            asked[data["id"]] = data["call_id"]
            approvals[data["call_id"]] = None
        elif record.type == "approval/decided" and data["id"] in asked:
            approvals[asked[data["id"]]] = data["outcome"]
        elif record.type == "tool/dispatch":
            dispatched.add(data["call_id"])
        elif record.type == "tool/result":
            error = data.get("error")
            codes[data["call_id"]] = error["code"] if error else OK
    reports = []
    for call_id, tool in tools.items():
        if call_id in approvals:
            decision: str | None = "ask"
        elif call_id in dispatched:
            decision = "allow"
        else:
            decision = "deny" if call_id in codes else None
        reports.append(
            CallReport(
                call_id,
                tool,
                decision,
                approvals.get(call_id),
                codes.get(call_id),
                call_id in dispatched,
            )
        )
    return tuple(reports)


__all__ = ["OK", "CallReport", "call_reports"]
