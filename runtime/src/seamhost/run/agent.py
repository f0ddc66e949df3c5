"""The agent loop: turns and steps over one session (design.md §4, §5, §6).

A turn appends ``turn/start`` and the ``user/message`` (step 0), then runs steps until the model
answers without tool calls. Each step runs inside the ``agent/pre-step`` chain (a checkpoint
policy flushes there); the step appends ``step/start``, asks the model through the
``llm/stream`` chain whose innermost link is the ``llm/adapter`` provider, appends the
``assistant/message`` with the raw calls (and, in a bundle with barriers, flushes it: the
answer is durable before any call is governed), runs the calls through the governed pipeline
(:mod:`seamhost.run.pipeline`) and appends ``step/end``. The turn ends with ``turn/end``:
``completed``, ``aborted`` (cancelled, or a pre-step implementation stopped the step), or
``error`` (the model is unavailable or failed, a checkpoint failed, the step limit was reached).

A call whose approval is deferred parks the turn (design.md §11): the run ends ``suspended`` with
the step and the turn left open (:mod:`seamhost.session.suspension`), and :meth:`Agent.resume`
continues them once the question is answered. A turn a crash cut short is finished by
:meth:`Agent.continue_turn` (:mod:`seamhost.run.continuing`).

What the model is shown is derived from the log, incrementally (:mod:`seamhost.run.conversation`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seamhost.approval.service import ApprovalService
from seamhost.errors import ErrorCode, LimitReached, SeamUnavailable, describe
from seamhost.llm.adapter import ModelFailed, ModelRequest, ToolCallProposal
from seamhost.run.budget import Budget
from seamhost.run.conversation import Conversation
from seamhost.run.model_request import RequestDigests, request_model
from seamhost.run.pipeline import ToolPipeline
from seamhost.run.turn_outcome import TurnOutcome
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

if TYPE_CHECKING:
    from seamhost.approval.request import Answerers
    from seamhost.kernel.bundle import Bundle
    from seamhost.llm.adapter import ModelAdapter
    from seamhost.session.continuation import ContinuationPlan
    from seamhost.session.live import Session


class Agent:
    """Drives turns of one session through a bundle."""

    def __init__(
        self,
        bundle: Bundle,
        session: Session,
        *,
        workspace: Path,
        approvals: ApprovalService | None = None,
        answerers: Answerers | None = None,
        parallelism: int | None = None,
        max_steps: int | None = None,
        tool_timeout: float | None = None,
        tool_retries: int | None = None,
        visible_tools: Iterable[str] | None = None,
    ) -> None:
        # Each bound not given here is the profile's ``[limits]`` value; `answerers` is the chain
        # approvals are asked of (default: the bundle's approval/request implementers).
        limits = bundle.profile.limits
        self.bundle = bundle
        self.session = session
        self.workspace = workspace
        self.max_steps = limits.max_steps if max_steps is None else max_steps
        self.cancelled = asyncio.Event()
        self.redact = bundle.profile.redactor  # what keeps its secrets out of recorded errors
        self.pipeline = ToolPipeline(
            bundle,
            session,
            workspace,
            approvals or bundle.seams.approval_service() or ApprovalService(),
            parallelism=limits.parallelism if parallelism is None else parallelism,
            tool_timeout=limits.tool_timeout_s if tool_timeout is None else tool_timeout,
            tool_retries=limits.tool_retries if tool_retries is None else tool_retries,
            answerers=answerers,
        )
        names = set(bundle.tools) if visible_tools is None else set(visible_tools)
        shown = sorted(names & set(bundle.tools))
        self._tools = tuple(bundle.tools[name].spec.model_declaration() for name in shown)
        self.budget = Budget(bundle.profile.limits, session)
        self.pipeline.budget = self.budget
        self._adapter: ModelAdapter | None = None
        # Called with each piece of assistant text as it streams (a terminal shows it live); the
        # log records the message only once its attempt ended with a terminal event.
        self.on_text: Callable[[str], None] | None = None
        self._view = Conversation(bundle, session)
        self._digests = RequestDigests()  # each request's digest, fed its new messages only

    @property
    def turn(self) -> int:
        """The number of the last turn started in the session (0 when none)."""
        return self._view.turn

    @property
    def messages(self) -> tuple[dict[str, Any], ...]:
        """The conversation as the model sees it, derived from the log."""
        return tuple(self._view.derive())

    def cancel(self) -> None:
        """Cancel the running turn: undispatched calls are aborted, started bodies settle."""
        self.cancelled.set()

    def release(self) -> None:
        """Release what the agent holds (its pipeline's pinned roots) once it runs no more:
        otherwise they are closed when the collector gets to them."""
        self.pipeline.release()

    def _rearm(self) -> None:
        """A new, unset cancel event for the turn about to run. Not `clear()`: an asyncio.Event
        binds to the loop it is first awaited in, and turns may run in successive loops (one
        ``asyncio.run`` each); the old event would then fail every wait, read as a cancel."""
        self.cancelled = asyncio.Event()

    # -- the turn -----------------------------------------------------------------------------

    async def run_turn(self, user: str, *, source: str = "user") -> TurnOutcome:
        """Run one turn for the user's message and return how it ended."""
        turn = self._view.turn + 1
        self._rearm()
        self.session.append(TurnStart(turn=turn))
        self.session.append(UserMessage(turn=turn, step=0, content=user, source=source))
        return await self.run_steps(turn, 0, [])

    async def resume(self) -> TurnOutcome | None:
        """Continue the turn parked on a deferred approval; ``None`` when nothing is parked.

        The deferred call goes on from the guards once its question was answered (or is refused,
        when rejected or expired), then the rest of its step in model order, then the next steps.
        While the question is still pending, nothing is written and the turn stays suspended.
        """
        parked = find_suspension(self.session.records)
        if parked is None:
            return None
        self._rearm()
        turn, step = parked.turn, parked.step
        try:
            await self.pipeline.resume_step(turn, step, parked, self.cancelled)
        except Exception as exc:
            return self.close_turn(turn, step, [step], "error", describe(exc))
        if self.pipeline.suspended is not None:
            return self.suspended_turn(turn, step, self.pipeline.suspended)
        self.session.append(StepEnd(turn=turn, step=step))
        return await self.run_steps(turn, step, [])

    async def continue_turn(self, plan: ContinuationPlan | None = None) -> TurnOutcome | None:
        """Drive the session's open turn to its end after a crash (design.md §6, "Continue").

        `plan` is what :func:`~seamhost.run.sessions.continue_session` returned (read again from
        the log when not given). A turn parked on a deferred approval is resumed
        (:meth:`resume`). ``None`` when no turn is open. See :mod:`seamhost.run.continuing`.
        """
        from seamhost.run.continuing import continue_open_turn

        if find_suspension(self.session.records) is not None:
            return await self.resume()
        if plan is None:
            from seamhost.session.continuation import plan_continuation

            plan = plan_continuation(self.session.header, self.session.records)
        if plan is None:
            return None
        self._rearm()
        return await continue_open_turn(self, plan)

    async def run_steps(
        self, turn: int, step: int, open_step: list[int], *, reissue: int | None = None
    ) -> TurnOutcome:
        """Run steps after `step` until the turn ends (or parks), then close it.

        With `reissue`, step `step + 1` is already open: its request is issued again, as that
        attempt, without a second ``step/start``.
        """
        reason, message = "completed", None
        try:
            while True:
                if self.cancelled.is_set():
                    reason, message = "aborted", "cancelled"
                    break
                step += 1
                if step > self.max_steps:
                    reason, message = "error", f"the step limit ({self.max_steps}) was reached"
                    break
                proposals = await self._step(turn, step, open_step, reissue)
                reissue = None
                if self.pipeline.suspended is not None:
                    return self.suspended_turn(turn, step, self.pipeline.suspended)
                if self.pipeline.limit_reached is not None:  # a call found the budget spent
                    reason, message = "error", self.pipeline.limit_reached
                    break
                if proposals is None:
                    reason, message = "aborted", "an agent/pre-step implementation stopped the step"
                    break
                if not proposals:
                    break
        except SeamUnavailable as exc:
            code = ErrorCode.MODEL_UNAVAILABLE if exc.seam == "llm/adapter" else None
            reason, message = "error", f"{code}: {exc}" if code else str(exc)
        except ModelFailed as exc:
            reason = "aborted" if exc.kind == "cancelled" else "error"
            message = (
                "cancelled" if exc.kind == "cancelled" else f"{ErrorCode.MODEL_UNAVAILABLE}: {exc}"
            )
        except LimitReached as exc:
            reason, message = "error", str(exc)
        except Exception as exc:
            reason, message = "error", describe(exc)
        return self.close_turn(turn, step, open_step, reason, message)

    def close_turn(
        self, turn: int, step: int, open_step: list[int], reason: str, message: str | None
    ) -> TurnOutcome:
        if open_step:
            self.session.append(StepEnd(turn=turn, step=open_step.pop()))
        if message is not None:  # it may quote a provider's or a plugin's error
            message = self.redact(message)
        self.session.append(TurnEnd(turn=turn, reason=reason, message=message))  # type: ignore[arg-type]
        return TurnOutcome(turn, reason, step, message)

    def suspended_turn(self, turn: int, step: int, approval: str) -> TurnOutcome:
        """The turn parks: its step and the turn stay open in the log for :meth:`resume`."""
        message = f"awaits approval {approval}"
        return TurnOutcome(turn, "suspended", step, message, approval)

    async def _step(
        self, turn: int, step: int, open_step: list[int], reissue: int | None = None
    ) -> list[ToolCallProposal] | None:
        ran: list[list[ToolCallProposal]] = []

        async def proceed(ctx: StepContext) -> None:
            if reissue is None:  # else the step is open since before a crash
                self.session.append(StepStart(turn=turn, step=step))
            open_step.append(step)
            text, proposals = await self._ask_model(turn, step, reissue or 1)
            self.session.append(
                AssistantMessage(
                    turn=turn,
                    step=step,
                    content=text,
                    tool_calls=tuple(
                        ProposedCall(
                            p.call_id,
                            p.name,
                            p.arguments,
                            p.sandbox_permissions,
                            p.justification,
                        )
                        for p in proposals
                    ),
                )
            )
            if self.bundle.barriers:
                # The answer was paid for: durable before any of its calls is governed, so that
                # a crash from here on continues from it instead of asking again (design.md §6).
                await self.session.flush()
            if proposals:
                await self.pipeline.run_step(turn, step, proposals, self.cancelled)
            ran.append(proposals)
            if self.pipeline.suspended is not None:  # parked: the step stays open
                return
            self.session.append(StepEnd(turn=turn, step=step))
            open_step.pop()

        await self.bundle.seams.agent_pre_step(StepContext(self.session, turn, step), proceed)
        return ran[0] if ran else None

    async def _ask_model(
        self, turn: int, step: int, first_attempt: int = 1
    ) -> tuple[str, list[ToolCallProposal]]:
        if self._adapter is None:
            self._adapter = self.bundle.seams.llm_adapter()
        request = ModelRequest(
            self.session.id,
            turn,
            step,
            tuple(self._view.derive()),
            self._tools,
            session=self.session,
            max_output_tokens=self.budget.output_left(),
        )
        return await request_model(
            self.bundle.seams,
            self._adapter,
            request,
            self.budget,
            cancelled=self.cancelled,
            on_text=self.on_text,
            digests=self._digests,
            redact=self.redact,
            first_attempt=first_attempt,
        )


__all__ = ["Agent", "TurnOutcome"]
