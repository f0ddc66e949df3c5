"""The values a governed call carries through the seams, and what a tool body receives and returns.

:mod:`seamhost.tools` declares tools (what every bundle needs); this module holds what only a
running call uses, so building a bundle does not create these classes. Both names import from
either module.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from seamhost.jsonvalue import FrozenDict, freeze
from seamhost.sandbox import SandboxMode

if TYPE_CHECKING:
    import asyncio

    from seamhost.results import ErrorCode, ToolResult
    from seamhost.runner import RunResult
    from seamhost.tools import RegisteredTool


class Runner(Protocol):
    """Runs a subprocess confined by the bundle's `sandbox/confine` provider.

    The kernel's implementation is :class:`seamhost.runner.SandboxRunner`; it raises
    :class:`seamhost.runner.SandboxUnavailable` rather than ever running unconfined.
    """

    async def run(
        self,
        argv: tuple[str, ...],
        *,
        timeout: float | None = None,
        stdin: bytes | None = None,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> RunResult: ...


@attrs.frozen
class ToolContext:
    """What a tool body receives.

    `call_id` is the idempotency key to hand to external systems; `arguments` are validated and
    frozen; `cancelled` is set when the turn is cancelled; `runner` confines subprocesses.
    """

    call_id: str
    arguments: FrozenDict
    workspace: Path
    sandbox_mode: SandboxMode
    writable_roots: tuple[Path, ...]
    cancelled: asyncio.Event
    runner: Runner | None = None


@attrs.frozen
class ToolOutput:
    """What a body returns: the canonical value and the text the model reads.

    An output with `is_error` ends the call as an error result with `error_code` (by default
    ``TOOL_ERROR``; ``TOOL_TIMEOUT`` or ``SANDBOX_DENIED`` where that is what happened), keeping
    its content and value. A body may also raise :class:`seamhost.results.ToolFailed`.
    """

    content: str
    value: Any = attrs.field(default=None, converter=freeze)
    meta: Mapping[str, Any] = attrs.field(factory=dict)
    is_error: bool = False
    error_code: ErrorCode | None = None
    additional_contexts: tuple[str, ...] = ()


@attrs.frozen
class ToolInvocation:
    """A call after its arguments were validated and frozen: what governance decides on."""

    session_id: str
    turn: int
    step: int
    call_id: str
    tool: RegisteredTool
    arguments: FrozenDict
    args_digest: str
    workspace: Path
    sandbox_mode: SandboxMode

    @property
    def name(self) -> str:
        return self.tool.spec.name


@attrs.frozen
class ToolExecution:
    """The context of the `tools/execute` around-chain.

    `parent` is the outer execution when a tool dispatches another (nested) call; checkpoint
    policies act only on the outermost one (``parent is None``). `session` is ``None`` when the
    call runs outside an agent session.
    """

    invocation: ToolInvocation
    attempt: int
    cancelled: asyncio.Event
    session: Any = None
    parent: ToolExecution | None = None


ExecuteNext = Callable[[ToolExecution], Awaitable["ToolResult"]]
