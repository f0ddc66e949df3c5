"""The model boundary: what is sent to a model adapter and what streams back."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import attrs

if TYPE_CHECKING:
    from seamhost.session.live import Session


@attrs.frozen
class ModelRequest:
    """One request to the model: the derived conversation and the visible tools."""

    session_id: str  # the session asking
    turn: int  # the turn number (1-based)
    step: int  # the step number within the turn (1-based)
    messages: tuple[Mapping[str, Any], ...]
    """the conversation so far, derived from the log (role/content mappings)"""
    tools: tuple[Mapping[str, Any], ...]
    """the tools the model may call: name, description, input schema"""
    session: Session | None = attrs.field(default=None, eq=False, repr=False)
    """the live session, or None outside one; not part of equality"""


@attrs.frozen
class TextDelta:
    """A piece of assistant text."""

    text: str  # the next piece of text


@attrs.frozen
class ToolCallProposal:
    """A tool call as the model proposed it; `arguments` is the raw string it produced.

    `sandbox_permissions` (a wider sandbox mode) and `justification` are the call's escalation
    request, carried as the model gave them; the kernel validates them (both or neither, a
    known and strictly wider mode, a non-empty justification) and asks for approval.
    """

    call_id: str  # the call's id, unique in the session
    name: str  # the tool the model wants to call
    arguments: str  # the raw arguments string, parsed and validated by the kernel
    sandbox_permissions: str | None = None  # the wider sandbox mode requested, or None
    justification: str | None = None  # why the wider mode is needed, or None


@attrs.frozen
class ModelDone:
    """The end of one model response."""

    stop_reason: str = "end"  # why the response ended, as the model says


ModelEvent = TextDelta | ToolCallProposal | ModelDone
StreamNext = Callable[[ModelRequest], AsyncIterator[ModelEvent]]


class ModelAdapter(Protocol):
    """What an `llm/adapter` provider returns."""

    name: str

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]: ...
