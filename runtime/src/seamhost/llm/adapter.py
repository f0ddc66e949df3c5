"""The model boundary: what is sent to a model adapter and what streams back."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from seamhost.errors import SeamhostError

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
    max_output_tokens: int | None = None
    """what the session's ``[limits] max_output_tokens`` leaves for this response (None: no
    limit); a provider that can cap its answer asks for at most this many tokens"""


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
class Usage:
    """What one model attempt consumed, as the provider reports it."""

    input_tokens: int = 0  # prompt tokens, cached ones included
    output_tokens: int = 0  # completion tokens
    cached_input_tokens: int = 0  # prompt tokens served from the provider's cache


@attrs.frozen
class ModelDone:
    """The end of one model response: the terminal event every valid stream ends with.

    A stream that stops without it is a failed attempt, never a partial assistant message.
    """

    stop_reason: str = "end"  # why the response ended, as the model says (end, tool_calls, ...)
    usage: Usage | None = None  # what the attempt consumed, when the provider said


class ModelFailed(SeamhostError, RuntimeError):
    """An attempt of a model request failed; nothing of its response is kept (design.md §12)."""

    # connection | rate-limited | server | malformed | incomplete (no terminal event) | deadline
    # | refused (authentication, a bad request: not retryable) | cancelled
    kind: str
    message: str
    retryable: bool = False
    retry_after: float | None = None  # the provider's Retry-After in seconds, when it sent one

    def __str__(self) -> str:
        return f"model request failed ({self.kind}): {self.message}"


ModelEvent = TextDelta | ToolCallProposal | ModelDone
StreamNext = Callable[[ModelRequest], AsyncIterator[ModelEvent]]


class ModelAdapter(Protocol):
    """What an `llm/adapter` provider returns.

    `stream` yields the events of ONE attempt and raises :class:`ModelFailed` when it fails; it
    never retries on its own (the SDK's retries are off): the kernel records each attempt and
    decides whether to try again, within `max_attempts`. `identity` (plugin, version, base URL,
    model) goes into the bundle snapshot.
    """

    name: str

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]: ...
