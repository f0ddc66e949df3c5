"""Approvals asked of the client's user through MCP elicitation (docs/design.md, "MCP gateway").

When the client that sent a call declared the ``elicitation`` capability, an ``ask`` about that
call becomes one ``elicitation/create`` form request to it, related to the call's request (over
HTTP it travels on that request's stream). The question names the tool, the reason and a short
rendering of the arguments; the form has one field, ``allow_once`` (a boolean). The answers:

==================================  ===============================
accept, ``{"allow_once": true}``    ``allowed-once``
accept, ``{"allow_once": false}``   ``rejected``
decline                             ``rejected``
cancel                              ``cancelled``
anything else                       nobody answered: ``unavailable``
==================================  ===============================

Failing closed: no answer within the approval timeout, an error or a disconnect while asking,
or the call being cancelled while its question is open, are never an allow (``unavailable``,
or ``cancelled`` when the call was cancelled). A client without the capability is not asked:
the profile's answerer chain is (:func:`chain`), where the terminal answerer stays silent on the
stdio transport (the service says so in every request, ``terminal=False``).

This answerer stands first in the chain the approval service asks, exactly where an
``approval/request`` implementation would: the service records ``approval/asked`` and
``approval/decided`` around it as around any other answerer.
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
    escalation = (
        f"\nIt asks for the sandbox mode {request.escalation}." if request.escalation else ""
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
    bundle_chain: Answerers, asker_of: Callable[[str], Asker | None], timeout: float
) -> Answerers:
    """The client's user first, when it can be asked; else the bundle's answerers."""

    async def ask(request: ApprovalRequest) -> ChainAnswer:
        asker = asker_of(request.call_id)
        if asker is not None and asker.elicit is not None:
            return await elicit(asker, request, timeout)
        return await bundle_chain.ask(request)

    return Answerers((ANSWERER, *bundle_chain.names), ask)


__all__ = ["ANSWERER", "FORM", "Answered", "Asker", "chain", "elicit", "outcome_of", "question"]
