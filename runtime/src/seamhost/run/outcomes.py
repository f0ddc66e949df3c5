"""What governance concludes about a call: ready to dispatch, or refused with its result.

A refusal's result carries the decision trail (each stage, its verdict, the plugin and the
reason) in its ``meta``, as a dispatched call's does, so a refused call is as auditable as one
that ran.
"""

from __future__ import annotations

from typing import NamedTuple

from seamhost.approval.request import ApprovalOutcome
from seamhost.approval.service import Grant
from seamhost.errors import ErrorCode
from seamhost.jsonvalue import FrozenDict
from seamhost.tool.call import ToolInvocation
from seamhost.tool.result import ToolResult

APPROVAL_CODES = {
    ApprovalOutcome.REJECTED: ErrorCode.APPROVAL_REJECTED,
    ApprovalOutcome.CANCELLED: ErrorCode.APPROVAL_CANCELLED,
    ApprovalOutcome.UNAVAILABLE: ErrorCode.APPROVAL_UNAVAILABLE,
}


class Ready(NamedTuple):
    """A call that passed governance: what to dispatch, the grant that allowed it, and how."""

    invocation: ToolInvocation
    grant: Grant | None
    decisions: tuple[FrozenDict, ...]


class Deferred(NamedTuple):
    """A call whose approval waits for a person: the step parks here (design.md §11)."""

    invocation: ToolInvocation
    approval_id: str


class Refused(NamedTuple):
    """A call that governance refused: the invocation, when it got that far, and its result."""

    invocation: ToolInvocation | None
    result: ToolResult


def trace(stage: str, verdict: object, plugin: str, reason: str) -> FrozenDict:
    """One step of a call's decision path, as its result's meta records it (frozen: strings)."""
    return FrozenDict(stage=stage, verdict=str(verdict), plugin=plugin, reason=reason)


def refused(
    call: ToolInvocation,
    code: ErrorCode,
    reason: str,
    plugin: str,
    decisions: list[FrozenDict],
) -> Refused:
    by = f' (by "{plugin}")' if plugin else ""
    result = ToolResult.failure(
        call.call_id,
        code,
        f"{reason or code.value}{by}",
        decisions=decisions,
        sandbox_mode=str(call.sandbox_mode),
    )
    return Refused(call, result)


def aborted(call_id: str) -> ToolResult:
    return ToolResult.failure(
        call_id,
        ErrorCode.ABORTED_BEFORE_DISPATCH,
        "the step was cancelled before this call was dispatched; it never started",
    )
