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

    session_id: str
    turn: int
    step: int
    messages: tuple[Mapping[str, Any], ...]
    tools: tuple[Mapping[str, Any], ...]
    session: Session | None = attrs.field(default=None, eq=False, repr=False)


@attrs.frozen
class TextDelta:
    """A piece of assistant text."""

    text: str


@attrs.frozen
class ToolCallProposal:
    """A tool call as the model proposed it; `arguments` is the raw string it produced.

    `sandbox_permissions` (a wider sandbox mode) and `justification` are the call's escalation
    request, carried as the model gave them; the kernel validates them (both or neither, a
    known and strictly wider mode, a non-empty justification) and asks for approval.
    """

    call_id: str
    name: str
    arguments: str
    sandbox_permissions: str | None = None
    justification: str | None = None


@attrs.frozen
class ModelDone:
    """The end of one model response."""

    stop_reason: str = "end"


ModelEvent = TextDelta | ToolCallProposal | ModelDone
StreamNext = Callable[[ModelRequest], AsyncIterator[ModelEvent]]


class ModelAdapter(Protocol):
    """What an `llm/adapter` provider returns."""

    name: str

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]: ...
