"""The body of a mounted agent: one delegated task, followed until it is over (design.md §13).

Before anything is sent, the agent's card is fetched again: a card whose digest is not the one
pinned at mount ends the call ``TOOL_CHANGED`` naming what changed, and nothing is sent. The
message carries the call's identity: its ``messageId`` is ``<idempotency key>:<attempt>`` and its
``contextId`` is :func:`context_id` of the idempotency key (the same for every attempt), so the
agent can tell a repeat and a probe can find the task by context. The task is streamed when the
card says the agent streams (else the answer is polled with ``tasks/get``) until it is finished,
waiting for input, or the agent replied with a message. How the call ends:

* ``completed`` (or a direct reply): a result whose value is the task (:mod:`.task_view`);
* ``input-required`` / ``auth-required``: a result saying the agent waits, with the task id; the
  delegation does not answer it (a new call starts a new task);
* ``failed`` / ``rejected`` / ``canceled``: ``TOOL_ERROR`` with the agent's message;
* the agent could not be reached (connection refused, card unreachable): ``TOOL_ERROR`` "not
  sent", retryable: nothing left;
* the agent answered the request with an HTTP or JSON-RPC error: ``TOOL_ERROR``;
* the request left and the answer was lost (the connection dropped, the stream ended early,
  ``timeout_s`` passed): ``TOOL_OUTCOME_UNKNOWN``; the remote task id, when it arrived, is kept
  in the result's meta (``a2a_task_id``) for the status probe (:mod:`.probing`);
* the turn is cancelled: ``tasks/cancel`` is sent; a task the agent confirms ``canceled`` ends
  ``ABORTED`` (which the kernel records as an unknown outcome of a write tool, ``meta.stopped``,
  since the agent may have acted before it stopped: the probe then finds the task canceled),
  anything else is an unknown outcome.

Every result's meta names the agent and, once known, the remote task and context ids.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import TYPE_CHECKING, Any, Protocol

from seamhost import ErrorCode, ToolFailed, ToolOutput
from seamhost.jsonvalue import thaw
from seamhost_tools_a2a.card import changes, fetch_card
from seamhost_tools_a2a.errors import A2aAgentError
from seamhost_tools_a2a.task_view import FAILED, TaskView

if TYPE_CHECKING:
    import httpx
    from a2a.client import Client

    from seamhost import ToolContext
    from seamhost_tools_a2a.card import Card
    from seamhost_tools_a2a.settings import AgentSettings

POLL_S = 0.5  # between two tasks/get while a non-streamed task is not over
CANCEL_GRACE_S = 5.0  # how long tasks/cancel may take once the turn is cancelled


class MountedAgent(Protocol):
    """What a delegation reads of the tool it runs for.

    :class:`~seamhost_tools_a2a.mounted.MountedAgent` is one; it imports this module to make
    :func:`delegate` its body, so this module names what it needs instead of importing it back.
    """

    agent: AgentSettings
    card: Card
    name: str
    read_only: bool
    refusal: str | None


def context_id(idempotency_key: str) -> str:
    """The A2A ``contextId`` of a call: derived from its idempotency key, stable across attempts."""
    return "seamhost-" + hashlib.sha256(idempotency_key.encode()).hexdigest()[:32]


def http_client(agent: AgentSettings) -> httpx.AsyncClient:
    """An HTTP client sending the agent's bearer token, with its timeouts."""
    import httpx

    timeout = httpx.Timeout(agent.timeout_s, connect=agent.connect_timeout_s)
    return httpx.AsyncClient(headers=agent.headers(), timeout=timeout)


