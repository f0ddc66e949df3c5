"""A small remote A2A agent for the tools-a2a tests, built with the SDK's own server classes.

Run as ``python agent_server.py PORT STATE_DIR``; it serves its Agent Card at the well-known
path and JSON-RPC at ``/``, and requires ``Authorization: Bearer $AGENT_TOKEN`` on JSON-RPC
(401 otherwise). Its tasks live in ``STATE_DIR/tasks.json`` (a ``TaskStore`` of its own), so a
restarted agent still knows the tasks of the one before. What it does with a message's text:

* ``need input``: the task ends ``input-required`` asking "which city?";
* ``crash``: the task is accepted (its id streamed to the caller), then the agent records it
  completed in its store and kills its own process before the caller hears anything more;
* ``crash early``: the agent records the task completed and dies before sending anything;
* ``vanish``: the agent dies before any task exists;
* ``slow``: the task works for a minute (to be cancelled);
* anything else: the task completes with the artifact ``echo: TEXT`` (and the message's data).

``AGENT_CARD`` in the environment changes the card: ``v2`` serves another version and skill,
``invalid`` serves a JSON object that is not an Agent Card.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import uvicorn
from a2a.helpers.proto_helpers import get_data_parts, new_data_part, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandlerV2
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks.task_store import TaskStore
from a2a.server.tasks.task_updater import TaskUpdater
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    ListTasksRequest,
    ListTasksResponse,
    Task,
    TaskState,
    TaskStatus,
)
from google.protobuf.json_format import MessageToDict, ParseDict  # type: ignore[import-untyped]  # no hints
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route


class FileTaskStore(TaskStore):
    """Tasks as protobuf JSON in one file, rewritten on every save."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _load(self) -> dict[str, Any]:
        return json.loads(self.path.read_text()) if self.path.exists() else {}

    def put(self, task: Task) -> None:
        tasks = self._load()
        tasks[task.id] = MessageToDict(task)
        self.path.write_text(json.dumps(tasks))

    async def save(self, task: Task, context: ServerCallContext) -> None:
        self.put(task)

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        found = self._load().get(task_id)
        return None if found is None else ParseDict(found, Task())

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        tasks = [ParseDict(t, Task()) for t in self._load().values()]
        if params.context_id:
            tasks = [t for t in tasks if t.context_id == params.context_id]
        return ListTasksResponse(tasks=tasks, total_size=len(tasks), page_size=len(tasks))

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        tasks = self._load()
        tasks.pop(task_id, None)
        self.path.write_text(json.dumps(tasks))


class Echo(AgentExecutor):
    def __init__(self, store: FileTaskStore) -> None:
        self.store = store

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        task_id, context_id = context.task_id or "", context.context_id or ""
        updater = TaskUpdater(event_queue, task_id, context_id)
        if text == "vanish":  # dies before any task exists
            os._exit(0)
        if text == "crash early":  # does the work, then dies before the task id is sent
            done = Task(
                id=task_id,
                context_id=context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_COMPLETED),
            )
            if context.message is not None:
                done.history.append(context.message)
            done.artifacts.add(artifact_id="a1", parts=[new_text_part("done, unannounced")])
            self.store.put(done)
            os._exit(0)
        if context.current_task is None:
            await event_queue.enqueue_event(
                Task(
                    id=task_id,
                    context_id=context_id,
                    status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                )
            )
        await updater.start_work()
        if text == "need input":
            await updater.requires_input(updater.new_agent_message([new_text_part("which city?")]))
            return
        if text == "crash":
            await asyncio.sleep(0.5)  # the caller has the task id by now
            done = Task(
                id=task_id,
                context_id=context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_COMPLETED),
            )
            done.artifacts.add(artifact_id="a1", parts=[new_text_part("done before the crash")])
            self.store.put(done)
            os._exit(0)
        if text == "slow":  # works for a minute unless cancelled
            await asyncio.sleep(60)
        parts = [new_text_part(f"echo: {text}")]
        data = get_data_parts(list(context.message.parts)) if context.message else []
        parts += [new_data_part(d) for d in data]
        await updater.add_artifact(parts, name="echo")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()


def card(url: str, variant: str) -> AgentCard:
    version, skill = ("2.0.0", "shout") if variant == "v2" else ("1.0.0", "echo")
    return AgentCard(
        name="Echo agent",
        description="Echoes what it is told.",
        version=version,
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id=skill, name=skill, description=f"{skill}s", tags=["test"])],
    )


def app(port: int, state: Path) -> Any:
    url = f"http://127.0.0.1:{port}/"
    variant = os.environ.get("AGENT_CARD", "")
    token = os.environ.get("AGENT_TOKEN", "")
    the_card = card(url, variant)
    store = FileTaskStore(state / "tasks.json")
    handler = DefaultRequestHandlerV2(Echo(store), store, the_card)
    rpc = create_jsonrpc_routes(handler, "/")
    if variant == "invalid":

        async def not_a_card(request: Request) -> Response:
            return JSONResponse({"greeting": "hello", "version": "1.0.0"})

        card_routes = [Route("/.well-known/agent-card.json", not_a_card)]
    else:
        card_routes = create_agent_card_routes(the_card)
    application = Starlette(routes=[*card_routes, *rpc])

    async def bearer(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            headers = dict(scope["headers"])
            if headers.get(b"authorization") != f"Bearer {token}".encode():
                refusal = JSONResponse({"error": "a bearer token is required"}, status_code=401)
                await refusal(scope, receive, send)
                return
        await application(scope, receive, send)

    return bearer


if __name__ == "__main__":
    port, state = int(sys.argv[1]), Path(sys.argv[2])
    uvicorn.run(app(port, state), host="127.0.0.1", port=port, log_level="warning")
