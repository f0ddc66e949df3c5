"""One connection's ``tools/call`` requests as turns of one durable session.

The log is the session's, and it keeps its shape (docs/design.md §4): turns do not overlap and a
step's results are committed in the order its calls were taken. So the calls are taken in
batches: a call that arrives while no batch runs starts one at once (no waiting for company:
a lone call pays nothing), and the calls that arrive while a batch runs form the next one. A
batch is one turn of the session:

``turn/start`` · ``user/message`` (source ``mcp``, naming the client) · ``step/start`` ·
``assistant/message`` (the batch's calls, in arrival order, arguments as received) · the
governed pipeline (``tool/call`` ... ``tool/result`` for each) · ``step/end`` · ``turn/end``.

Inside a batch the pipeline runs as for a model's message: concurrency-safe bodies overlap
(bounded by ``[limits] parallelism``), an exclusive call is a barrier, results are committed in
arrival order. A call that arrives while a batch runs waits for the next one. The step runs
inside the ``agent/pre-step`` chain, so a checkpoint policy makes the turn's start durable, and
``tools/execute`` makes each dispatch durable before the body starts (§6): a server killed
mid-call leaves a tail that repair closes as ``TOOL_OUTCOME_UNKNOWN`` for a dispatched call.
A result is answered as soon as it is committed; it becomes durable with the next flush (the
write-behind window, the next batch's checkpoint, or closing).

Cancellation (``notifications/cancelled``): a call still waiting for its batch is dropped, never
recorded; a call of the running batch is cancelled alone, with the pipeline's rules (not yet
dispatched: ``ABORTED_BEFORE_DISPATCH``; a started body sees its cancellation and is awaited;
a question open about it ends ``cancelled``): each call has its own cancellation event
(:attr:`~seamhost.run.pipeline.ToolPipeline.cancel_events`), the other calls run on.

A deferred approval (docs/design.md §11) parks the batch's turn: the call gets
``APPROVAL_DEFERRED``, the calls after it are not run, and later calls are refused with the same
code until the question is answered; ``seamhost mcp serve --session ID`` then continues the
parked step (its results go to the log) before it serves again.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

import attrs

from seamhost.approval.request import Answerers
from seamhost.errors import ErrorCode, describe
from seamhost.gateway.elicitation import Asker, chain
from seamhost.llm.adapter import ToolCallProposal
from seamhost.run.budget import Budget
from seamhost.run.pipeline import ToolPipeline
from seamhost.session.events import (
    AssistantMessage,
    ProposedCall,
    StepEnd,
    StepStart,
    TurnEnd,
    TurnStart,
    UserMessage,
)
from seamhost.session.live import StepContext
from seamhost.session.suspension import find_suspension
from seamhost.tool.result import ToolResult

if TYPE_CHECKING:
    from pathlib import Path

    from seamhost.approval.service import ApprovalService
    from seamhost.kernel.bundle import Bundle
    from seamhost.session.live import Session

STEP = 1  # a batch's turn has one step


@attrs.define(eq=False)
class Pending:
    """A call waiting for its result: what the client sent, and how to ask its user."""

    name: str
    arguments: str
    asker: Asker
    client: str = "an MCP client"  # as it introduced itself, for the turn's user message
    done: asyncio.Future[ToolResult] = attrs.field(factory=asyncio.Future)
    call_id: str | None = None  # given when its batch takes it
    cancelled: bool = False


class Conductor:
    """Drives one session's turns from the calls of its connection(s)."""

    def __init__(
        self,
        bundle: Bundle,
        session: Session,
        workspace: Path,
        approvals: ApprovalService,
        *,
        elicitation_timeout: float,
    ) -> None:
        limits = bundle.profile.limits
        self.bundle = bundle
        self.session = session
        seams = bundle.seams
        bundle_chain = Answerers(
            tuple(seams.implementers("approval/request")), seams.approval_request
        )
        self._askers: dict[str, Asker] = {}  # by call id, while its batch runs
        self.pipeline = ToolPipeline(
            bundle,
            session,
            workspace,
            approvals,
            parallelism=limits.parallelism,
            tool_timeout=limits.tool_timeout_s,
            tool_retries=limits.tool_retries,
            answerers=chain(
                bundle_chain,
                self._askers.get,
                elicitation_timeout,
                may_escalate=bundle.profile.gateway.elicitation_may_escalate,
            ),
        )
        self.pipeline.budget = Budget(limits, session)
        # A call's own cancellation is its asker's: the client cancelled that request.
        self._signals: dict[str, asyncio.Event] = {}
        self.pipeline.cancel_events = self._signals
        self._turn = max(
            (int(r.data["turn"]) for r in session.records if r.type == "turn/start"), default=0
        )
        self._queue: list[Pending] = []
        self._batch: list[Pending] = []
        self._never = asyncio.Event()  # the batch's own event: every call has its own instead
        self._driver: asyncio.Task[None] | None = None
        self.parked: str | None = None  # the approval a parked turn waits on

    # -- what the server calls ----------------------------------------------------------------

    async def call(self, pending: Pending) -> ToolResult:
        """The result of one call: queued, taken by the next batch, governed, committed."""
        if self.parked is not None:
            return ToolResult.failure(
                "-",
                ErrorCode.APPROVAL_DEFERRED,
                f"session {self.session.id} awaits approval {self.parked}; answer it with "
                f"`seamhost approve` or `seamhost reject`, then serve it again with "
                f"`seamhost mcp serve --session {self.session.id}`",
            )
        self._queue.append(pending)
        if self._driver is None:
            self._driver = asyncio.ensure_future(self._drive())
        try:
            return await asyncio.shield(pending.done)
        except asyncio.CancelledError:
            self.cancel(pending)
            raise

    def cancel(self, pending: Pending) -> None:
        """The client cancelled `pending` (see the module docstring for what that does)."""
        pending.cancelled = True
        pending.asker.cancelled.set()

    async def resume_parked(self) -> None:
        """Continue a step parked on a deferred approval, when its question was answered."""
        parked = find_suspension(self.session.records)
        if parked is None:
            return
        cancelled = asyncio.Event()
        await self.pipeline.resume_step(parked.turn, parked.step, parked, cancelled)
        if self.pipeline.suspended is not None:
            self.parked = self.pipeline.suspended
            return
        self.session.append(StepEnd(turn=parked.turn, step=parked.step))
        self.session.append(TurnEnd(turn=parked.turn, reason="completed"))

    async def close(self) -> None:
        """Let the running batch settle (cancelling what has not started), then flush."""
        for pending in [*self._queue, *self._batch]:
            self.cancel(pending)
        if self._driver is not None:
            await asyncio.wait([self._driver])
        await self.flush()

    async def flush(self) -> None:
        """Make what the session holds durable (a memory-only session has nothing to flush)."""
        from seamhost.errors import SeamUnavailable

        with contextlib.suppress(SeamUnavailable):
            await self.session.flush()

    # -- the batches --------------------------------------------------------------------------

    async def _drive(self) -> None:
        try:
            while self._queue:
                batch = [p for p in self._queue if not p.cancelled]
                for pending in self._queue:
                    if pending.cancelled and not pending.done.done():
                        pending.done.cancel()  # never taken: nothing was recorded
                self._queue = []
                failed = None
                if batch and self.parked is None:
                    try:
                        await self._run_batch(batch)
                    except Exception as exc:  # the log refused a record: the session is unusable
                        failed = describe(exc)
                for pending in batch:  # parked, or a batch that failed: nothing to wait for
                    if not pending.done.done():
                        pending.done.set_result(self._unsettled(pending, failed))
        finally:
            self._driver = None

    async def _run_batch(self, batch: list[Pending]) -> None:
        self._turn = turn = self._turn + 1
        proposals = []
        for index, pending in enumerate(batch, 1):
            pending.call_id = f"mcp-{turn}-{index}"
            self._askers[pending.call_id] = pending.asker
            self._signals[pending.call_id] = pending.asker.cancelled
            proposals.append(ToolCallProposal(pending.call_id, pending.name, pending.arguments))
        self._batch = batch
        session = self.session
        session.append(TurnStart(turn=turn))
        session.append(
            UserMessage(
                turn=turn, step=0, content=f"tools/call from {batch[0].client}", source="mcp"
            )
        )
        opened: list[int] = []

        async def proceed(ctx: StepContext) -> None:
            session.append(StepStart(turn=turn, step=STEP))
            opened.append(STEP)
            calls = tuple(ProposedCall(p.call_id, p.name, p.arguments) for p in proposals)
            session.append(AssistantMessage(turn=turn, step=STEP, content="", tool_calls=calls))
            results = await self.pipeline.run_step(turn, STEP, proposals, self._never)
            by_id = {result.call_id: result for result in results}
            for pending in batch:
                result = by_id.get(str(pending.call_id))
                if result is not None and not pending.done.done():
                    pending.done.set_result(result)
            if self.pipeline.suspended is None:
                session.append(StepEnd(turn=turn, step=STEP))
                opened.pop()

        reason, message = "completed", None
        try:
            await self.bundle.seams.agent_pre_step(StepContext(session, turn, STEP), proceed)
            if self.pipeline.suspended is not None:
                self.parked = self.pipeline.suspended
                return  # the turn stays open, parked (docs/design.md §11)
            if not opened and not any(p.done.done() for p in batch):
                reason, message = "aborted", "an agent/pre-step implementation stopped the step"
            elif self.pipeline.limit_reached is not None:
                reason, message = "error", self.pipeline.limit_reached
        except Exception as exc:
            reason, message = "error", describe(exc)
        finally:
            for pending in batch:
                self._askers.pop(str(pending.call_id), None)
                self._signals.pop(str(pending.call_id), None)
        if opened:
            session.append(StepEnd(turn=turn, step=opened.pop()))
        session.append(TurnEnd(turn=turn, reason=reason, message=message))  # type: ignore[arg-type]

    def _unsettled(self, pending: Pending, failed: str | None) -> ToolResult:
        """The answer for a call its batch did not settle: parked, failed, or never started."""
        call_id = pending.call_id or "-"
        if failed is not None:  # whether its body ran cannot be told from here: never a guess
            return ToolResult.failure(
                call_id,
                ErrorCode.TOOL_OUTCOME_UNKNOWN,
                f"the session failed while the call was governed ({failed}); "
                f"`seamhost session show {self.session.id}` says how far it went",
            )
        if self.parked is not None:
            return ToolResult.failure(
                call_id,
                ErrorCode.APPROVAL_DEFERRED,
                f"session {self.session.id} awaits approval {self.parked}; answer it with "
                f"`seamhost approve` or `seamhost reject`, then `seamhost mcp serve --session "
                f"{self.session.id}` continues the step",
            )
        return ToolResult.failure(
            call_id, ErrorCode.ABORTED_BEFORE_DISPATCH, "the step did not run; nothing was started"
        )


__all__ = ["Conductor", "Pending"]
