"""Approval requests and their four outcomes."""

from __future__ import annotations

import enum
from typing import Any

import attrs

from seamhost.jsonvalue import FrozenDict
from seamhost.sandbox import SandboxMode


class ApprovalOutcome(enum.StrEnum):
    """The only answers an approval can have; only ``allowed-once`` lets a call proceed."""

    ALLOWED_ONCE = "allowed-once"
    REJECTED = "rejected"
    CANCELLED = "cancelled"
    UNAVAILABLE = "unavailable"


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
