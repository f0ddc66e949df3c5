"""Approvals asked of the client's user through MCP elicitation (docs/design.md, "MCP gateway").

The client's user is one answerer of the chain, asked where the profile would ask a person; it
never overrides the profile. Before a question about a call reaches the approval chain, the
policy's ``deny`` rules and the floors have already refused what they refuse (final). Then, in
:func:`chain`:

1. the profile's standing answers, its approval rules (the bundle's chain asked with
   ``standing_only``): an ``allow`` or ``reject`` rule that matches is final, and an answerer
   that fails ends the question ``unavailable`` (fail closed);
2. a call that asks for a wider sandbox mode is never put to the client unless the profile sets
   ``[gateway] elicitation_may_escalate = true``: the profile's own answerers decide alone;
3. when the client that sent the call declared the ``elicitation`` capability, one
   ``elicitation/create`` form request to it, related to the call's request (over HTTP it
   travels on that request's stream); else the profile's answerer chain, where the terminal
   answerer stays silent on the stdio transport (the service says so in every request,
   ``terminal=False``).

The question names the tool, the reason, a short rendering of the arguments and, for an
escalation, the mode asked for and the justification given; the form has one field,
``allow_once`` (a boolean). The answers:

==================================  ===============================
accept, ``{"allow_once": true}``    ``allowed-once``
accept, ``{"allow_once": false}``   ``rejected``
decline                             ``rejected``
cancel                              ``cancelled``
anything else                       nobody answered: ``unavailable``
==================================  ===============================

Failing closed: no answer within the approval timeout, an error or a disconnect while asking,
or the call being cancelled while its question is open, are never an allow (``unavailable``,
or ``cancelled`` when the call was cancelled).

The chain stands where an ``approval/request`` implementation would: the service records
``approval/asked`` and ``approval/decided`` around it as around any other answerer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import mcp_types as types

from seamhost.approval.request import Answerers, ApprovalOutcome, ApprovalRequest, ChainAnswer
from seamhost.errors import describe

ANSWERER = "mcp-elicitation"
SHOWN_ARGUMENTS = 240  # characters of the arguments' JSON shown in the question
FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "allow_once": {
            "type": "boolean",
            "title": "Allow this call, once",
            "description": "Allows this exact call with these arguments, one time.",
        }
    },
    "required": ["allow_once"],
}

Elicit = Callable[[str, dict[str, Any]], Awaitable[types.ElicitResult]]


@attrs.frozen
class Asker:
    """How to ask the user of the client that sent one call, and what cancels the question."""

    elicit: Elicit | None  # None: the client did not declare the elicitation capability
    cancelled: asyncio.Event  # set when the call is cancelled


@attrs.frozen
class Answered:
    """A chain answer (:class:`seamhost.approval.request.ChainAnswer`)."""

    answer: ApprovalOutcome | None
    plugin: str | None
    notes: tuple[str, ...] = ()


def question(request: ApprovalRequest) -> str:
    """What the user reads: the tool, why it is asked, and the call."""
    shown = json.dumps(dict(request.arguments), ensure_ascii=False, sort_keys=True)
    if len(shown) > SHOWN_ARGUMENTS:
        shown = shown[: SHOWN_ARGUMENTS - 1] + "…"
    escalation = ""
    if request.escalation is not None:
        escalation = (
            f"\nIt asks to run in the sandbox mode {request.escalation}, this call only, "
            f"because: {request.justification}"
        )
    return (
        f"seamhost asks: allow `{request.tool}` once?\nWhy: {request.reason}\n"
        f"Call: {request.tool} {shown}{escalation}"
    )


def outcome_of(reply: types.ElicitResult) -> ApprovalOutcome | None:
    """The outcome a reply gives; ``None`` for a reply outside the form's vocabulary."""
    if reply.action == "decline":
        return ApprovalOutcome.REJECTED
    if reply.action == "cancel":
        return ApprovalOutcome.CANCELLED
    if reply.action == "accept":
        content = reply.content
        if content is not None and set(content) == {"allow_once"}:
            allowed = content["allow_once"]
            if allowed is True:
                return ApprovalOutcome.ALLOWED_ONCE
            if allowed is False:
                return ApprovalOutcome.REJECTED
    return None


async def elicit(asker: Asker, request: ApprovalRequest, timeout: float) -> Answered:
    """Ask through `asker`; never allows unless the user accepted this form."""
    assert asker.elicit is not None
    asking = asyncio.ensure_future(asker.elicit(question(request), FORM))
    cancelled = asyncio.ensure_future(asker.cancelled.wait())
    try:
        done, _ = await asyncio.wait(
            {asking, cancelled}, timeout=timeout, return_when="FIRST_COMPLETED"
        )
    finally:
        for task in (asking, cancelled):
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
    if asking not in done:
        if cancelled in done:
            return Answered(ApprovalOutcome.CANCELLED, ANSWERER, ("the call was cancelled",))
        return Answered(None, ANSWERER, (f"{ANSWERER}: no answer within {timeout:g}s",))
    try:
        reply = asking.result()
    except Exception as exc:  # the client went away, or answered with an error
        return Answered(None, ANSWERER, (f"{ANSWERER}: asking failed: {describe(exc)}",))
    outcome = outcome_of(reply)
    if outcome is None:
        shown = reply.model_dump(mode="json", exclude_none=True)
        return Answered(None, ANSWERER, (f"{ANSWERER}: an answer outside the form: {shown}",))
    return Answered(outcome, ANSWERER)


def chain(
    bundle_chain: Answerers,
    asker_of: Callable[[str], Asker | None],
    timeout: float,
    *,
    may_escalate: bool = False,
) -> Answerers:
    """The profile's rules, then the client's user when it can be asked, else the profile.

    `may_escalate` is the profile's ``[gateway] elicitation_may_escalate``: without it, a
    question about a sandbox escalation is left to the profile's answerers alone.
    """

    async def ask(request: ApprovalRequest) -> ChainAnswer:
        asker = asker_of(request.call_id)
        if asker is None or asker.elicit is None:
            return await bundle_chain.ask(request)
        if request.escalation is not None and not may_escalate:
            answer = await bundle_chain.ask(request)
            if answer.answer is not None:
                return answer
            why = (
                f"{ANSWERER}: the client's user may not approve a sandbox escalation "
                "([gateway] elicitation_may_escalate is false in the profile)"
            )
            return Answered(None, answer.plugin, (why, *answer.notes))
        standing = await bundle_chain.ask(attrs.evolve(request, standing_only=True))
        if standing.answer is not None or standing.plugin is not None:
            return standing  # a rule decided (final), or an answerer failed (fail closed)
        return await elicit(asker, request, timeout)

    return Answerers((ANSWERER, *bundle_chain.names), ask)


__all__ = ["ANSWERER", "FORM", "Answered", "Asker", "chain", "elicit", "outcome_of", "question"]
