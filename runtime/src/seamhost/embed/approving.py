"""Approvals answered by the embedding application's callback (design.md §5 step 6, §11).

A host asks its approval callback where the profile would ask a person, and only there, as the
MCP gateway asks its client's user (:mod:`seamhost.gateway.elicitation`):

1. the profile's standing answers first, its approval rules (the bundle's ``approval/request``
   chain asked with ``standing_only``): a rule that matches decides, and an answerer that fails
   ends the question ``unavailable`` (fail closed);
2. then the callback, with the :class:`~seamhost.approval.request.ApprovalRequest`. It returns
   ``True`` (allowed once), ``False`` (rejected), an :class:`ApprovalAnswer` (any outcome, with
   who decided and why, recorded in the decision's message), or ``None`` to leave the question
   to the profile's other answerers (a ``defer`` answerer parks it). An async function is
   awaited. One that raises or returns anything else ends the question ``unavailable``, the
   note saying why.

The service records ``approval/asked`` and ``approval/decided`` around it as around any other
answerer, with ``answerer = "embed-callback"``. Without a callback the profile's chain answers
alone, as in a ``seamhost run`` with no terminal: a host never asks at the terminal (its service
says ``terminal=False``), so a profile that defers parks the turn, one whose rules do not cover a
call ends it ``APPROVAL_UNAVAILABLE``.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.approval.request import Answerers, ApprovalOutcome, ApprovalRequest
from seamhost.errors import describe

if TYPE_CHECKING:
    from seamhost.approval.service import ApprovalService
    from seamhost.kernel.bundle import Bundle

ANSWERER = "embed-callback"


@attrs.frozen
class ApprovalAnswer:
    """An approval callback's answer: the outcome, and who gave it and why (both recorded)."""

    outcome: ApprovalOutcome = attrs.field(converter=ApprovalOutcome)
    """allowed-once, rejected, cancelled, unavailable or deferred (a member, or its value)"""
    reason: str | None = None  # why; recorded in the decision's message
    decider: str | None = None  # who decided; recorded in the decision's message

    @classmethod
    def allow(cls, reason: str | None = None, decider: str | None = None) -> ApprovalAnswer:
        """Allow this call, with these arguments, once."""
        return cls(ApprovalOutcome.ALLOWED_ONCE, reason, decider)

    @classmethod
    def reject(cls, reason: str | None = None, decider: str | None = None) -> ApprovalAnswer:
        """Refuse the call: it ends ``APPROVAL_REJECTED``."""
        return cls(ApprovalOutcome.REJECTED, reason, decider)

    @classmethod
    def defer(cls, reason: str | None = None) -> ApprovalAnswer:
        """Park the turn until someone answers (``Host.approve`` or ``reject``), durably."""
        return cls(ApprovalOutcome.DEFERRED, reason)

    def account(self) -> str:
        """What the decision's message says of this answer."""
        parts = [f"by {self.decider}" if self.decider else "", self.reason or ""]
        return ": ".join(part for part in parts if part) or "the callback answered"


# What an approval callback may return, or resolve to (None: leave it to the profile).
Answer = bool | ApprovalAnswer | None
ApproveCallback = Callable[[ApprovalRequest], Answer | Awaitable[Answer]]


@attrs.frozen
class Answered:
    """A chain answer (:class:`seamhost.approval.request.ChainAnswer`)."""

    answer: ApprovalOutcome | None
    plugin: str | None
    notes: tuple[str, ...] = ()


def answer_of(value: Any) -> ApprovalAnswer | None:
    """The callback's return value as an answer; ``None`` to pass; `TypeError` when invalid."""
    if value is None or isinstance(value, ApprovalAnswer):
        return value
    if value is True:
        return ApprovalAnswer.allow()
    if value is False:
        return ApprovalAnswer.reject()
    raise TypeError(
        f"the approval callback returned {value!r}; return True, False, an ApprovalAnswer, "
        "or None to leave the question to the profile's answerers"
    )


def host_approvals(
    bundle: Bundle, approve: ApproveCallback | None
) -> tuple[ApprovalService, Answerers | None]:
    """The approval service a host's sessions use, and the chain it asks (see the module)."""
    from seamhost.approval.service import ApprovalService

    service = bundle.seams.approval_service() or ApprovalService()
    if approve is None:
        return attrs.evolve(service, terminal=False), None
    seams = bundle.seams
    chain = Answerers(tuple(seams.implementers("approval/request")), seams.approval_request)
    accounts: dict[tuple[str, str], str] = {}  # what the callback said, until the service asks

    async def ask(request: ApprovalRequest) -> Answered | Any:
        standing = await chain.ask(attrs.evolve(request, standing_only=True))
        if standing.answer is not None or standing.plugin is not None:
            return standing  # a rule decided (final), or an answerer failed (fail closed)
        try:
            value = approve(request)
            if inspect.isawaitable(value):
                value = await value
            answer = answer_of(value)
        except Exception as exc:
            note = f"{ANSWERER}: the callback failed: {describe(exc)}"
            return Answered(None, ANSWERER, (note,))
        if answer is None:
            return await chain.ask(request)
        accounts[(request.session_id, request.id)] = answer.account()
        return Answered(answer.outcome, ANSWERER)

    inner = service.explain

    def explain(request: ApprovalRequest, answerer: str | None) -> str | None:
        said = accounts.pop((request.session_id, request.id), None)
        # Asked either way: the provider drops what its answerers said about the request.
        theirs = inner(request, answerer) if inner is not None else None
        return said if answerer == ANSWERER else theirs

    host_service = attrs.evolve(service, terminal=False, explain=explain)
    return host_service, Answerers((ANSWERER, *chain.names), ask)


__all__ = [
    "ANSWERER",
    "Answered",
    "ApprovalAnswer",
    "ApproveCallback",
    "answer_of",
    "host_approvals",
]
