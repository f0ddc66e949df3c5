"""The typed façade: one method per seam, the only code that touches the plugin manager's hooks.

The façade reads each seam's implementations from pluggy in pluggy's call order (``tryfirst``
first, then the most recently registered), turns them into :class:`~seamhost.kernel.dispatch.Impl`
values tagged with their plugin, and drives them in the seam's mode. The bundle registers plugins
in reverse profile order, so for plugins without ``tryfirst`` or ``trylast`` the call order is the
order the profile lists them: the first is outermost.

How a seam is driven comes from its declaration (:mod:`seamhost.kernel.hookspecs`): for a mode
whose rules alone say how, the mode's driver (:mod:`seamhost.kernel.dispatch`,
:mod:`seamhost.kernel.chains`) is bound to the seam once, when the façade is built, and the seam's
method only calls it; :meth:`Seams.driver` reaches it for a seam with no method of its own. The
seams that need more than their mode says have methods that drive them by hand, and say why.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from seamhost.errors import SeamFailed, SeamUnavailable, describe
from seamhost.kernel import chains, dispatch, registration
from seamhost.kernel.catalogue import SEAMS
from seamhost.kernel.dispatch import Impl, Tracer
from seamhost.kernel.modes import Mode

# The values of running sessions (decisions, results, approvals) are imported where a seam that
# carries them is driven: building a bundle, which every command does, never needs them.
if TYPE_CHECKING:
    from pathlib import Path

    import pluggy

    from seamhost.approval.request import ApprovalRequest
    from seamhost.approval.service import ApprovalService
    from seamhost.kernel.dispatch import ChainAnswer
    from seamhost.llm.adapter import ModelAdapter, ModelEvent, ModelRequest
    from seamhost.llm.replay import Script
    from seamhost.sandbox.confinement import ConfinedCommand, ConfineRequest
    from seamhost.session.live import Session, StepContext
    from seamhost.session.record import Record
    from seamhost.session.store import SessionStore
    from seamhost.tool.call import ToolExecution, ToolInvocation
    from seamhost.tool.decision import Decision
    from seamhost.tool.declaration import RegisteredTool
    from seamhost.tool.reconcile import Probe, ProbeAnswer
    from seamhost.tool.result import ToolResult


# Seams whose mode has a driver, but which need something the mode does not say: each is driven
# by its own method below, which says what.
_OWN_DRIVER = frozenset({"llm/replay", "sandbox/confine", "llm/stream", "tools/execute"})


def _mode_driver(
    mode: Mode, seam: str, impls: Sequence[Impl], trace: Tracer
) -> Callable[..., Any] | None:
    """`mode`'s driver bound to `seam`: a function of the seam's arguments, in its spec's order.

    ``None`` for the modes whose seams each need their own driving: registration builds the tool
    table, and a provider chain's or an owner's answers have a vocabulary of the seam's own.
    """
    match mode:
        case Mode.PROVIDER:
            return dispatch.provider(seam, impls, trace=trace)
        case Mode.DECISION | Mode.GUARD:
            return dispatch.decider(seam, impls, trace=trace, guard=mode is Mode.GUARD)
        case Mode.AROUND:

            def around(ctx: Any, innermost: Callable[[Any], Awaitable[Any]]) -> Awaitable[Any]:
                return chains.around(seam, impls, innermost, trace=trace)(ctx)

            return around
        case Mode.TRANSFORM:
            return functools.partial(chains.transform, seam, impls, trace)
        case Mode.NOTIFY:
            return dispatch.notifier(seam, impls, trace=trace)
        case Mode.BARRIER:
            return lambda *args: dispatch.barrier(seam, impls, args, trace=trace)
    return None


class Seams:
    """Drives every seam of one bundle. Built by the bundle; fixed for its life.

    The methods of asynchronous seams return awaitables: some are coroutine functions, others
    hand back the driver's coroutine as it is (one frame fewer on the per-call path).
    """

    def __init__(
        self,
        pm: pluggy.PluginManager,
        *,
        plugin_names: Mapping[str, str] | None = None,
        trace: bool = False,
    ) -> None:
        names = dict(plugin_names or {})
        self._trace = Tracer(trace)
        self._impls: dict[str, tuple[Impl, ...]] = {}
        self._drivers: dict[str, Callable[..., Any]] = {}
        for seam in SEAMS.values():
            caller = getattr(pm.hook, seam.hook)
            spec = tuple(caller.spec.argnames) if caller.spec is not None else ()
            impls = self._impls[seam.name] = tuple(
                Impl.of(
                    names.get(impl.plugin_name, impl.plugin_name),
                    impl.function,
                    impl.argnames,
                    spec,
                )
                for impl in reversed(caller.get_hookimpls())
            )
            driver = _mode_driver(seam.mode, seam.name, impls, self._trace)
            if driver is not None and seam.name not in _OWN_DRIVER:
                self._drivers[seam.name] = driver
        self._execute_chain: tuple[Any, Callable[[ToolExecution], Awaitable[ToolResult]]] | None
        self._execute_chain = None

    # -- introspection ----------------------------------------------------------------------

    def implementers(self, seam: str) -> tuple[str, ...]:
        """The plugins implementing `seam`, in call order."""
        return tuple(impl.plugin for impl in self._impls[seam])

    def has(self, seam: str) -> bool:
        return bool(self._impls[seam])

    def driver(self, seam: str) -> Callable[..., Any]:
        """The function that drives `seam` in its mode: call it with the seam's arguments.

        For a seam without a method of its own (a seam just declared, say); the methods below
        call the same function. A seam its mode alone cannot drive has none (`KeyError`).
        """
        return self._drivers[seam]

    # -- registration -----------------------------------------------------------------------

    def tools_register(self) -> dict[str, RegisteredTool]:
        """``tools/register``: collect every plugin's tools; a duplicate name names both."""
        return registration.register_tools(self._impls["tools/register"], trace=self._trace)

    # -- providers --------------------------------------------------------------------------

    def session_store(self) -> SessionStore | None:
        """``session/store``: the storage backend, or ``None`` (sessions are memory-only)."""
        # Its absence is no error but the caller's cue to fall back: the mode does not say that.
        if not self.has("session/store"):
            return None
        store: SessionStore = self._drivers["session/store"]()
        return store

    def llm_adapter(self) -> ModelAdapter:
        """``llm/adapter``: the model adapter; raises `SeamUnavailable` when missing."""
        adapter: ModelAdapter = self._drivers["llm/adapter"]()
        return adapter

    def llm_replay(self, path: Path, first_turn: int = 1) -> Script:
        """``llm/replay``: the script the model will replay; `SeamUnavailable` when missing."""
        # Driven by hand: its trace line names the scenario file, which the mode cannot know.
        impl = dispatch.only("llm/replay", self._impls["llm/replay"])
        if self._trace.enabled:
            self._trace("llm/replay", impl.plugin, str(path))
        script: Script = dispatch.provide("llm/replay", impl, path, first_turn)
        return script

    def approval_service(self) -> ApprovalService | None:
        """``approval/service``: the configured service, or ``None`` (use the kernel's)."""
        # Its absence is no error but the caller's cue to fall back: the mode does not say that.
        if not self.has("approval/service"):
            return None
        service: ApprovalService = self._drivers["approval/service"]()
        return service

    async def sandbox_confine(self, request: ConfineRequest) -> tuple[ConfinedCommand, str]:
        """``sandbox/confine``: the confined command and the providing plugin.

        Raises `SeamUnavailable` when no plugin provides the seam; a raising provider propagates.
        """
        # Driven by hand: the provider may be a coroutine function, the runner classifies its
        # errors itself, and the caller needs to know which plugin confined the command.
        impl = dispatch.only("sandbox/confine", self._impls["sandbox/confine"])
        confined: ConfinedCommand = await dispatch.settle(impl.call(request))
        if self._trace.enabled:
            self._trace(
                "sandbox/confine", impl.plugin, f"{confined.backend} ({confined.enforcement})"
            )
        return confined, impl.plugin

    async def confine(self, request: ConfineRequest) -> ConfinedCommand:
        """``sandbox/confine`` as a runner needs it: the confined command alone."""
        confined, _ = await self.sandbox_confine(request)
        return confined

    # -- the session log --------------------------------------------------------------------

    def session_event(self, session: Session, record: Record) -> None:
        """``session/event``: notify observers of a committed record."""
        self._drivers["session/event"](session, record)

    def observer(self, seam: str) -> Callable[..., None]:
        """The function that notifies the observers of `seam` (``session/event`` or
        ``tools/result``), as the seam's method does: for a caller that notifies on every
        record or result, one frame fewer each time."""
        notify: Callable[..., None] = self._drivers[seam]
        return notify

    async def session_flush(self, session: Session) -> None:
        """``session/flush``: the barrier; raises `SeamUnavailable` when nobody implements it."""
        await self._drivers["session/flush"](session)

    # -- the agent loop ---------------------------------------------------------------------

    async def agent_pre_step(
        self, ctx: StepContext, proceed: Callable[[StepContext], Awaitable[None]]
    ) -> None:
        """``agent/pre-step``: run the chain; `proceed` is the innermost link."""
        await self._drivers["agent/pre-step"](ctx, proceed)

    def llm_stream(
        self,
        request: ModelRequest,
        adapter: Callable[[ModelRequest], AsyncIterator[ModelEvent]],
    ) -> AsyncIterator[ModelEvent]:
        """``llm/stream``: the stream of model events, through every wrapper to `adapter`."""
        # Driven by hand: its links return async iterators of events, not awaitables.
        chain = chains.around_stream(
            "llm/stream", self._impls["llm/stream"], adapter, trace=self._trace
        )
        return chain(request)

    # -- the governed call ------------------------------------------------------------------

    def tools_pre_execute(self, call: ToolInvocation) -> Coroutine[Any, Any, Decision]:
        """``tools/pre-execute``: the most restrictive vote (allow when nobody votes)."""
        decided: Coroutine[Any, Any, Decision] = self._drivers["tools/pre-execute"](call)
        return decided

    async def approval_request(self, request: ApprovalRequest) -> ChainAnswer:
        """``approval/request``: the first answer in the chain; ``answer is None`` → unavailable."""
        # Driven by hand: only an ApprovalOutcome is an answer, which the mode does not say.
        from seamhost.approval.request import ApprovalOutcome

        return await dispatch.first_answer(
            "approval/request",
            self._impls["approval/request"],
            (request,),
            accept=lambda answer: isinstance(answer, ApprovalOutcome),
            trace=self._trace,
        )

    def tools_guard(self, call: ToolInvocation) -> Coroutine[Any, Any, Decision]:
        """``tools/guard``: deny if any guard denies (or raises); allow otherwise."""
        guarded: Coroutine[Any, Any, Decision] = self._drivers["tools/guard"](call)
        return guarded

    def tools_execute(
        self,
        execution: ToolExecution,
        body: Callable[[ToolExecution], Awaitable[ToolResult]],
    ) -> Awaitable[ToolResult]:
        """``tools/execute``: run the chain around `body`; a raising wrapper is a ``TOOL_ERROR``.

        The chain is composed once per `body` (a pipeline passes the same one for every call).
        """
        # Driven by hand: a raising wrapper becomes the call's error result, not an exception,
        # and the chain is kept for the next call: neither is the around mode's to say.
        chain = self._execute_chain
        if chain is None or chain[0] is not body:
            chain = self._execute_chain = (
                body,
                chains.around(
                    "tools/execute",
                    self._impls["tools/execute"],
                    body,
                    trace=self._trace,
                    on_error=_execute_failed,
                ),
            )
        return chain[1](execution)

    def tools_post_execute(self, call: ToolInvocation, result: ToolResult) -> Awaitable[ToolResult]:
        """``tools/post-execute``: apply each transform in order; a block or a raise blocks."""
        # The driver's coroutine as it is: one frame fewer on every call.
        governed: Awaitable[ToolResult] = self._drivers["tools/post-execute"](call, result)
        return governed

    async def tools_reconcile(self, tool: RegisteredTool, probe: Probe) -> ProbeAnswer:
        """``tools/reconcile``: ask the plugin that registered `tool` about one attempt.

        Raises `SeamUnavailable` when that plugin does not implement the seam, and `SeamFailed`
        when it raises or answers anything but ``Resolved`` or ``Pending`` (fail closed).
        """
        # Driven by hand: the owner is the tool's plugin, and only Resolved or Pending answers.
        from seamhost.tool.reconcile import Pending, Resolved

        impls = [i for i in self._impls["tools/reconcile"] if i.plugin == tool.plugin]
        if not impls:
            raise SeamUnavailable("tools/reconcile")
        impl = impls[0]
        try:
            answer = await dispatch.settle(impl.call(probe))
        except Exception as exc:
            raise SeamFailed("tools/reconcile", ((impl.plugin, describe(exc)),)) from exc
        if not isinstance(answer, (Resolved, Pending)):
            problem = f"answered {type(answer).__name__}, not Resolved or Pending"
            raise SeamFailed("tools/reconcile", ((impl.plugin, problem),))
        if self._trace.enabled:
            self._trace("tools/reconcile", impl.plugin, type(answer).__name__.lower())
        return answer

    def tools_result(self, call: ToolInvocation | None, result: ToolResult) -> None:
        """``tools/result``: notify observers; their failures never change the result."""
        self._drivers["tools/result"](call, result)


def _execute_failed(impl: Impl, exc: Exception, execution: ToolExecution) -> ToolResult:
    from seamhost.errors import ErrorCode
    from seamhost.tool.result import ToolResult

    return ToolResult.failure(
        execution.invocation.call_id,
        ErrorCode.TOOL_ERROR,
        f'plugin "{impl.plugin}" failed in tools/execute: {describe(exc)}',
    )


__all__ = ["Seams"]
