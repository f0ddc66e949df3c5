"""A call of a tool: what travels the seams, what its body receives and what it returns.

A call travels the seams as a :class:`ToolInvocation` (policy, guards, approval) and a
:class:`ToolExecution` (the ``tools/execute`` chain); its body receives a :class:`ToolContext`
and returns a :class:`ToolOutput` (:data:`Body` is the precise type of a body). Only a running
session needs these; what a plugin declares is :mod:`seamhost.tool.declaration`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from seamhost.frozen import fast_init
from seamhost.jsonvalue import FrozenDict, freeze
from seamhost.sandbox.policy import SandboxMode

if TYPE_CHECKING:
    import asyncio

    from seamhost.errors import ErrorCode
    from seamhost.sandbox.roots import Pins
    from seamhost.sandbox.runner import RunResult
    from seamhost.session.live import Session
    from seamhost.tool.declaration import RegisteredTool
    from seamhost.tool.result import ToolResult


class Runner(Protocol):
    """Runs a subprocess confined by the bundle's `sandbox/confine` provider.

    The kernel's implementation is :class:`seamhost.sandbox.runner.SandboxRunner`; it raises
    :class:`seamhost.errors.SandboxUnavailable` rather than ever running unconfined.
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


@fast_init
@attrs.frozen
class ToolContext:
    """What a tool body receives.

    `idempotency_key` (``<session id>:<call id>``, the same for every `attempt` of the call,
    unique across sessions) is the key to hand to external systems; `arguments` are validated
    and frozen; `cancelled` is set when the turn is cancelled; `runner` confines subprocesses.
    """

    call_id: str  # the call's id: the idempotency key to hand to external systems
    arguments: FrozenDict  # the arguments, validated against the input schema and frozen
    workspace: Path  # the directory the tool works in
    sandbox_mode: SandboxMode  # the mode the call runs in (an approved escalation included)
    writable_roots: tuple[Path, ...]  # writable directories besides the workspace
    cancelled: asyncio.Event  # set when the turn is cancelled: stop soon
    runner: Runner | None = None
    """runs subprocesses through the sandbox provider; never start them yourself"""
    session_id: str = ""  # the session the call belongs to
    attempt: int = 1  # which dispatch of the call this is (1 for the first)
    idempotency_key: str = ""  # <session id>:<call id>: the same for every attempt
    read_only_paths: tuple[Path, ...] = ()  # paths no tool writes in a confining mode
    pins: Pins | None = attrs.field(default=None, eq=False, repr=False)
    """the session's pinned roots (design.md §5.7), which the path policy uses"""


@fast_init
@attrs.frozen
class ToolOutput:
    """What a body returns: the canonical value and the text the model reads.

    An output with `is_error` ends the call as an error result with `error_code` (by default
    ``TOOL_ERROR``; ``TOOL_TIMEOUT`` or ``SANDBOX_DENIED`` where that is what happened), keeping
    its content and value. A body may also raise :class:`seamhost.tool.result.ToolFailed`.
    """

    content: str  # what the model reads
    value: Any = attrs.field(default=None, converter=freeze)
    """the canonical result, for programs, policy and audit (JSON, frozen)"""
    meta: Mapping[str, Any] = attrs.field(factory=dict)  # what UIs show; not sent to the model
    is_error: bool = False  # True to end the call as an error result
    error_code: ErrorCode | None = None  # that result's code; None means TOOL_ERROR
    additional_contexts: tuple[str, ...] = ()  # extra texts given to the model after the result
    retryable: bool = False  # the failure had no effect: a retry-safe tool may be dispatched again


@fast_init
@attrs.frozen
class ToolInvocation:
    """A call after its arguments were validated and frozen: what governance decides on."""

    session_id: str  # the session the call belongs to
    turn: int  # the turn number (1-based)
    step: int  # the step number within the turn
    call_id: str  # the call's id
    tool: RegisteredTool  # the registered tool: `tool.spec`, `tool.plugin`
    arguments: FrozenDict  # the validated, frozen arguments (they cannot be rewritten)
    args_digest: str  # digest of the arguments, as approvals and the log record it
    workspace: Path  # the directory the call works in
    sandbox_mode: SandboxMode  # the mode the call would run in

    @property
    def name(self) -> str:
        return self.tool.spec.name


@fast_init
@attrs.frozen
class ToolExecution:
    """The context of the `tools/execute` around-chain.

    `parent` is the outer execution when a tool dispatches another (nested) call; checkpoint
    policies act only on the outermost one (``parent is None``). `session` is ``None`` when the
    call runs outside an agent session.
    """

    invocation: ToolInvocation  # the call being executed
    attempt: int  # 1, or more when repair retries an idempotent call
    cancelled: asyncio.Event  # set when the turn is cancelled
    session: Session | None = None  # the live session, or None outside one
    parent: ToolExecution | None = None  # the outer execution of a nested call, or None


ExecuteNext = Callable[[ToolExecution], Awaitable["ToolResult"]]

Body = Callable[[ToolContext], Awaitable[ToolOutput]]
"""The precise type of a tool's body (:attr:`seamhost.tool.declaration.ToolSpec.body`)."""