async def delegate(tool: MountedAgent, ctx: ToolContext) -> ToolOutput:
    """Send the call's message to the agent and follow the task (see the module docstring)."""
    agent = tool.agent
    if tool.refusal is not None:
        raise ToolFailed(ErrorCode.TOOL_CHANGED, tool.refusal)
    async with http_client(agent) as http:
        try:
            card = await fetch_card(agent, http)
        except A2aAgentError as exc:
            raise ToolFailed(ErrorCode.TOOL_ERROR, f"not sent: {exc}", retryable=True) from exc
        if card.digest != tool.card.digest:
            changed = "; ".join(changes(tool.card.body, card.body)) or "its JSON"
            raise ToolFailed(
                ErrorCode.TOOL_CHANGED,
                f"{tool.name}: the bundle pinned Agent Card {tool.card.digest}, but A2A agent "
                f"{agent.name!r} now serves {card.digest} (changed: {changed}); nothing was "
                "sent. Check the change, then rebuild or re-pin (`pin` in its table).",
            )
        from a2a.client import ClientConfig, ClientFactory

        client = ClientFactory(ClientConfig(httpx_client=http)).create(card.parsed)
        view = TaskView()
        following = asyncio.ensure_future(_follow(client, _request(ctx), view))
        stop = asyncio.ensure_future(ctx.cancelled.wait())
        try:
            done, _ = await asyncio.wait(
                (following, stop), timeout=agent.timeout_s, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            stop.cancel()
        if following not in done:
            following.cancel()
            await asyncio.wait((following,))
            if ctx.cancelled.is_set():
                return await _cancelled(tool, client, view)
            return _lost(tool, view, f"no end within timeout_s={agent.timeout_s:g}")
        return _ended(tool, following, view)


def _request(ctx: ToolContext) -> Any:
    from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest
    from google.protobuf.struct_pb2 import Value  # type: ignore[import-untyped]  # no hints

    arguments = thaw(ctx.arguments)
    parts = [Part(text=str(arguments["message"]))]
    if arguments.get("data") is not None:
        data = Value()
        data.struct_value.update(arguments["data"])
        parts.append(Part(data=data))
    message = Message(
        message_id=f"{ctx.idempotency_key}:{ctx.attempt}",
        context_id=context_id(ctx.idempotency_key),
        role=Role.ROLE_USER,
        parts=parts,
    )
    return SendMessageRequest(message=message)


async def _follow(client: Client, request: Any, view: TaskView) -> None:
    """Stream (or send, then poll) until the task is over."""
    async for event in client.send_message(request):
        view.take(event)
        if view.over:
            return
    while not view.over and view.task_id:
        from a2a.types.a2a_pb2 import GetTaskRequest

        await asyncio.sleep(POLL_S)
        view.take_task(await client.get_task(GetTaskRequest(id=view.task_id)))
    if not view.over:
        raise ConnectionError("the agent's answer ended before the task was over")


def meta_of(tool: MountedAgent, view: TaskView) -> dict[str, Any]:
    meta: dict[str, Any] = {"a2a_agent": tool.agent.name, "a2a_card_digest": tool.card.digest}
    if view.task_id:
        meta["a2a_task_id"] = view.task_id
    if view.context_id:
        meta["a2a_context_id"] = view.context_id
    return meta


def output(tool: MountedAgent, view: TaskView) -> ToolOutput:
    """The result of a task that is over (finished or waiting)."""
    meta = meta_of(tool, view)
    name = f'A2A agent "{tool.agent.name}"'
    if view.state in FAILED:
        said = view.text() or "no message"
        return ToolOutput(
            content=f"{name}: task {view.task_id} ended {view.state}: {said}",
            meta=meta,
            is_error=True,
            error_code=ErrorCode.TOOL_ERROR,
        )
    content = view.text()
    if view.state != "completed":
        content = (
            f"{name} needs more from its caller: task {view.task_id} is {view.state}: "
            f"{content or 'no message'}. This delegation does not answer it, and this tool "
            "cannot continue that task: calling it again starts a new task."
        )
    return ToolOutput(content=content, value=view.value(), meta=meta)


def _ended(tool: MountedAgent, following: asyncio.Future[None], view: TaskView) -> ToolOutput:
    exc = following.exception()
    if exc is None:
        return output(tool, view)
    if _never_left(exc):
        raise ToolFailed(
            ErrorCode.TOOL_ERROR,
            f'not sent: A2A agent "{tool.agent.name}" unreachable: {_cause(exc)}',
            retryable=True,
        ) from exc
    if _answered(exc) and view.task_id is None:
        raise ToolFailed(
            ErrorCode.TOOL_ERROR, f'A2A agent "{tool.agent.name}" answered: {_cause(exc)}'
        ) from exc
    return _lost(tool, view, f"the answer was lost: {_cause(exc)}")


async def _cancelled(tool: MountedAgent, client: Client, view: TaskView) -> ToolOutput:
    if view.task_id:
        from a2a.types.a2a_pb2 import CancelTaskRequest

        try:
            task = await asyncio.wait_for(
                client.cancel_task(CancelTaskRequest(id=view.task_id)), CANCEL_GRACE_S
            )
            view.take_task(task)
        except Exception:  # the cancel itself failed: the outcome stays unknown
            pass
        if view.state == "canceled":
            return ToolOutput(
                content=f'A2A agent "{tool.agent.name}" cancelled task {view.task_id}.',
                meta=meta_of(tool, view),
                is_error=True,
                error_code=ErrorCode.ABORTED,
            )
    return _lost(tool, view, "the turn was cancelled before the task was over")


def _lost(tool: MountedAgent, view: TaskView, problem: str) -> ToolOutput:
    code = ErrorCode.TOOL_OUTCOME_UNKNOWN
    if tool.read_only:
        code = ErrorCode.TOOL_ERROR
    task = f"task {view.task_id}" if view.task_id else "no task id arrived"
    content = (
        f'{code}: A2A agent "{tool.agent.name}", {tool.name} ({task}): {problem}. '
        "The message had left: whether the agent acted on it is unknown; reconcile it "
        "(`seamhost session reconcile`) before delegating it again."
    )
    return ToolOutput(content=content, meta=meta_of(tool, view), is_error=True, error_code=code)


def _chain(exc: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in found:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def _never_left(exc: BaseException) -> bool:
    """The connection was refused or never opened: the request provably did not leave."""
    import httpx

    return any(isinstance(e, httpx.ConnectError | httpx.ConnectTimeout) for e in _chain(exc))


def _answered(exc: BaseException) -> bool:
    """The agent answered, with an HTTP status or a JSON-RPC error: a known failure."""
    import httpx
    from a2a.client import A2AClientError
    from a2a.utils.errors import A2AError

    chain = _chain(exc)
    if any(isinstance(e, httpx.HTTPStatusError) for e in chain):
        return True
    return isinstance(exc, A2AError) and not isinstance(exc, A2AClientError)


def _cause(exc: BaseException) -> str:
    return "; ".join(dict.fromkeys(f"{type(e).__name__}: {e}" for e in _chain(exc)))
