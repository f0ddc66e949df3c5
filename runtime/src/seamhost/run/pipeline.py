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
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.approval.service import ApprovalService
from seamhost.errors import ErrorCode
from seamhost.jsonvalue import FrozenDict
from seamhost.llm.adapter import ToolCallProposal
from seamhost.run.attempts import check_output, retry, run_body, stopped
from seamhost.run.confining import Confinement, batches
from seamhost.run.governance import Governance
from seamhost.run.outcomes import Deferred, Ready, Refused, aborted
from seamhost.sandbox.roots import Pins
from seamhost.session.events import (
    InboxSpliced,
    ToolAttemptFailed,
    ToolCall,
    ToolDispatch,
    ToolError,
    ToolResultEvent,
)
from seamhost.session.live import now_ms
from seamhost.tool.call import ToolContext, ToolExecution, ToolInvocation
from seamhost.tool.reconcile import idempotency_key
from seamhost.tool.result import ToolResult

if TYPE_CHECKING:
    from seamhost.approval.request import Answerers
    from seamhost.kernel.bundle import Bundle
    from seamhost.run.budget import Budget
    from seamhost.session.live import Session
    from seamhost.session.suspension import Suspension


@attrs.define
class ToolPipeline:
    """Runs the calls of assistant messages through the governed pipeline of one session."""

    bundle: Bundle
    session: Session
    workspace: Path
    approvals: ApprovalService
    parallelism: int = 4
    tool_timeout: float | None = None
    tool_retries: int = 0
    budget: Budget | None = None  # the session's [limits] budgets (the agent sets it)
    answerers: Answerers | None = None  # the approval chain; None: the bundle's answerers
    # Per-call cancellation (mcp serve: a client cancels one request of a batch): the event that
    # cancels a call, by call id, in place of the step's; None: the step's event cancels all.
    cancel_events: Mapping[str, asyncio.Event] | None = None
    limit_reached: str | None = attrs.field(default=None, init=False)  # why a dispatch was refused
    _used_grants: set[str] = attrs.field(factory=set, init=False)
    _pins: Pins = attrs.field(init=False)
    # The pinned roots' paths, as every body's context lists them (made once: the pins are fixed).
    _writable_roots: tuple[Path, ...] = attrs.field(init=False)
    _read_only_paths: tuple[Path, ...] = attrs.field(init=False)
    # The decision trail of each call being executed, by the id of its invocation: the body
    # puts it in its result's meta (a wrapper that passes another invocation just misses it).
    _trails: dict[int, tuple[FrozenDict, ...]] = attrs.field(factory=dict, init=False)
    _sandbox: Confinement = attrs.field(init=False)
    _governance: Governance = attrs.field(init=False)
    _redact: Callable[[str], str] = attrs.field(init=False)  # keeps secrets out of tool errors
    # The approval the last step parked on (design.md §11), ``None`` when it ran to its end.
    suspended: str | None = attrs.field(default=None, init=False)
    # A continuation (run/continuing.py): approvals that still stand for not-started calls, and
    # the attempt number of calls dispatched again, by call id; each is used once.
    carried: dict[str, Suspension] = attrs.field(factory=dict, init=False)
    next_attempts: dict[str, int] = attrs.field(factory=dict, init=False)
    # The innermost link of every call's tools/execute chain: one object, so the chain is
    # composed once (a bound method read twice is two objects).
    _terminal: Callable[[ToolExecution], Awaitable[ToolResult]] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._terminal = self._body
        self._redact = self.bundle.profile.redactor
        seams = self.bundle.seams
        # The profile, the workspace and the session are fixed for the pipeline's life; the
        # roots are resolved here, once, and pinned (design.md §5.7).
        policy = self.bundle.profile.sandbox
        self._pins = Pins.open(
            self.workspace,
            policy.writable_roots,
            policy.read_only_paths,
            label=str(self.bundle.profile.path),
        )
        self._writable_roots = tuple(pin.path for pin in self._pins.writable)
        self._read_only_paths = tuple(pin.path for pin in self._pins.read_only)
        self._sandbox = Confinement(seams.confine, self._pins, policy.network)
        self._governance = Governance(
            self.bundle, self.session, self.workspace, self.approvals, self._sandbox, self.answerers
        )

    # -- the step -----------------------------------------------------------------------------

    def release(self) -> None:
        """Close the pinned roots' descriptors once no call of this pipeline will run again."""
        self._pins.release()

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
        if parent is None:  # a limit reached ended its turn; a per-turn one holds no further
            self.limit_reached = None
        for proposal in proposals:
            tool = self.bundle.tools.get(proposal.name)
            # The hot records and values are made positionally (docs/design.md §9): a class
            # called with keywords first packs them into a dict, about 2.5k instructions.
            self.session.append(
                ToolCall(
                    turn,
                    step,
                    proposal.call_id,
                    proposal.name,
                    proposal.arguments,
                    tool.digest if tool is not None else None,  # descriptor_digest
                )
            )
        return await self.run_calls(turn, step, proposals, cancelled, parent)

    async def resume_step(
        self, turn: int, step: int, parked: Suspension, cancelled: asyncio.Event
    ) -> list[ToolResult]:
        """Continue a parked step: its deferred call from the guards on, then the calls after it.

        Nothing is written while the question is still pending (:attr:`suspended` says so).
        """
        proposals = [
            ToolCallProposal(
                str(c["call_id"]),
                str(c["name"]),
                str(c["arguments"]),
                c.get("sandbox_permissions"),
                c.get("justification"),
            )
            for c in parked.calls
        ]
        deferred = proposals[parked.index]
        verdict = await self._governance.resume(turn, step, deferred, parked, now_ms())
        self.suspended = None
        if isinstance(verdict, Deferred):
            self.suspended = verdict.approval_id
            return []
        results = await self._settle(turn, step, [verdict], cancelled, None)
        later = proposals[parked.index + 1 :]
        return results + (await self.run_calls(turn, step, later, cancelled, None) if later else [])

    async def run_calls(
        self,
        turn: int,
        step: int,
        proposals: Sequence[ToolCallProposal],
        cancelled: asyncio.Event,
        parent: ToolExecution | None,
    ) -> list[ToolResult]:
        """Govern, dispatch and commit calls whose intents are logged (a continuation's too)."""
        self.suspended = None
        results: list[ToolResult] = []
        for batch in batches(proposals, self.bundle.tools):
            settled, parked = await self._run_batch(turn, step, batch, cancelled, parent)
            results += settled
            if parked is not None:  # a deferred approval parks the rest of the step
                self.suspended = parked
                break
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
    ) -> tuple[list[ToolResult], str | None]:
        """The batch's results, and the approval it parked on (``None`` if it did not)."""
        verdicts: list[Ready | Refused] = []
        parked = None
        for proposal in batch:
            if self._signal(proposal.call_id, cancelled).is_set():
                verdicts.append(Refused(None, aborted(proposal.call_id)))
                continue
            carried = self.carried.pop(proposal.call_id, None)
            if carried is not None:  # its durable allowed-once stands (run/continuing.py)
                verdict = await self._governance.resume(turn, step, proposal, carried, now_ms())
            else:
                verdict = await self._governance.govern(turn, step, proposal)
            if isinstance(verdict, Deferred):  # the calls before it still run; none after it
                parked = verdict.approval_id
                break
            verdicts.append(verdict)
        return await self._settle(turn, step, verdicts, cancelled, parent), parked

    async def _settle(
        self,
        turn: int,
        step: int,
        verdicts: Sequence[Ready | Refused],
        cancelled: asyncio.Event,
        parent: ToolExecution | None,
    ) -> list[ToolResult]:
        """Dispatch the ready calls (in parallel when several), then commit all in model order."""
        # The outcome of each call, by its position (a model may repeat a call id).
        settled: list[ToolResult | None] = [None] * len(verdicts)
        dispatched: list[tuple[int, Ready]] = []
        for index, item in enumerate(verdicts):
            if isinstance(item, Refused):
                settled[index] = item.result
                continue
            call = item.invocation
            if self._signal(call.call_id, cancelled).is_set():
                settled[index] = aborted(call.call_id)
                continue
            spent = self.budget.check_dispatch(now_ms()) if self.budget is not None else None
            if spent is not None:  # design.md §12: the body never runs; the turn then ends
                code, _, problem = spent.partition(": ")
                settled[index] = ToolResult.failure(call.call_id, ErrorCode(code), problem)
                self.limit_reached = spent
                continue
            self.session.append(dispatch_record(call, self.next_attempts.get(call.call_id, 1)))
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
                    call_id = item.invocation.call_id
                    if self._signal(call_id, cancelled).is_set():  # its body never starts
                        settled[index] = aborted(item.invocation.call_id)
                    else:
                        settled[index] = await self._execute(item, cancelled, parent)

            workers = min(max(1, self.parallelism), len(dispatched))
            await asyncio.gather(*(worker() for _ in range(workers)))
        ordered: list[ToolResult] = settled  # type: ignore[assignment]  # every one is settled
        notify = self.bundle.seams.observer("tools/result")
        for verdict, result in zip(verdicts, ordered, strict=True):
            notify(verdict.invocation, result)
            self._commit(turn, step, result)
        return ordered

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
        attempt = self.next_attempts.pop(call.call_id, 1)
        cancelled = self._signal(call.call_id, cancelled)
        while True:
            execution = ToolExecution(call, attempt, cancelled, self.session, parent)
            self._trails[id(call)] = item.decisions  # the body's result carries them at once
            try:
                result = await self.bundle.seams.tools_execute(execution, self._terminal)
            finally:
                del self._trails[id(call)]
            if cancelled.is_set() or not retry(result, call.tool.spec, attempt, self.tool_retries):
                break
            # design.md §10: the failed attempt is recorded, then the next dispatch, which the
            # checkpoint in tools/execute makes durable before the body runs again.
            error = result.error or ToolError(ErrorCode.TOOL_ERROR, result.content)
            self.session.append(
                ToolAttemptFailed(call_id=call.call_id, attempt=attempt, error=error)
            )
            attempt += 1
            self.session.append(dispatch_record(call, attempt))
        result = await self.bundle.seams.tools_post_execute(call, result)
        if result.meta.get("decisions") is not item.decisions:  # made or replaced on the way
            result = result.with_meta(decisions=item.decisions)
        return result

    async def _body(self, execution: ToolExecution) -> ToolResult:
        call = execution.invocation
        spec = call.tool.spec
        context = ToolContext(
            call.call_id,
            call.arguments,
            self.workspace,
            call.sandbox_mode,
            self._writable_roots,
            execution.cancelled,
            self._sandbox.runner(call.sandbox_mode),  # runner
            call.session_id,
            execution.attempt,
            idempotency_key(call.session_id, call.call_id),
            self._read_only_paths,
            self._pins,
        )
        meta: dict[str, Any] = {"sandbox_mode": str(call.sandbox_mode)}
        trail = self._trails.get(id(call))
        if trail is not None:
            meta["decisions"] = trail
        result = await run_body(spec, context, self.tool_timeout, meta, self._redact)
        return stopped(check_output(result, spec, call.tool.value_validator), spec)

    def _signal(self, call_id: str, cancelled: asyncio.Event) -> asyncio.Event:
        """The event that cancels call `call_id`: its own (:attr:`cancel_events`), or the step's."""
        events = self.cancel_events
        return cancelled if events is None else events.get(call_id, cancelled)

    # -- step 12 ------------------------------------------------------------------------------

    def _commit(self, turn: int, step: int, result: ToolResult) -> None:
        error = result.error
        self.session.append(
            ToolResultEvent(
                turn,
                step,
                result.call_id,
                error is not None,  # is_error
                result.content,
                error,
                result.value,
                result.meta or None,  # meta
            )
        )


def dispatch_record(call: ToolInvocation, attempt: int) -> ToolDispatch:
    """The ``tool/dispatch`` of `attempt`: what repair and reconciliation will read."""
    spec = call.tool.spec
    return ToolDispatch(
        call.call_id,
        attempt,
        call.sandbox_mode.value,
        call.args_digest,
        spec.effect,
        spec.idempotent,
    )


__all__ = ["ToolPipeline", "dispatch_record"]
