"""checkpoint-policy: the three durability barriers of design.md §6.

``append`` is not durable; a backend may write behind. This plugin decides *when* the prefix of the
log must have crossed the storage boundary before the runtime moves on, through the seams:

* ``agent/pre-step``: before each step starts, the previous facts are flushed;
* ``llm/stream``: lazily, when the model stream is first consumed, i.e. right before the request
  is actually sent (a request nobody reads costs no flush);
* ``tools/execute``: before the body of the **outermost** call (``execution.parent is None``;
  nested calls reuse the outer checkpoint), the prefix holding its ``tool/call`` and
  ``tool/dispatch`` is flushed. A failed flush ends the call ``CHECKPOINT_FAILED`` (or
  ``LEASE_LOST`` when a fencing store refused the writer: the session has a new owner); a
  cancellation noticed once the flush returns ends it ``ABORTED_BEFORE_DISPATCH``. Either way
  the body never runs.

Its implementations are ``trylast``: the barrier sits as close as possible to what it protects.
A fourth barrier, the model's answer made durable before any of its calls is governed, is the
agent's own (no seam lies between the two); the agent keeps it when this plugin is in the bundle
(its ``session/checkpoint``), see design.md §6.

Declaring ``session/checkpoint`` marks the bundle's sessions as written with barriers, and
requiring ``session/flush`` makes a profile that has the policy but no durable backend fail at
startup rather than at the first call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import PluginContext, PluginDescriptor, hookimpl
from seamhost.errors import describe

if TYPE_CHECKING:
    # Types only: the model, step and result modules are the kernel's to load when a session
    # runs, not this plugin's to load whenever a bundle is built.
    from collections.abc import AsyncIterator

    from seamhost import (
        ExecuteNext,
        ModelEvent,
        ModelRequest,
        StepContext,
        StepNext,
        StreamNext,
        ToolExecution,
        ToolResult,
    )


class CheckpointPolicy:
    """The barriers; stateless."""

    def __init__(self, context: PluginContext) -> None:
        self.name = context.name

    @hookimpl(trylast=True)
    async def agent_pre_step(self, ctx: StepContext, call_next: StepNext) -> None:
        if ctx.session is not None:
            await ctx.session.flush()
        await call_next(ctx)

    @hookimpl(trylast=True)
    def llm_stream(self, request: ModelRequest, call_next: StreamNext) -> AsyncIterator[ModelEvent]:
        async def flushed_first() -> AsyncIterator[ModelEvent]:
            if request.session is not None:
                await request.session.flush()
            async for event in call_next(request):
                yield event

        return flushed_first()

    @hookimpl(trylast=True)
    async def tools_execute(self, execution: ToolExecution, call_next: ExecuteNext) -> ToolResult:
        if execution.session is None or execution.parent is not None:
            return await call_next(execution)
        try:
            await execution.session.flush()
        except Exception as exc:
            return _not_durable(execution, exc)
        if execution.cancelled.is_set():
            return _refused(
                execution,
                "ABORTED_BEFORE_DISPATCH",
                "cancelled while the checkpoint was written; the tool did not run",
            )
        return await call_next(execution)


# The refusals' imports are made when one is: an import statement costs every call that runs it
# (about 1 us a call for these two), and the checkpoint runs before every outermost body.


def _not_durable(execution: ToolExecution, exc: Exception) -> ToolResult:
    """The result of a call whose checkpoint failed with `exc`: the body never runs."""
    from seamhost.errors import LeaseLost

    lost = LeaseLost.found_in(exc)
    if lost is not None:  # another writer owns the session now: it repairs this call
        return _refused(
            execution,
            "LEASE_LOST",
            f"another writer took the session over ({describe(lost)}); the tool did not run",
        )
    return _refused(
        execution,
        "CHECKPOINT_FAILED",
        f"the log could not be made durable before the body ({describe(exc)}); "
        "the tool did not run",
    )


def _refused(execution: ToolExecution, code: str, message: str) -> ToolResult:
    from seamhost import ToolResult  # a session is running: loaded
    from seamhost.errors import ErrorCode

    return ToolResult.failure(execution.invocation.call_id, ErrorCode[code], message)


descriptor = PluginDescriptor(
    name="checkpoint-policy",
    factory=CheckpointPolicy,
    provides=["session/checkpoint", "agent/pre-step", "llm/stream", "tools/execute"],
    requires=["session/flush"],
    description="Durability barriers before each step, model request and outermost tool body.",
)
