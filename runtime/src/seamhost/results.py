"""What a governed tool call ends with: a result, possibly an error with a stable code."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import attrs

from seamhost.errors import SeamhostError
from seamhost.jsonvalue import FrozenDict, freeze


class ErrorCode(enum.StrEnum):
    """Stable error codes of a tool result; each member says when it is produced."""

    UNKNOWN_TOOL = "UNKNOWN_TOOL"  # no tool of that name is registered in the bundle
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"  # not JSON, or not valid against the input schema
    DENIED_BY_POLICY = "DENIED_BY_POLICY"  # tools/pre-execute decided deny
    DENIED_BY_GUARD = "DENIED_BY_GUARD"  # a tools/guard implementation denied
    APPROVAL_REJECTED = "APPROVAL_REJECTED"  # the answerer rejected the call
    APPROVAL_CANCELLED = "APPROVAL_CANCELLED"  # the user cancelled the prompt
    APPROVAL_UNAVAILABLE = "APPROVAL_UNAVAILABLE"  # no answerer could answer, or policy `never`
    ESCALATION_INVALID = "ESCALATION_INVALID"  # a malformed or non-widening sandbox escalation
    SANDBOX_UNAVAILABLE = "SANDBOX_UNAVAILABLE"  # a confined mode has no usable backend
    SANDBOX_DENIED = "SANDBOX_DENIED"  # confinement blocked what the body tried to do
    CHECKPOINT_FAILED = "CHECKPOINT_FAILED"  # the flush before the body failed
    ABORTED_BEFORE_DISPATCH = "ABORTED_BEFORE_DISPATCH"  # cancelled before the body started
    ABORTED = "ABORTED"  # cancelled while the body ran; the body settled
    TOOL_TIMEOUT = "TOOL_TIMEOUT"  # the body exceeded its timeout
    TOOL_ERROR = "TOOL_ERROR"  # the body raised or reported a failure
    POST_EXECUTE_BLOCKED = "POST_EXECUTE_BLOCKED"  # tools/post-execute blocked the result
    MODEL_UNAVAILABLE = "MODEL_UNAVAILABLE"  # no llm/adapter provider
    TOOL_NOT_STARTED = "TOOL_NOT_STARTED"  # repair: no dispatch record, the body never started
    TOOL_OUTCOME_UNKNOWN = "TOOL_OUTCOME_UNKNOWN"  # repair: dispatched, outcome not recorded


@attrs.frozen(auto_exc=True)
class ToolFailed(SeamhostError, RuntimeError):
    """Raised by a tool body to end its call with a specific error code and message."""

    code: ErrorCode
    message: str
    value: Any = None

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


@attrs.frozen
class ToolError:
    """The error part of a result: a stable code and a message for people and models."""

    code: ErrorCode
    message: str


def _freeze_mapping(value: Mapping[str, Any] | None) -> FrozenDict:
    if type(value) is FrozenDict:  # frozen all the way down (see `freeze`)
        return value
    return freeze(dict(value or {}))  # type: ignore[no-any-return]


@attrs.frozen
class ToolResult:
    """The settled outcome of one call.

    `value` is the canonical result (for programs, policy and audit), `content` what the model
    reads, `meta` what UIs show. Changing `content` never changes `value`.
    """

    call_id: str
    content: str
    value: Any = attrs.field(default=None, converter=freeze)
    error: ToolError | None = None
    meta: FrozenDict = attrs.field(factory=FrozenDict, converter=_freeze_mapping)
    additional_contexts: tuple[str, ...] = ()

    @property
    def is_error(self) -> bool:
        return self.error is not None

    def with_meta(self, **extra: Any) -> ToolResult:
        """This result with `extra` added to its meta (what ``attrs.evolve`` does, cheaper)."""
        meta = FrozenDict({**self.meta, **{key: freeze(value) for key, value in extra.items()}})
        return ToolResult(
            self.call_id, self.content, self.value, self.error, meta, self.additional_contexts
        )

    @classmethod
    def failure(cls, call_id: str, code: ErrorCode, message: str, **meta: Any) -> ToolResult:
        """An error result whose content tells the model what happened."""
        return cls(
            call_id=call_id,
            content=f"{code}: {message}",
            error=ToolError(code, message),
            meta=meta,
        )
