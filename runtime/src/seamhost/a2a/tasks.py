"""One A2A task as one durable session of the bundle (docs/design.md §13, "Serve A2A").

**Opening.** The first message of a task creates its session, whose id *is* the task id
(:class:`TaskIds` gives the SDK session ids as task ids), so ``seamhost session show TASK``
reads it. Its first record is ``a2a/task {task_id, context_id}``; then one turn of the agent
loop for the message's text: ``turn/start``, ``user/message`` (source ``a2a``), the model's
steps and the governed pipeline, exactly as ``seamhost run`` records them. With ``--scenario``
the scripted model replays the file, session turn 1 being scripted turn 1: every task starts
from the scenario's first turn.

**How a turn ends is how the task ends:**

==========================================  ==========================================
turn                                        task
==========================================  ==========================================
``completed``                               ``completed``, the model's final text
``error``                                   ``failed``, the turn's message
``aborted`` (a cancel request)              ``canceled``
parked on a deferred approval (§11)         ``input-required``, naming the approval
parked on unknown outcomes (§10)            ``input-required``, naming the calls
==========================================  ==========================================

**Input required.** A parked turn's session is flushed and closed, so the writer is free: the
operator answers the question from any process, ``seamhost approve ID`` or ``seamhost reject
ID`` (digest-bound and audited as always, §11). The A2A client never answers it: the agent that
asked for the work must not approve its own calls. A follow-up message on the task (the A2A
way to continue an ``input-required`` task) reopens the session and resumes the parked step
(:meth:`~seamhost.run.agent.Agent.resume`): answered, the step goes on and the task with it;
still pending, nothing is written and the task stays ``input-required``. The follow-up's text
is not added to the conversation (the turn is mid-step); the status says so.

**Cancel** is the run's cancel path (:meth:`~seamhost.run.agent.Agent.cancel`): calls not yet
dispatched end ``ABORTED_BEFORE_DISPATCH``, a started body sees its cancellation and is
awaited, the turn ends ``aborted``; then the task is ``canceled``. A task parked on an approval
has no running turn: it is marked ``canceled`` and its session stays parked, its question open
for ``seamhost reject``.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from a2a.helpers import new_text_message
from a2a.server.id_generator import IDGenerator, IDGeneratorContext
from a2a.types import a2a_pb2 as a2a

from seamhost.a2a.updates import Updates
from seamhost.errors import SeamhostError, describe
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session, new_session_id, open_session
from seamhost.session.events import A2ATask
from seamhost.session.suspension import find_suspension

if TYPE_CHECKING:
    from a2a.server.tasks import TaskUpdater

    from seamhost.approval.service import ApprovalService
    from seamhost.kernel.bundle import Bundle
    from seamhost.run.turn_outcome import TurnOutcome
    from seamhost.session.live import Session

SOURCE = "a2a"  # the user message's source


class TaskIds(IDGenerator):
    """New task ids are new session ids: one id names the task and its session."""

    def generate(self, context: IDGeneratorContext) -> str:
        return new_session_id()


@attrs.define(eq=False)
class Running:
    """A request of a task being served here: its agent, once made, and what cancels it."""

    task_id: str
    agent: Agent | None = None
    cancelled: bool = False
    done: asyncio.Event = attrs.field(factory=asyncio.Event)

    def cancel(self) -> None:
        self.cancelled = True
        if self.agent is not None:
            self.agent.cancel()


@attrs.define(eq=False)
class Tasks:
    """Serves the tasks of one bundle in one workspace; at most `max_sessions` run at once."""

    bundle: Bundle
    workspace: Path
    approvals: ApprovalService
    max_sessions: int
    running: dict[str, Running] = attrs.field(factory=dict)

    async def serve(self, updater: TaskUpdater, text: str, *, follow_up: bool) -> None:
        """Serve one message of a task: a new one opens its session, a follow-up resumes it."""
        task_id = updater.task_id
        if not follow_up and len(self.running) >= self.max_sessions:
            await updater.reject(
                self._say(
                    updater,
                    f"this server runs {self.max_sessions} tasks already (--max-sessions); "
                    "nothing was recorded; send the message again later",
                )
            )
            return
        running = self.running[task_id] = Running(task_id)
        try:
            await self._serve(updater, text, running, follow_up=follow_up)
        finally:
            del self.running[task_id]
            running.done.set()

    async def cancel(self, updater: TaskUpdater) -> None:
        """Cancel the task's running turn and wait until it ended; else say it is canceled."""
        running = self.running.get(updater.task_id)
        if running is not None:
            running.cancel()
            await running.done.wait()  # its turn ended aborted, the task was said canceled
            return
        await updater.cancel(
            self._say(
                updater,
                "canceled; no turn was running. A question the session waits on stays open: "
                "`seamhost reject` closes it",
            )
        )

    async def _serve(
        self, updater: TaskUpdater, text: str, running: Running, *, follow_up: bool
    ) -> None:
        if follow_up:
            session, _ = await asyncio.to_thread(open_session, self.bundle, updater.task_id)
        else:
            session = create_session(
                self.bundle, session_id=updater.task_id, cwd=str(self.workspace)
            )
            session.append(A2ATask(task_id=updater.task_id, context_id=updater.context_id))
        updates = Updates(updater)
        try:
            session.listen(updates.record)
            updates.start()
            await updater.start_work(self._say(updater, f"session {session.id}: working"))
            agent = running.agent = Agent(
                self.bundle, session, workspace=self.workspace, approvals=self.approvals
            )
            if running.cancelled:
                agent.cancel()
            if follow_up:
                outcome = await agent.resume()
            else:
                outcome = await agent.run_turn(text, source=SOURCE)
            await session.flush()
        finally:
            await updates.drain()
            with contextlib.suppress(SeamhostError):
                session.close()
        await self._end(updater, session, outcome, follow_up=follow_up, cancelled=running.cancelled)

    async def _end(
        self,
        updater: TaskUpdater,
        session: Session,
        outcome: TurnOutcome | None,
        *,
        follow_up: bool,
        cancelled: bool,
    ) -> None:
        """The task's status from how its turn ended (the module docstring's table)."""
        meta: dict[str, Any] = {"seamhost/session": session.id}
        if outcome is None:  # a follow-up on a session with nothing parked
            await updater.failed(
                self._say(updater, f"session {session.id} has no parked turn to continue")
            )
            return
        meta["seamhost/turn"] = outcome.turn
        if outcome.reason in ("suspended", "parked"):
            await updater.update_status(
                a2a.TaskState.TASK_STATE_INPUT_REQUIRED,
                message=self._say(updater, self._waiting(session, outcome, follow_up)),
                metadata={**meta, "seamhost/approval": outcome.approval},
            )
            return
        if outcome.reason == "completed":
            await updater.complete(self._say(updater, _final_text(session, outcome.turn)))
        elif outcome.reason == "aborted" and cancelled:
            await updater.cancel(self._say(updater, f"canceled: turn {outcome.turn} aborted"))
        else:
            why = outcome.message or outcome.reason
            await updater.failed(self._say(updater, f"turn {outcome.turn} ended: {why}"))

    def _waiting(self, session: Session, outcome: TurnOutcome, follow_up: bool) -> str:
        note = " (your message was not added: the turn waits mid-step)" if follow_up else ""
        parked = find_suspension(session.records)
        if outcome.reason == "parked" or parked is None:
            return (
                f"session {session.id} waits until its unknown outcomes are reconciled: "
                f"`seamhost session reconcile {session.id}`, then send a message on this task "
                f"to continue{note}"
            )
        answer = f"{session.id} {parked.approval_id}"
        return (
            f"call {parked.call_id} ({parked.tool}) awaits approval {parked.approval_id}: "
            f"{parked.reason}. An operator answers with `seamhost approve {answer}` or "
            f"`seamhost reject {answer}`; then send a message on this task to continue{note}"
        )

    @staticmethod
    def _say(updater: TaskUpdater, text: str) -> a2a.Message:
        return new_text_message(text, context_id=updater.context_id, task_id=updater.task_id)


def _final_text(session: Session, turn: int) -> str:
    """The model's last text in `turn`: what the agent answers."""
    for record in reversed(list(session.records)):
        if record.type == "assistant/message" and record.data["turn"] == turn:
            return str(record.data["content"])
    return ""


def failure(exc: BaseException) -> str:
    """What a task that could not be served says."""
    return f"the task could not be served: {describe(exc)}"


__all__ = ["SOURCE", "Running", "TaskIds", "Tasks", "failure"]
