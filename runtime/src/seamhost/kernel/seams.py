"""The typed façade: one method per seam, the only code that touches the plugin manager's hooks.

The façade reads each seam's implementations from pluggy in pluggy's call order (``tryfirst``
first, then the most recently registered), turns them into :class:`~seamhost.kernel.dispatch.Impl`
values tagged with their plugin, and drives them in the seam's mode
(:mod:`seamhost.kernel.dispatch`). The bundle registers plugins in reverse profile order, so for
plugins without ``tryfirst`` or ``trylast`` the call order is the order the profile lists them: the
first is outermost.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from seamhost.errors import (
    SeamFailed,
    SeamhostError,
    SeamUnavailable,
    describe,
)
from seamhost.kernel import chains, dispatch
from seamhost.kernel.catalogue import SEAMS, hook_name
from seamhost.kernel.dispatch import Impl, Tracer

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
        for seam in SEAMS:
            caller = getattr(pm.hook, hook_name(seam))
            spec = tuple(caller.spec.argnames) if caller.spec is not None else ()
            self._impls[seam] = tuple(
                Impl.of(
                    names.get(impl.plugin_name, impl.plugin_name),
                    impl.function,
                    impl.argnames,
                    spec,
                )
                for impl in reversed(caller.get_hookimpls())
            )
        self._notifiers = {
            seam: dispatch.notifier(seam, self._impls[seam], trace=self._trace)
            for seam in ("session/event", "tools/result")
        }
        self._execute_chain: tuple[Any, Callable[[ToolExecution], Awaitable[ToolResult]]] | None
        self._execute_chain = None

    # -- introspection ----------------------------------------------------------------------

    def implementers(self, seam: str) -> tuple[str, ...]:
        """The plugins implementing `seam`, in call order."""
        return tuple(impl.plugin for impl in self._impls[seam])

    def has(self, seam: str) -> bool:
        return bool(self._impls[seam])

    # -- registration -----------------------------------------------------------------------

    def tools_register(self) -> dict[str, RegisteredTool]:
        """``tools/register``: collect every plugin's tools; a duplicate name names both."""
        return dispatch.register_tools(self._impls["tools/register"], trace=self._trace)

    # -- providers --------------------------------------------------------------------------

    def session_store(self) -> SessionStore | None:
        """``session/store``: the storage backend, or ``None`` (sessions are memory-only)."""
        impls = self._impls["session/store"]
        if not impls:
            return None
        impl = dispatch.only("session/store", impls)
        if self._trace.enabled:
            self._trace("session/store", impl.plugin, "provide")
        store: SessionStore = _provide("session/store", impl)
        return store

    def llm_adapter(self) -> ModelAdapter:
        """``llm/adapter``: the model adapter; raises `SeamUnavailable` when missing."""
        impl = dispatch.only("llm/adapter", self._impls["llm/adapter"])
        if self._trace.enabled:
            self._trace("llm/adapter", impl.plugin, "provide")
        adapter: ModelAdapter = _provide("llm/adapter", impl)
        return adapter

    def llm_replay(self, path: Path, first_turn: int = 1) -> Script:
        """``llm/replay``: the script the model will replay; `SeamUnavailable` when missing."""
        impl = dispatch.only("llm/replay", self._impls["llm/replay"])
        if self._trace.enabled:
            self._trace("llm/replay", impl.plugin, str(path))
        script: Script = _provide("llm/replay", impl, path, first_turn)
        return script

    def approval_service(self) -> ApprovalService | None:
        """``approval/service``: the configured service, or ``None`` (use the kernel's)."""
        impls = self._impls["approval/service"]
        if not impls:
            return None
        impl = dispatch.only("approval/service", impls)
        if self._trace.enabled:
            self._trace("approval/service", impl.plugin, "provide")
        service: ApprovalService = _provide("approval/service", impl)
        return service

    async def sandbox_confine(self, request: ConfineRequest) -> tuple[ConfinedCommand, str]:
        """``sandbox/confine``: the confined command and the providing plugin.

        Raises `SeamUnavailable` when no plugin provides the seam; a raising provider propagates.
        """
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
        self._notifiers["session/event"](session, record)

    def observer(self, seam: str) -> Callable[..., None]:
        """The function that notifies the observers of `seam` (``session/event`` or
        ``tools/result``), as the seam's method does: for a caller that notifies on every
        record or result, one frame fewer each time."""
        return self._notifiers[seam]

    async def session_flush(self, session: Session) -> None:
        """``session/flush``: the barrier; raises `SeamUnavailable` when nobody implements it."""
        await dispatch.barrier(
            "session/flush", self._impls["session/flush"], (session,), trace=self._trace
        )

    # -- the agent loop ---------------------------------------------------------------------

    async def agent_pre_step(
        self, ctx: StepContext, proceed: Callable[[StepContext], Awaitable[None]]
    ) -> None:
        """``agent/pre-step``: run the chain; `proceed` is the innermost link."""
        chain = chains.around(
            "agent/pre-step", self._impls["agent/pre-step"], proceed, trace=self._trace
        )
        await chain(ctx)

    def llm_stream(
        self,
        request: ModelRequest,
        adapter: Callable[[ModelRequest], AsyncIterator[ModelEvent]],
    ) -> AsyncIterator[ModelEvent]:
        """``llm/stream``: the stream of model events, through every wrapper to `adapter`."""
        chain = chains.around_stream(
            "llm/stream", self._impls["llm/stream"], adapter, trace=self._trace
        )
        return chain(request)

    # -- the governed call ------------------------------------------------------------------

    def tools_pre_execute(self, call: ToolInvocation) -> Coroutine[Any, Any, Decision]:
        """``tools/pre-execute``: the most restrictive vote (allow when nobody votes)."""
        return dispatch.decide(
            "tools/pre-execute",
            self._impls["tools/pre-execute"],
            (call,),
            trace=self._trace,
            guard=False,
        )

    async def approval_request(self, request: ApprovalRequest) -> ChainAnswer:
        """``approval/request``: the first answer in the chain; ``answer is None`` → unavailable."""
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
        return dispatch.decide(
            "tools/guard", self._impls["tools/guard"], (call,), trace=self._trace, guard=True
        )

    def tools_execute(
        self,
        execution: ToolExecution,
        body: Callable[[ToolExecution], Awaitable[ToolResult]],
    ) -> Awaitable[ToolResult]:
        """``tools/execute``: run the chain around `body`; a raising wrapper is a ``TOOL_ERROR``.

        The chain is composed once per `body` (a pipeline passes the same one for every call).
        """
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
        return chains.transform(
            "tools/post-execute", self._impls["tools/post-execute"], call, result, trace=self._trace
        )

    async def tools_reconcile(self, tool: RegisteredTool, probe: Probe) -> ProbeAnswer:
        """``tools/reconcile``: ask the plugin that registered `tool` about one attempt.

        Raises `SeamUnavailable` when that plugin does not implement the seam, and `SeamFailed`
        when it raises or answers anything but ``Resolved`` or ``Pending`` (fail closed).
        """
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
        self._notifiers["tools/result"](call, result)


def _provide(seam: str, impl: Impl, *args: Any) -> Any:
    """Call a provider with `args`; a raise becomes `SeamFailed` naming the plugin."""
    try:
        return impl.call(*args)
    except SeamhostError:
        raise
    except Exception as exc:
        raise SeamFailed(seam, ((impl.plugin, describe(exc)),)) from exc


def _execute_failed(impl: Impl, exc: Exception, execution: ToolExecution) -> ToolResult:
    from seamhost.errors import ErrorCode
    from seamhost.tool.result import ToolResult

    return ToolResult.failure(
        execution.invocation.call_id,
        ErrorCode.TOOL_ERROR,
        f'plugin "{impl.plugin}" failed in tools/execute: {describe(exc)}',
    )


__all__ = ["Seams"]
