"""The governed tool call (design.md §5): every proposed call, in a fixed order nothing can bypass.

For the calls of one assistant message:

1. **Visibility** is presentation only (the agent decides what the model is shown); a call to a
   hidden or unknown tool still goes through every step below.
2. **Intent**: ``tool/call`` is appended for every call, in model order, before anything else.
3. **Arguments**: the raw string is parsed and validated against the tool's input schema
   (``INVALID_ARGUMENTS`` otherwise; nothing is asked, nothing runs), then frozen; its canonical
   digest is the `args_digest`. A sandbox escalation is validated here too (``ESCALATION_INVALID``).
4. **Policy**: ``tools/pre-execute`` decides allow, deny (``DENIED_BY_POLICY``) or ask.
5. **Guards**: ``tools/guard``; a deny (``DENIED_BY_GUARD``) is final. Guards run before anyone
   is asked, so nobody is asked about a call a floor denies; they see the call in the mode it
   would run in, an escalation's included.
6. **Approval**, on ask or escalation: the approval service (:mod:`seamhost.approval.service`);
   only ``allowed-once`` proceeds, bound to this call and `args_digest`, for one dispatch.
7. **Sandbox readiness**: the effective mode is the approved escalation, else the last
   ``sandbox/mode`` event, else the profile's; a tool that runs subprocesses in a confining mode
   needs a ``sandbox/confine`` provider that answers (``SANDBOX_UNAVAILABLE`` before dispatch).
8. **Dispatch**: ``tool/dispatch`` is appended; the ``tools/execute`` chain runs (a checkpoint
   policy flushes there: ``CHECKPOINT_FAILED``, ``ABORTED_BEFORE_DISPATCH``).
9. **Body**, with a :class:`~seamhost.tool.call.ToolContext` and a confining runner.
10. **Post-execute** (``tools/post-execute``). 11. **Notify**: ``tools/result`` observers see
    every settled call, refusals included, in model order just before its result is committed.
12. **Ordered commit**: consecutive concurrency-safe calls form a batch whose bodies run in
    parallel (bounded); an exclusive call is a batch of its own (a barrier). Results are appended
    strictly in model order; additional contexts are appended after all results of the step.

Governance (steps 3-7) runs call by call in model order; the dispatch records of a batch are
appended together, so one flush makes all of them durable. A cancelled step gives every call that
was not dispatched ``ABORTED_BEFORE_DISPATCH``; bodies already started are awaited, never
abandoned.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from seamhost import jsonvalue
from seamhost.approval.request import Answerers
from seamhost.approval.service import ApprovalService, Grant
from seamhost.errors import ErrorCode, SandboxUnavailable, describe
from seamhost.jsonvalue import FrozenDict
from seamhost.run.arguments import (
    InvalidEscalation,
    effective_mode,
    parse_arguments,
    parse_escalation,
)
from seamhost.run.confining import Confinement, batches
from seamhost.run.outcomes import APPROVAL_CODES, Ready, Refused, aborted, refused, trace
from seamhost.schema import Validator, compile_schema
from seamhost.session.events import (
    InboxSpliced,
    ToolCall,
    ToolDispatch,
    ToolError,
    ToolResultEvent,
)
from seamhost.tool.call import ToolContext, ToolExecution, ToolInvocation, ToolOutput
from seamhost.tool.decision import Verdict
from seamhost.tool.result import ToolFailed, ToolResult

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.llm.adapter import ToolCallProposal
    from seamhost.session.live import Session


@attrs.define
class ToolPipeline:
    """Runs the calls of assistant messages through the governed pipeline of one session."""

    bundle: Bundle
    session: Session
    workspace: Path
    approvals: ApprovalService
    parallelism: int = 4
    tool_timeout: float | None = None
    _used_grants: set[str] = attrs.field(factory=set, init=False)
    _roots: tuple[Path, ...] = attrs.field(init=False)
    _session_id: str = attrs.field(init=False)
    # The decision trail of each call being executed, by the id of its invocation: the body
    # puts it in its result's meta (a wrapper that passes another invocation just misses it).
    _trails: dict[int, tuple[FrozenDict, ...]] = attrs.field(factory=dict, init=False)
    _sandbox: Confinement = attrs.field(init=False)
    _validators: dict[str, Validator] = attrs.field(factory=dict, init=False)
    # The innermost link of every call's tools/execute chain: one object, so the chain is
    # composed once (a bound method read twice is two objects).
    _terminal: Callable[[ToolExecution], Awaitable[ToolResult]] = attrs.field(init=False)
    _answerers: Answerers = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._terminal = self._body
        seams = self.bundle.seams
        self._answerers = Answerers(
            tuple(seams.implementers("approval/request")), seams.approval_request
        )
        # The profile, the workspace and the session are fixed for the pipeline's life.
        self._roots = tuple(
            root if root.is_absolute() else self.workspace / root
            for root in self.bundle.profile.sandbox.writable_roots
        )
        self._session_id = self.session.id
        policy = self.bundle.profile.sandbox
        self._sandbox = Confinement(seams.confine, self.workspace, self._roots, policy.network)

    # -- the step -----------------------------------------------------------------------------

    async def run_step(
        self,
        turn: int,
        step: int,
        proposals: Sequence[ToolCallProposal],
        cancelled: asyncio.Event,
        *,
        parent: ToolExecution | None = None,
    ) -> list[ToolResult]:
        """Govern, dispatch and commit every call of one assistant message."""
        for proposal in proposals:
            tool = self.bundle.tools.get(proposal.name)
            self.session.append(
                ToolCall(
                    turn=turn,
                    step=step,
                    call_id=proposal.call_id,
                    name=proposal.name,
                    arguments=proposal.arguments,
                    descriptor_digest=tool.digest if tool is not None else None,
                )
            )
        results: list[ToolResult] = []
        for batch in batches(proposals, self.bundle.tools):
            results += await self._run_batch(turn, step, batch, cancelled, parent)
        contexts: tuple[str, ...] = ()
        for result in results:
            if result.additional_contexts:
                contexts += result.additional_contexts
        if contexts:
            self.session.append(InboxSpliced(turn=turn, step=step, contexts=contexts))
        return results

    async def _run_batch(
        self,
        turn: int,
        step: int,
        batch: Sequence[ToolCallProposal],
        cancelled: asyncio.Event,
        parent: ToolExecution | None,
    ) -> list[ToolResult]:
        # The outcome of each call, by its position in the batch (a model may repeat a call id).
        settled: list[ToolResult | None] = [None] * len(batch)
        calls: list[ToolInvocation | None] = [None] * len(batch)
        ready: list[tuple[int, Ready]] = []
        for index, proposal in enumerate(batch):
            if cancelled.is_set():
                settled[index] = aborted(proposal.call_id)
                continue
            outcome = await self._govern(turn, step, proposal)
            calls[index] = outcome.invocation
            if isinstance(outcome, Refused):
                settled[index] = outcome.result
            else:
                ready.append((index, outcome))
        dispatched: list[tuple[int, Ready]] = []
        for index, item in ready:
            call = item.invocation
            if cancelled.is_set():
                settled[index] = aborted(call.call_id)
                continue
            self.session.append(
                ToolDispatch(
                    call_id=call.call_id,
                    attempt=1,
                    sandbox_mode=call.sandbox_mode.value,
                    args_digest=call.args_digest,
                )
            )
            dispatched.append((index, item))
        if len(dispatched) == 1:
            index, item = dispatched[0]
            settled[index] = await self._execute(item, cancelled, parent)
        elif dispatched:
            # A bounded pool: at most `parallelism` workers, each taking the next call when its
            # last one settles (one task per worker, not one per call).
            pending = iter(dispatched)

            async def worker() -> None:
                for index, item in pending:
                    if cancelled.is_set():  # still waiting for a worker: its body never starts
                        settled[index] = aborted(item.invocation.call_id)
                    else:
                        settled[index] = await self._execute(item, cancelled, parent)

            workers = min(max(1, self.parallelism), len(dispatched))
            await asyncio.gather(*(worker() for _ in range(workers)))
        ordered: list[ToolResult] = settled  # type: ignore[assignment]  # every one is settled
        notify = self.bundle.seams.tools_result
        for invocation, result in zip(calls, ordered, strict=True):
            notify(invocation, result)
            self._commit(turn, step, result)
        return ordered

    # -- steps 3 to 7 -------------------------------------------------------------------------

    async def _govern(self, turn: int, step: int, proposal: ToolCallProposal) -> Ready | Refused:
        call_id = proposal.call_id
        tool = self.bundle.tools.get(proposal.name)
        if tool is None:
            known = ", ".join(sorted(self.bundle.tools)) or "none"
            return Refused(
                None,
                ToolResult.failure(
                    call_id,
                    ErrorCode.UNKNOWN_TOOL,
                    f"no tool named {proposal.name!r} in this bundle (tools: {known})",
                ),
            )
        validator = self._validators.get(tool.spec.name)
        if validator is None:  # the bundle's tools are fixed: compile each schema once
            validator = self._validators[tool.spec.name] = compile_schema(tool.spec.input_schema)
        arguments = parse_arguments(validator, proposal.arguments)
        if isinstance(arguments, str):
            return Refused(
                None, ToolResult.failure(call_id, ErrorCode.INVALID_ARGUMENTS, arguments)
            )
        mode = effective_mode(self.session, self.bundle.profile.sandbox.mode)
        escalation = None
        if proposal.sandbox_permissions is not None or proposal.justification is not None:
            try:
                escalation = parse_escalation(proposal, mode)
            except InvalidEscalation as exc:
                failure = ToolResult.failure(call_id, ErrorCode.ESCALATION_INVALID, str(exc))
                return Refused(None, failure)
        invocation = ToolInvocation(
            session_id=self._session_id,
            turn=turn,
            step=step,
            call_id=call_id,
            tool=tool,
            arguments=jsonvalue.freeze(arguments),
            args_digest=jsonvalue.digest(arguments, checked=True),  # checked when parsed
            workspace=self.workspace,
            sandbox_mode=mode,
        )
        decisions: list[FrozenDict] = []
        decision = await self.bundle.seams.tools_pre_execute(invocation)
        decisions.append(trace("policy", decision.verdict, decision.plugin, decision.reason))
        if decision.verdict is Verdict.DENY:
            return refused(
                invocation, ErrorCode.DENIED_BY_POLICY, decision.reason, decision.plugin, decisions
            )
        escalated = invocation
        if escalation is not None:
            escalated = attrs.evolve(invocation, sandbox_mode=escalation)
        guard = await self.bundle.seams.tools_guard(escalated)
        if guard.verdict is not Verdict.ALLOW:
            decisions.append(trace("guard", guard.verdict, guard.plugin, guard.reason))
            return refused(
                escalated, ErrorCode.DENIED_BY_GUARD, guard.reason, guard.plugin, decisions
            )
        grant = None
        if decision.verdict is Verdict.ASK or escalation is not None:
            reason = decision.reason or "the call asks for a wider sandbox"
            if escalation is not None:
                reason = f"{reason}; requests {escalation}: {proposal.justification}"
            approval = await self.approvals.request(
                self._answerers,
                self.session,
                invocation,
                reason,
                turn_open=True,
                escalation=escalation,
                justification=proposal.justification,
            )
            decisions.append(
                trace("approval", approval.outcome, approval.answerer or "", approval.message)
            )
            if not approval.allowed:
                return refused(
                    invocation,
                    APPROVAL_CODES[approval.outcome],
                    approval.message,
                    approval.answerer or "",
                    decisions,
                )
            grant = Grant(approval.id, call_id, invocation.args_digest, escalation)
        invocation = escalated
        if invocation.tool.spec.runs_subprocesses and invocation.sandbox_mode.confining:
            unavailable = await self._sandbox.problem(invocation.sandbox_mode)
            if unavailable is not None:
                return refused(
                    invocation, ErrorCode.SANDBOX_UNAVAILABLE, unavailable, "", decisions
                )
        return Ready(invocation, grant, tuple(decisions))

    # -- steps 8 to 11 ------------------------------------------------------------------------

    async def _execute(
        self, item: Ready, cancelled: asyncio.Event, parent: ToolExecution | None
    ) -> ToolResult:
        call = item.invocation
        if item.grant is not None:
            if not item.grant.covers(call) or item.grant.approval_id in self._used_grants:
                return ToolResult.failure(
                    call.call_id,
                    ErrorCode.APPROVAL_UNAVAILABLE,
                    "the approval does not cover this dispatch; refused",
                )
            self._used_grants.add(item.grant.approval_id)
        execution = ToolExecution(call, 1, cancelled, session=self.session, parent=parent)
        self._trails[id(call)] = item.decisions  # the body's result carries them from the start
        try:
            result = await self.bundle.seams.tools_execute(execution, self._terminal)
        finally:
            del self._trails[id(call)]
        result = await self.bundle.seams.tools_post_execute(call, result)
        if result.meta.get("decisions") is not item.decisions:  # made or replaced on the way
            result = result.with_meta(decisions=item.decisions)
        return result

    async def _body(self, execution: ToolExecution) -> ToolResult:
        call = execution.invocation
        spec = call.tool.spec
        context = ToolContext(
            call_id=call.call_id,
            arguments=call.arguments,
            workspace=self.workspace,
            sandbox_mode=call.sandbox_mode,
            writable_roots=self._roots,
            cancelled=execution.cancelled,
            runner=self._sandbox.runner(call.sandbox_mode),
        )
        meta: dict[str, Any] = {"sandbox_mode": str(call.sandbox_mode)}
        trail = self._trails.get(id(call))
        if trail is not None:
            meta["decisions"] = trail
        output: ToolOutput  # a body is typed loosely in its declaration (tool/declaration.py)
        try:
            if self.tool_timeout is None:
                output = await spec.body(context)
            else:
                output = await asyncio.wait_for(spec.body(context), self.tool_timeout)
        except TimeoutError:
            return ToolResult.failure(
                call.call_id,
                ErrorCode.TOOL_TIMEOUT,
                f"{spec.name} did not finish within {self.tool_timeout:g}s",
                **meta,
            )
        except ToolFailed as exc:
            return attrs.evolve(
                ToolResult.failure(call.call_id, exc.code, exc.message, **meta), value=exc.value
            )
        except SandboxUnavailable as exc:
            return ToolResult.failure(call.call_id, ErrorCode.SANDBOX_UNAVAILABLE, str(exc), **meta)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return ToolResult.failure(
                call.call_id, ErrorCode.TOOL_ERROR, f"{spec.name} failed: {describe(exc)}", **meta
            )
        for key, value in output.meta.items():
            meta[key] = jsonvalue.freeze(value)
        error = None
        if output.is_error:
            error = ToolError(output.error_code or ErrorCode.TOOL_ERROR, output.content)
        return ToolResult(
            call.call_id,
            output.content,
            value=output.value,
            error=error,
            meta=FrozenDict(meta),  # every value is frozen: taken as it is, trail included
            additional_contexts=output.additional_contexts,
        )

    # -- step 12 ------------------------------------------------------------------------------

    def _commit(self, turn: int, step: int, result: ToolResult) -> None:
        error = result.error
        self.session.append(
            ToolResultEvent(
                turn=turn,
                step=step,
                call_id=result.call_id,
                is_error=error is not None,
                content=result.content,
                error=error,
                value=result.value,
                meta=result.meta or None,
            )
        )


__all__ = ["ToolPipeline", "effective_mode"]
