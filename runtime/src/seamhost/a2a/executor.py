"""The SDK's ``AgentExecutor`` over :class:`~seamhost.a2a.tasks.Tasks`.

The SDK calls :meth:`SessionExecutor.execute` once per message of a task (the first one, or a
follow-up on an ``input-required`` task) and :meth:`SessionExecutor.cancel` for ``tasks/cancel``
before it cancels the running ``execute``; so the cancel waits for the turn to settle by the
run's own cancel path, and ``execute`` never sees the SDK's cancellation mid-record. A message
without text is rejected before anything is recorded; anything raised while serving ends the
task ``failed`` with its one-line description, never a traceback.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from a2a.helpers import new_task, new_text_message
from a2a.server.agent_execution import AgentExecutor
from a2a.server.tasks import TaskUpdater
from a2a.types import a2a_pb2 as a2a

from seamhost.a2a.tasks import Tasks, failure
from seamhost.gateway.limits import note

if TYPE_CHECKING:
    from a2a.server.agent_execution import RequestContext
    from a2a.server.events import EventQueue


class SessionExecutor(AgentExecutor):
    """Each task a durable session of the bundle (:mod:`seamhost.a2a.tasks`)."""

    def __init__(self, tasks: Tasks) -> None:
        self.tasks = tasks

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = _updater(context, event_queue)
        follow_up = context.current_task is not None
        if not follow_up:  # the SDK wants the task itself before any of its updates
            history = [context.message] if context.message is not None else []
            await event_queue.enqueue_event(
                new_task(
                    updater.task_id,
                    updater.context_id,
                    a2a.TaskState.TASK_STATE_SUBMITTED,
                    history=history,
                )
            )
        text = context.get_user_input()
        if not follow_up and not text.strip():
            message = "the message has no text part; nothing was recorded"
            await updater.reject(_say(updater, message))
            return
        # Shielded: the SDK cancels this coroutine after `cancel` below let the turn settle;
        # a cancellation that comes any other way (the server stopping) cancels the turn too.
        serving = asyncio.ensure_future(self.tasks.serve(updater, text, follow_up=follow_up))
        try:
            await asyncio.shield(serving)
        except asyncio.CancelledError:
            running = self.tasks.running.get(updater.task_id)
            if running is not None:
                running.cancel()
            await asyncio.wait([serving])
            raise
        except Exception as exc:
            note(f"task {updater.task_id}: {failure(exc)}")
            await updater.failed(_say(updater, failure(exc)))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await self.tasks.cancel(_updater(context, event_queue))


def _updater(context: RequestContext, event_queue: EventQueue) -> TaskUpdater:
    return TaskUpdater(event_queue, str(context.task_id), str(context.context_id))


def _say(updater: TaskUpdater, text: str) -> a2a.Message:
    return new_text_message(text, context_id=updater.context_id, task_id=updater.task_id)


__all__ = ["SessionExecutor"]
