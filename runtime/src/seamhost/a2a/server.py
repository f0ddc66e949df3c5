"""The A2A server: the SDK's JSON-RPC binding behind the MCP gateway's door and limits.

Routes (the SDK's own, on Starlette):

* ``GET /.well-known/agent-card.json``: the Agent Card (:mod:`.card`), readable without the
  token so that a client can learn it needs one;
* ``POST /``: JSON-RPC 2.0, A2A 1.0 (``SendMessage``, ``SendStreamingMessage`` as server-sent
  events, ``GetTask``, ``ListTasks``, ``CancelTask``, ``SubscribeToTask``).

Every request passes :class:`~seamhost.gateway.http.Door` first (loopback bind unless a token
is given, ``Origin``, ``Host``, the bearer token, 401 when it is missing or wrong), then
:func:`~seamhost.gateway.limits.bounded_bodies` (each body read whole within the request
timeout and at most 5 MiB, else 408 or 413), and the connections are capped and their headers
timed by :mod:`~seamhost.gateway.connections`. A refusal there is a JSON-RPC error body
(``-32600``, id ``null``) with its HTTP status; a body that is not JSON gets the SDK's ``-32700``,
a request of another shape ``-32600``, an unknown method ``-32601``, bad params ``-32602``. None
of these reaches the executor, so no session is created or touched. Tasks running at once are
capped (``--max-sessions``): one more is answered as a ``rejected`` task, nothing recorded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
from a2a.server.agent_execution import SimpleRequestContextBuilder
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from starlette.applications import Starlette

from seamhost.a2a.card import agent_card
from seamhost.a2a.executor import SessionExecutor
from seamhost.a2a.tasks import TaskIds, Tasks
from seamhost.gateway.http import serve_app
from seamhost.gateway.limits import bounded_bodies

if TYPE_CHECKING:
    from seamhost.gateway.http import Door
    from seamhost.gateway.limits import HttpLimits

RPC_PATH = "/"
CARD_PATH = AGENT_CARD_WELL_KNOWN_PATH


def public_url(door: Door, port: int) -> str:
    """The URL the card gives for the JSON-RPC endpoint."""
    host = f"[{door.host}]" if ":" in door.host else door.host
    return f"http://{host}:{port}{RPC_PATH}"


async def serve(tasks: Tasks, door: Door, limits: HttpLimits) -> None:
    """Serve A2A for `tasks` behind `door` within `limits` until stopped (SIGTERM, SIGINT)."""
    import socket

    port = door.port
    if port == 0:  # the card must name the port: pick one now, as the OS would
        with socket.socket(socket.AF_INET6 if ":" in door.host else socket.AF_INET) as probe:
            probe.bind((door.host, 0))
            port = probe.getsockname()[1]
        door = attrs.evolve(door, port=port)
    card = agent_card(tasks.bundle, public_url(door, port), bearer=door.token is not None)
    handler = DefaultRequestHandler(
        agent_executor=SessionExecutor(tasks),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        request_context_builder=SimpleRequestContextBuilder(task_id_generator=TaskIds()),
        interrupted_task_timeout=limits.idle_timeout,
    )
    routes = [
        *create_agent_card_routes(card, card_url=CARD_PATH),
        *create_jsonrpc_routes(handler, rpc_url=RPC_PATH),
    ]
    app = Starlette(routes=routes)

    async def nothing(_session: str) -> None:  # no MCP sessions end here
        return None

    try:
        await serve_app(door.guard(bounded_bodies(app, limits), nothing), door, limits, RPC_PATH)
    finally:
        await handler.aclose()


__all__ = ["CARD_PATH", "RPC_PATH", "public_url", "serve"]
