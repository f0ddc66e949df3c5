"""What a governed tool call ends with: a result, possibly an error with a stable code."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from seamhost.errors import ErrorCode, SeamhostError
from seamhost.frozen import fast_init
from seamhost.jsonvalue import FrozenDict, freeze
from seamhost.session.events import ToolError


class ToolFailed(SeamhostError, RuntimeError):
    """Raised by a tool body to end its call with a specific error code and message."""

    code: ErrorCode
    message: str
    value: Any = None
    retryable: bool = False  # the failure had no effect; a retry-safe tool may be dispatched again

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


def _freeze_mapping(value: Mapping[str, Any] | None) -> FrozenDict:
    if type(value) is FrozenDict:  # frozen all the way down (see `freeze`)
        return value
    return freeze(dict(value or {}))  # type: ignore[no-any-return]


@fast_init
@attrs.frozen
class ToolResult:
    """The settled outcome of one call.

    `value` is the canonical result (for programs, policy and audit), `content` what the model
    reads, `meta` what UIs show. Changing `content` never changes `value`.
    """

    call_id: str  # the call it settles
    content: str  # what the model reads
    value: Any = attrs.field(default=None, converter=freeze)  # the canonical result (JSON, frozen)
    error: ToolError | None = None  # {code, message} when the call failed; None when it succeeded
    meta: FrozenDict = attrs.field(factory=FrozenDict, converter=_freeze_mapping)
    """what UIs show; not sent to the model"""
    additional_contexts: tuple[str, ...] = ()  # extra texts given to the model after the result

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
