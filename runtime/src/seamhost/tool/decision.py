"""Votes cast by decision, guard and transform seams."""

from __future__ import annotations

import enum
from typing import Any

import attrs


class Verdict(enum.IntEnum):
    """A decision's verdict; a larger value is more restrictive."""

    ALLOW = 0  # the call may proceed
    ASK = 1  # the approval service asks the answerers
    DENY = 2  # the call ends DENIED_BY_POLICY (DENIED_BY_GUARD from a guard)

    def __str__(self) -> str:
        return _VERDICT_NAMES[self._value_]  # not `self.name`: enum properties are slow


_VERDICT_NAMES = {int(verdict): verdict.name.lower() for verdict in Verdict}


@attrs.frozen
class Decision:
    """One vote of `tools/pre-execute` (allow, ask, deny) or `tools/guard` (deny only).

    `plugin` is filled in by the kernel with the name of the plugin that voted.
    """

    verdict: Verdict  # allow, ask or deny
    reason: str = ""  # why; recorded with the decision and shown to the model
    plugin: str = ""  # the plugin that voted; filled in by the kernel

    @classmethod
    def allow(cls, reason: str = "") -> Decision:
        return cls(Verdict.ALLOW, reason)

    @classmethod
    def ask(cls, reason: str) -> Decision:
        return cls(Verdict.ASK, reason)

    @classmethod
    def deny(cls, reason: str) -> Decision:
        return cls(Verdict.DENY, reason)


@attrs.frozen
class Replace:
    """A `tools/post-execute` vote that replaces the content or the value of a result (not both)."""

    content: str | None = None  # the new content, or None when the value is replaced
    value: Any = None  # the new value, when `replaces_value`
    replaces_value: bool = False  # True when `value` replaces the result's value
    reason: str = ""  # why; recorded with the result

    def __attrs_post_init__(self) -> None:
        if (self.content is None) == (not self.replaces_value):
            raise ValueError("Replace must change exactly one of content or value")

    @classmethod
    def with_content(cls, content: str, reason: str = "") -> Replace:
        return cls(content=content, reason=reason)

    @classmethod
    def with_value(cls, value: Any, reason: str = "") -> Replace:
        return cls(value=value, replaces_value=True, reason=reason)


@attrs.frozen
class Block:
    """A `tools/post-execute` vote that blocks a result; the call ends ``POST_EXECUTE_BLOCKED``."""

    reason: str  # why the result is blocked; the model reads it
