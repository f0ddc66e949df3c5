# mypy: disable-error-code="empty-body"
# (a hook spec is a signature and a contract; it never runs, so it has no body)
"""Hook specifications: each declares one seam, once, for the whole kernel.

``@seam(name, mode, missing=...)`` on a spec is the seam's only declaration: it marks the spec as
a pluggy hook spec and records a :class:`~seamhost.kernel.modes.Seam` on it, from which the
catalogue (:mod:`seamhost.kernel.catalogue`), the façade's dispatch (:mod:`seamhost.kernel.seams`)
and the seam reference are derived. The spec's signature is the hook's; its docstring is the
seam's contract: when it is called, its dispatch mode, what its return values mean, and what
happens when no plugin implements it or an implementation raises.

Plugins implement these with ``@seamhost.hookimpl``. Implementations may be plain functions or
coroutine functions (the kernel's façade awaits what it gets), except those of the seams declared
``synchronous`` (the start-up seams ``tools/register``, ``session/store``, ``llm/adapter`` and
``approval/service``): a coroutine function there is refused when the bundle is built. An
implementation may declare any subset of a spec's arguments. Implementations are driven one by
one by the façade, so a failure is always attributed to the plugin that raised. ``hookwrapper``
and ``wrapper`` implementations are refused at startup: use the around seams instead.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import pluggy

from seamhost.kernel.modes import SEAM_ATTRIBUTE, Mode, Seam

if TYPE_CHECKING:
    from pathlib import Path

    from seamhost.approval.request import ApprovalOutcome, ApprovalRequest
    from seamhost.approval.service import ApprovalService
    from seamhost.llm.adapter import ModelAdapter, ModelEvent, ModelRequest, StreamNext
    from seamhost.llm.replay import Script
    from seamhost.sandbox.confinement import ConfinedCommand, ConfineRequest
    from seamhost.session.live import Session, StepContext, StepNext
    from seamhost.session.record import Record
    from seamhost.session.store import SessionStore
    from seamhost.tool.call import ExecuteNext, ToolExecution, ToolInvocation
    from seamhost.tool.decision import Block, Decision, Replace
    from seamhost.tool.declaration import ToolRegistrar
    from seamhost.tool.reconcile import Probe, ProbeAnswer
    from seamhost.tool.result import ToolResult

PROJECT = "seamhost"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

Spec = TypeVar("Spec", bound=Callable[..., object])


def seam(
    name: str, mode: Mode, *, missing: str, synchronous: bool = False
) -> Callable[[Spec], Spec]:
    """Declare the seam `name` on the hook spec below it; see the module docstring.

    `missing` says in a few words what happens when no plugin implements it (the spec's
    docstring says it in full); `synchronous` seams are called at start-up without awaiting.
    """

    def declare(spec: Spec) -> Spec:
        setattr(spec, SEAM_ATTRIBUTE, Seam(name, mode, missing, spec, synchronous))
        return hookspec(spec)

    return declare


# --------------------------------------------------------------------------------------------
# start-up: registration and services
# --------------------------------------------------------------------------------------------


@seam(
    "tools/register",
    Mode.REGISTRATION,
    missing="no tools; every call is UNKNOWN_TOOL",
    synchronous=True,
)
def tools_register(register: ToolRegistrar) -> None:
    """Seam ``tools/register`` (registration): declare the tools a plugin supplies.

    Called once per implementation while the bundle is built, with a ``register(spec)`` callback
    bound to the calling plugin, so every tool is tagged with the plugin that supplied it.

    Return value: ignored.

    Missing: the bundle has no tools and every call ends ``UNKNOWN_TOOL``.
    Raising, or registering a tool name another plugin already registered: the bundle fails to
    start with an error naming the plugin(s).
    """


@seam(
    "session/store",
    Mode.PROVIDER,
    missing="sessions are memory-only; a profile that requires durability fails at startup",
    synchronous=True,
)
def session_store() -> SessionStore:
    """Seam ``session/store`` (provider): supply the storage backend for session logs.

    Called once when the bundle first needs a store. Exactly one plugin may implement it.

    Return value: a :class:`~seamhost.session.store.SessionStore`.

    Missing: sessions are memory-only (an in-memory store), and a profile whose ``[require]``
    lists ``session/store`` fails at startup. Raising: the session cannot be created or opened.
    """


@seam("llm/adapter", Mode.PROVIDER, missing="MODEL_UNAVAILABLE", synchronous=True)
def llm_adapter() -> ModelAdapter:
    """Seam ``llm/adapter`` (provider): supply the model adapter.

    Called when an agent session starts. Exactly one plugin may implement it.

    Return value: a :class:`~seamhost.llm.adapter.ModelAdapter`; its ``stream`` is the innermost
    link of the ``llm/stream`` chain.

    Missing: the step fails with ``MODEL_UNAVAILABLE``. Raising: likewise.
    """


@seam("llm/replay", Mode.PROVIDER, missing="`seamhost run SCENARIO` refuses: nothing replays it")
def llm_replay(path: Path, first_turn: int) -> Script:
    """Seam ``llm/replay`` (provider): load a recorded conversation for the model to replay.

    Called by ``seamhost run SCENARIO`` once the session is open, before any turn runs. Exactly
    one plugin may implement it; the CLI finds it by this capability, not by name. The
    implementation loads and validates the file at `path` and arms its own ``llm/adapter`` to
    replay it, the script's first turn answering the session's turn `first_turn` (1 for a new
    session or one parked on a deferred approval, the next turn for one resumed after a crash).

    Return value: a :class:`~seamhost.llm.replay.Script` (the workspace's files, each turn's user
    message, the expected outcome of each call).

    Missing: ``seamhost run SCENARIO`` refuses with a configuration error (exit 2). Raising: a
    :class:`~seamhost.errors.ConfigError` is reported as it is (a bad scenario file); anything
    else fails the command naming the plugin.
    """


@seam(
    "approval/service",
    Mode.PROVIDER,
    missing="the kernel's service: policy ask unless an approval/policy event says never",
    synchronous=True,
)
def approval_service() -> ApprovalService:
    """Seam ``approval/service`` (provider): supply the approval service.

    Called once per agent session, before its first turn. The service records
    ``approval/asked``, obtains one outcome from the ``approval/request`` answerer chain, records
    ``approval/decided`` and returns it; a plugin provides one configured from its profile table
    (default policy, timeouts). Exactly one plugin may implement it.

    Return value: an :class:`~seamhost.approval.service.ApprovalService`.

    Missing: the kernel's own service is used: policy ``ask`` unless the session's last
    ``approval/policy`` event says ``never``, no timeout. Raising: the session cannot start.
    """


@seam("sandbox/confine", Mode.PROVIDER, missing="SANDBOX_UNAVAILABLE for any confining mode")
def sandbox_confine(request: ConfineRequest) -> ConfinedCommand | Awaitable[ConfinedCommand]:
    """Seam ``sandbox/confine`` (provider): wrap a subprocess argv in confinement.

    Called by the runner for every subprocess a tool starts in ``read-only`` or
    ``workspace-write`` mode, before the process is spawned. Exactly one plugin may implement it.

    Return value: a :class:`~seamhost.sandbox.confinement.ConfinedCommand` (the argv and
    environment to run, the backend, its enforcement ``full`` or ``partial``, and a classifier of
    the exit).

    Missing: the call ends ``SANDBOX_UNAVAILABLE`` before anything is dispatched; there is never
    an unconfined fallback. Raising: likewise (``SANDBOX_UNAVAILABLE``).
    """


# --------------------------------------------------------------------------------------------
# the session log
# --------------------------------------------------------------------------------------------


@seam("session/event", Mode.NOTIFY, missing="nothing")
def session_event(session: Session, record: Record) -> Awaitable[None] | None:
    """Seam ``session/event`` (notify): observe every record committed to a session.

    Called after ``Session.append`` has committed `record` in memory (it may not be durable
    yet). Coroutine implementations are scheduled on the running event loop.

    Return value: ignored.

    Missing: nothing happens. Raising: logged and contained; the append stands.
    """


@seam("session/flush", Mode.BARRIER, missing="a required checkpoint fails (CHECKPOINT_FAILED)")
def session_flush(session: Session) -> Awaitable[None] | None:
    """Seam ``session/flush`` (barrier): make every record appended so far durable.

    Called by ``Session.flush()``. Every implementation runs and is awaited; it returns only when
    every record appended before the call has crossed its storage boundary.

    Return value: ignored.

    Missing: the flush raises :class:`~seamhost.errors.SeamUnavailable`, so a checkpoint that
    requires it fails closed (``CHECKPOINT_FAILED``). Raising: the first failure is raised after
    all implementations settled; the caller fails closed.
    """


# --------------------------------------------------------------------------------------------
# the agent loop and the model
# --------------------------------------------------------------------------------------------


@seam("agent/pre-step", Mode.AROUND, missing="the step proceeds")
def agent_pre_step(ctx: StepContext, call_next: StepNext) -> Awaitable[None]:
    """Seam ``agent/pre-step`` (around): run before each agent step.

    Called before the loop starts step ``ctx.step``; each implementation must ``await
    call_next(ctx)`` to let the step proceed. The plugin listed first in the profile is outermost
    (``tryfirst``/``trylast`` move an implementation to either end).

    Return value: ignored. Not calling ``call_next`` stops the step (a short-circuit).

    Missing: the step proceeds. Raising: the error propagates and the turn ends ``error``.
    """


@seam("llm/stream", Mode.AROUND, missing="the request passes straight to the llm/adapter")
def llm_stream(request: ModelRequest, call_next: StreamNext) -> AsyncIterator[ModelEvent]:
    """Seam ``llm/stream`` (around): wrap the request to the model.

    Called for each model request. ``call_next(request)`` returns the inner stream; the
    innermost link is the ``llm/adapter`` provider's ``stream``. An implementation returns an
    async iterator of model events; it may transform, replay or delay the inner one (a checkpoint
    policy flushes on first consumption, before the request is actually sent).

    Missing: the request passes straight to the adapter. Raising: the step fails and the turn ends
    ``error``.
    """


# --------------------------------------------------------------------------------------------
# the governed tool call, in pipeline order
# --------------------------------------------------------------------------------------------


@seam("tools/pre-execute", Mode.DECISION, missing="allow")
def tools_pre_execute(call: ToolInvocation) -> Decision | Awaitable[Decision | None] | None:
    """Seam ``tools/pre-execute`` (decision): vote on a validated call.

    Called after the arguments were parsed, validated and frozen, before any approval. Every
    implementation votes; the most restrictive vote wins (deny > ask > allow), so registration
    order never matters. Arguments cannot be rewritten here.

    Return value: a :class:`~seamhost.tool.decision.Decision`, or ``None`` to abstain.

    Missing: allow. Raising: counts as a deny naming the plugin (``DENIED_BY_POLICY``).
    """


@seam("tools/guard", Mode.GUARD, missing="allow")
def tools_guard(call: ToolInvocation) -> Decision | Awaitable[Decision | None] | None:
    """Seam ``tools/guard`` (guard): a floor that may only deny.

    Called after policy and before approval, so nobody is asked about a call a floor denies.
    ``call.sandbox_mode`` is the mode the call would run in: the requested one when it asks for
    an escalation. Every implementation may deny or abstain; none can allow, and nothing after a
    deny can re-open the call.

    Return value: ``Decision.deny(reason)``, or ``None`` to abstain (an allow or ask vote is a
    contract error and counts as deny).

    Missing: allow. Raising: counts as a deny naming the plugin (``DENIED_BY_GUARD``).
    """


@seam("approval/request", Mode.PROVIDER_CHAIN, missing="unavailable, so the call is denied")
def approval_request(
    request: ApprovalRequest,
) -> ApprovalOutcome | Awaitable[ApprovalOutcome | None] | None:
    """Seam ``approval/request`` (provider chain): answer one approval request.

    Called only when ``tools/pre-execute`` decided ask (or a call asks for a wider sandbox).
    Answerers are asked in order; the first that returns an outcome wins and the rest are not
    asked.

    Return value: an :class:`~seamhost.approval.request.ApprovalOutcome`, or ``None`` when this
    answerer does not answer (no terminal, no matching rule).

    Missing, or nobody answers: ``unavailable``, so the call is refused
    (``APPROVAL_UNAVAILABLE``). Raising, or answering outside the vocabulary: ``unavailable``.
    """


@seam("tools/execute", Mode.AROUND, missing="the tool body runs")
def tools_execute(execution: ToolExecution, call_next: ExecuteNext) -> Awaitable[ToolResult]:
    """Seam ``tools/execute`` (around): wrap the tool body.

    Called once governance has passed and ``tool/dispatch`` was appended. Each implementation
    returns ``await call_next(execution)`` or short-circuits with its own result; the innermost
    link runs the tool body. ``execution.parent`` is set for nested calls.

    Return value: the :class:`~seamhost.tool.result.ToolResult`.

    Missing: the body runs. Raising: the call ends with an error result (``TOOL_ERROR``) naming
    the plugin.
    """


@seam("tools/post-execute", Mode.TRANSFORM, missing="the result is accepted")
def tools_post_execute(
    call: ToolInvocation, result: ToolResult
) -> Replace | Block | Awaitable[Replace | Block | None] | None:
    """Seam ``tools/post-execute`` (transform): govern a result before it is committed.

    Called in order after the body settled, each implementation seeing the result as the previous
    ones left it.

    Return value: ``None`` to accept, :class:`~seamhost.tool.decision.Replace` to change the content
    or the value (never both), :class:`~seamhost.tool.decision.Block` to block.

    Missing: the result is accepted. Raising: counts as a block (``POST_EXECUTE_BLOCKED``).
    """


@seam("tools/result", Mode.NOTIFY, missing="nothing")
def tools_result(call: ToolInvocation | None, result: ToolResult) -> Awaitable[None] | None:
    """Seam ``tools/result`` (notify): observe every settled call, refusals included.

    Called once per call, in model order, just before its result is committed to the log: after
    post-execute for a call that ran, and for every refusal too (policy, guard, approval,
    sandbox, abort), so an audit plugin sees each decision. `call` is ``None`` when the call was
    refused before it became an invocation (``UNKNOWN_TOOL``, ``INVALID_ARGUMENTS``,
    ``ESCALATION_INVALID``, ``ABORTED_BEFORE_DISPATCH`` before governance).

    Return value: ignored.

    Missing: nothing happens. Raising: logged and contained; the result is unchanged.
    """


@seam(
    "tools/reconcile",
    Mode.OWNER,
    missing="unknown outcomes stay unknown until a person reconciles them",
)
def tools_reconcile(probe: Probe) -> ProbeAnswer | Awaitable[ProbeAnswer]:
    """Seam ``tools/reconcile`` (owner): look up what an attempt whose outcome is unknown did.

    Called for a call of a tool this plugin registered with ``status_query=True`` whose result
    was ``TOOL_OUTCOME_UNKNOWN``, once per attempt and probe pass (``seamhost session reconcile``,
    ``seamhost run --resume``), with the attempt's ``idempotency_key``, a deadline and a
    cancellation signal. Only the plugin that registered the tool is asked. The implementation
    looks the effect up in the external system; it must never run the tool's body.

    Return value: :class:`~seamhost.tool.reconcile.Resolved` (the result, validated against the
    tool's output schema, or an authoritative error) or :class:`~seamhost.tool.reconcile.Pending`
    (ask again later; recorded with its retry time).

    Missing: the outcome stays unknown until a person reconciles it. A plugin that declares a
    ``status_query`` tool without implementing the seam, or implements it without declaring one,
    fails at startup. Raising, answering anything else or missing the deadline: fails closed,
    nothing is written.
    """
