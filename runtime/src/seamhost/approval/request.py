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

    ALLOWED_ONCE = "allowed-once"
    REJECTED = "rejected"
    CANCELLED = "cancelled"
    UNAVAILABLE = "unavailable"
    # Not yet: the question waits, durably, for a person (``seamhost approve``/``reject``); the
    # turn is suspended until it is answered (design.md §11). Never turns into an allow.
    DEFERRED = "deferred"


@attrs.frozen
class ApprovalRequest:
    """One question to the answerer chain, bound to one call and its `args_digest`."""

    id: str
    session_id: str
    call_id: str
    tool: str
    reason: str
    args_digest: str
    arguments: FrozenDict
    sandbox_mode: SandboxMode
    escalation: SandboxMode | None = None
    justification: str | None = None
    context: Any = attrs.field(default=None, eq=False, repr=False)


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
