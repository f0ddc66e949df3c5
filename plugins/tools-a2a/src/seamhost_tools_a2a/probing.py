"""The status probe of a delegation whose outcome is unknown: ask the agent for its task.

With the remote task id the lost answer had already carried (the unknown result's meta,
``a2a_task_id``), the probe sends ``tasks/get``; without it (the connection dropped before the
task id arrived), it asks ``tasks/list`` for the tasks of the call's context
(:func:`~seamhost_tools_a2a.delegation.context_id`) and takes the one whose history holds the
attempt's message (or, for a first attempt, the only one, when the agent keeps no history).
What the task's state says:

* finished or waiting for input: :class:`Resolved` with what the call would have returned
  (``failed``/``rejected``/``canceled``: resolved as ``TOOL_ERROR``);
* ``submitted`` / ``working``: :class:`Pending`, ask again later;
* no task found (or the agent lists none): the probe raises, naming the agent, and the outcome
  honestly stays unknown: the message may never have arrived, or the agent keeps no tasks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from seamhost import Pending, Resolved
from seamhost_tools_a2a.delegation import MountedAgent, context_id, http_client, output
from seamhost_tools_a2a.errors import A2aAgentError
from seamhost_tools_a2a.task_view import TaskView

if TYPE_CHECKING:
    from seamhost import Probe

RETRY_S = 2.0  # when to ask again about a task still working
HISTORY = 100  # messages of each listed task to search for the attempt's message


async def probe_task(tool: MountedAgent, probe: Probe) -> Pending | Resolved:
    """What became of the unknown delegation `probe` asks about (see the module docstring)."""
    import httpx
    from a2a.client import ClientConfig, ClientFactory
    from a2a.types.a2a_pb2 import GetTaskRequest, ListTasksRequest

    agent = tool.agent
    task_id = probe.result_meta.get("a2a_task_id")
    async with http_client(agent) as http:
        client = ClientFactory(ClientConfig(httpx_client=http)).create(tool.card.parsed)
        try:
            if task_id:
                task: Any = await client.get_task(GetTaskRequest(id=str(task_id)))
            else:
                context = context_id(probe.idempotency_key)
                question = ListTasksRequest(
                    context_id=context, include_artifacts=True, history_length=HISTORY
                )
                listed = await client.list_tasks(question)
                task = _the_attempts(listed.tasks, probe)
                if task is None:
                    raise A2aAgentError(
                        agent.name,
                        f"no task id arrived and it lists no task of context {context} for "
                        "this attempt: the message may never have arrived; the outcome stays "
                        "unknown (reconcile it by hand)",
                    )
        except (httpx.HTTPError, OSError) as exc:
            raise A2aAgentError(agent.name, f"unreachable for the status probe: {exc}") from exc
        except A2aAgentError:
            raise
        except Exception as exc:  # the SDK's errors: the agent could not answer the question
            raise A2aAgentError(agent.name, f"could not tell about the task: {exc}") from exc
    view = TaskView()
    view.take_task(task)
    if not view.over:
        return Pending(RETRY_S, f'A2A agent "{agent.name}": task {view.task_id} is {view.state}')
    result = output(tool, view)
    if result.is_error:
        return Resolved(content=result.content, error_code=str(result.error_code))
    return Resolved(content=result.content, value=result.value)


def _the_attempts(tasks: Any, probe: Probe) -> Any:
    """The task whose history holds the attempt's message; else, for a first attempt, the
    context's only task with no history (a later attempt's could be an earlier one's task)."""
    message_id = f"{probe.idempotency_key}:{probe.attempt}"
    for task in tasks:
        if any(message.message_id == message_id for message in task.history):
            return task
    if probe.attempt == 1 and len(tasks) == 1 and not tasks[0].history:
        return tasks[0]
    return None
