"""What a status probe receives and answers (the ``tools/reconcile`` seam, design.md §10).

A tool whose external effect can be looked up afterwards declares ``status_query=True`` in its
:class:`~seamhost.tool.declaration.ToolSpec`, and the plugin that registers it implements
``tools/reconcile``. When a call of that tool ended ``TOOL_OUTCOME_UNKNOWN``, the runtime asks
the plugin about that exact attempt with a :class:`Probe`; the plugin looks the effect up by the
probe's `idempotency_key`, or by what the body kept in its unknown result's ``meta``
(`Probe.result_meta`), never by running the body again, and answers :class:`Resolved` or
:class:`Pending`. A probe that raises, or does not answer by its deadline, fails closed: nothing
is written and the outcome stays unknown.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.jsonvalue import FrozenDict, freeze

if TYPE_CHECKING:
    import asyncio


@attrs.frozen
class Probe:
    """The question a status probe answers: what did this attempt of this call do?

    `idempotency_key` is ``<session id>:<call id>``, the key the body was given; `deadline` is
    the time left in seconds, and `cancelled` is set when the probe must stop.
    """

    session_id: str  # the session the call belongs to
    call_id: str  # the model's id of the call
    attempt: int  # the attempt whose outcome is unknown (the last one dispatched)
    tool: str  # the tool's name
    arguments: FrozenDict  # the call's arguments, as validated and frozen
    args_digest: str  # their canonical digest, as the dispatch record holds it
    idempotency_key: str  # <session id>:<call id>: the key the body handed on
    workspace: Path  # the session's workspace
    deadline: float  # seconds the probe may take
    cancelled: asyncio.Event  # set when the probe must stop
    result_meta: FrozenDict = attrs.field(factory=FrozenDict, converter=freeze)
    """the ``meta`` of the unknown result, where a body keeps what it learned before the answer
    was lost (a remote task id...); empty when the result holds none"""


@attrs.frozen
class Resolved:
    """The effect was found: what the call returned, or the error it authoritatively ended with.

    A result's `value` is validated against the tool's output schema before it is recorded;
    `error_code` (with `content` as its message) says the call failed without an effect.
    """

    content: str  # what the model is told happened
    value: Any = attrs.field(default=None, converter=freeze)  # the call's value (output schema)
    error_code: str | None = None  # set when the call failed without effect


@attrs.frozen
class Pending:
    """The external system does not know yet: ask again in `retry_after` seconds."""

    retry_after: float  # seconds until the probe may be asked again
    reason: str  # why the external system cannot tell yet


ProbeAnswer = Resolved | Pending
"""What ``tools/reconcile`` returns."""


def idempotency_key(session_id: str, call_id: str) -> str:
    """A call's key for external systems: the same for every attempt, unique across sessions."""
    return f"{session_id}:{call_id}"


__all__ = ["Pending", "Probe", "ProbeAnswer", "Resolved", "idempotency_key"]
