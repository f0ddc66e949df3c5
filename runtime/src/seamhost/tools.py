"""Tool declarations: what a plugin registers through ``tools/register``.

The values a call carries once it runs (:class:`ToolContext`, :class:`ToolOutput`,
:class:`ToolInvocation`, :class:`ToolExecution`, the :class:`Runner` protocol) live in
:mod:`seamhost.calls` and are importable from here too: they load on first use, since building a
bundle, which every command does, never needs them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

import attrs

from seamhost.jsonvalue import digest
from seamhost.lazy import lazy_exports

if TYPE_CHECKING:
    from seamhost.calls import (
        ExecuteNext,
        Runner,
        ToolContext,
        ToolExecution,
        ToolInvocation,
        ToolOutput,
    )

__all__ = [
    "Effect",
    "ExecuteNext",
    "RegisteredTool",
    "Runner",
    "ToolBody",
    "ToolContext",
    "ToolExecution",
    "ToolInvocation",
    "ToolOutput",
    "ToolRegistrar",
    "ToolSpec",
]

Effect = Literal["read-only", "write"]
ToolBody = Callable[["ToolContext"], Awaitable["ToolOutput"]]
_CALL_VALUES = (
    "ExecuteNext",
    "Runner",
    "ToolContext",
    "ToolExecution",
    "ToolInvocation",
    "ToolOutput",
)
__getattr__ = lazy_exports(__name__, dict.fromkeys(_CALL_VALUES, "seamhost.calls"))


@attrs.frozen
class ToolSpec:
    """A tool as a plugin declares it through `tools/register`."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    effect: Effect
    concurrency_safe: bool
    body: ToolBody = attrs.field(eq=False, repr=False)
    idempotent: bool = False
    runs_subprocesses: bool = False

    def declaration(self) -> dict[str, Any]:
        """The JSON declaration shown to operators and digested into the bundle."""
        return {
            "name": self.name,
            "description": self.description,
            "effect": self.effect,
            "concurrency_safe": self.concurrency_safe,
            "idempotent": self.idempotent,
            "runs_subprocesses": self.runs_subprocesses,
            "input_schema": dict(self.input_schema),
            "output_schema": dict(self.output_schema),
        }


@attrs.frozen
class RegisteredTool:
    """A tool tagged with the plugin that registered it and its descriptor digest."""

    spec: ToolSpec
    plugin: str
    digest: str

    @classmethod
    def of(cls, spec: ToolSpec, plugin: str) -> RegisteredTool:
        return cls(spec, plugin, digest({"plugin": plugin, **spec.declaration()}))


class ToolRegistrar(Protocol):
    """The callback `tools/register` implementations receive."""

    def __call__(self, spec: ToolSpec) -> None: ...
