"""Approval requests, their four outcomes, and the answerer chain a service asks."""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import attrs

from seamhost.jsonvalue import FrozenDict
from seamhost.sandbox.policy import SandboxMode


class ApprovalOutcome(enum.StrEnum):
    """The only answers an approval can have; only ``allowed-once`` lets a call proceed."""

    ALLOWED_ONCE = "allowed-once"  # the call proceeds, this call with these arguments, once
    REJECTED = "rejected"  # the call ends APPROVAL_REJECTED
    CANCELLED = "cancelled"  # the person cancelled the prompt: APPROVAL_CANCELLED
    UNAVAILABLE = "unavailable"  # nobody could answer (or policy `never`): APPROVAL_UNAVAILABLE
    # Not yet: the question waits, durably, for a person (``seamhost approve``/``reject``); the
    # turn is suspended until it is answered (design.md §11). Never turns into an allow.
    DEFERRED = "deferred"  # the question waits durably for a person; the turn parks; never an allow


@attrs.frozen
class ApprovalRequest:
    """One question to the answerer chain, bound to one call and its `args_digest`."""

    id: str  # the question's id, unique in the session; ``approve``/``reject`` name it
    session_id: str  # the session the call belongs to
    call_id: str  # the call asked about
    tool: str  # the name of the tool it calls
    reason: str  # why it is asked: the reason of the ask vote (or of the escalation)
    args_digest: str  # digest of the arguments; an answer applies to exactly these arguments
    arguments: FrozenDict  # the validated, frozen arguments, for an answerer to read or match on
    sandbox_mode: SandboxMode  # the sandbox mode the call runs in if no escalation is granted
    escalation: SandboxMode | None = None
    """the wider mode the call asks for, or None; an allow grants it to this call"""
    justification: str | None = None
    """the model's reason for the escalation, as it gave it, or None"""
    terminal: bool = True
    """whether a terminal answerer may ask; False where the terminal carries a protocol (stdio)"""
    standing_only: bool = False
    """True: only answers the operator wrote down beforehand (rules) may answer, and answerers
    that would ask a person pass; mcp serve asks so before it asks its client's user"""
    context: Any = attrs.field(default=None, eq=False, repr=False)
    """the provider's own data for `explain`; not part of equality"""


class ChainAnswer(Protocol):
    """What asking an answerer chain gave: the outcome, who gave it, and why others did not.

    `answer` is ``None`` when no answerer answered. The kernel's provider-chain driver returns
    one (:class:`seamhost.kernel.dispatch.ChainAnswer`).
    """

    @property
    def answer(self) -> Any: ...
    @property
    def plugin(self) -> str | None: ...
    @property
    def notes(self) -> tuple[str, ...]: ...


@attrs.frozen
class Answerers:
    """The answerer chain an approval service asks: who is in it, in order, and how to ask.

    A bundle passes the implementers of ``approval/request`` and its façade's driver of that
    chain; an empty chain means nobody can answer, and every request is ``unavailable``.
    """

    names: tuple[str, ...]
    ask: Callable[[ApprovalRequest], Awaitable[ChainAnswer]] = attrs.field(eq=False, repr=False)
