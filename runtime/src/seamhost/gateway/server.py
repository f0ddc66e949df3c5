"""The SDK server: ``tools/list`` and ``tools/call`` over the gateway's conductors, and stdio.

One :class:`Gateway` serves one bundle. Each connection gets its own session (a
:class:`~seamhost.gateway.conductor.Conductor`) unless the operator named one (``--session``),
which every connection then shares: sessions are never shared between clients that did not
name them. On stdio the process serves one connection, whose session id is in the server's
instructions; over HTTP a connection is an MCP session (``Mcp-Session-Id``; a request without
one is a connection of its own), and the id of its seamhost session is in every result's
``_meta`` (``seamhost/session``).

A stdio line that is not a JSON-RPC message gets a JSON-RPC error reply (``-32700`` when it
is not JSON, ``-32600`` when it is JSON of another shape: :mod:`.malformed`); unknown methods
and invalid params get the SDK's protocol errors; a call whose arguments are not an object,
or are larger than :data:`MAX_ARGUMENTS_BYTES`, gets an ``INVALID_ARGUMENTS`` error result
before anything is recorded; every other call, to an unknown tool included, goes to the
pipeline and its log.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from seamhost.errors import ErrorCode, describe
from seamhost.gateway.conductor import Conductor, Pending
from seamhost.gateway.elicitation import Asker, Elicit
from seamhost.gateway.limits import note
from seamhost.gateway.listing import mcp_tools
from seamhost.gateway.results import call_result, refusal
from seamhost.version import __version__

if TYPE_CHECKING:
    from seamhost.approval.service import ApprovalService
    from seamhost.kernel.bundle import Bundle
    from seamhost.session.live import Session

MAX_ARGUMENTS_BYTES = 4 << 20  # 4 MiB of arguments JSON: larger calls are refused unrecorded
PROGRESS_INTERVAL_S = 1.0  # a running call reports progress this often when asked to
DEFAULT_ELICITATION_TIMEOUT_S = 300.0  # without [plugins.user-approval] timeout_seconds
IDLE_SWEEP_S = 5.0  # idle sessions are looked for this often (more often for a short timeout)
STDIO = "stdio"
# The key of an HTTP request that names no MCP session (a stateless client): the request is
# its own connection, and its session is closed once it is answered.
ONE_REQUEST = "request-"


class Gateway:
    """The bundle's tools behind an MCP server, one session per connection (or the named one)."""

    def __init__(
        self,
        bundle: Bundle,
        workspace: Path,
        approvals: ApprovalService,
        open_session: Callable[[], Session],
        *,
        shared: bool,
    ) -> None:
        self.bundle = bundle
        self.workspace = workspace
        self.approvals = approvals
        self._open_session = open_session
        self._shared = shared  # one session (named, or stdio's) for every connection
        self._conductors: dict[str, Conductor] = {}
        self._closing: set[asyncio.Future[None]] = set()  # sessions of ended connections
        self._running: dict[str, int] = {}  # calls in flight, by connection
        self._idle_since: dict[str, float] = {}  # when its last call ended, by idle connection
        self.elicitation_timeout = approvals.timeout or DEFAULT_ELICITATION_TIMEOUT_S

    async def start(self) -> None:
        """A shared session: its conductor now, its parked step continued, its repair flushed."""
        if self._shared:
            conductor = self.conductor(STDIO)
            await conductor.resume_parked()
            await conductor.flush()

    def conductor(self, key: str) -> Conductor:
        """The conductor of connection `key`, made (with its session) on first use."""
        key = STDIO if self._shared else key
        conductor = self._conductors.get(key)
        if conductor is None:
            conductor = self._conductors[key] = Conductor(
                self.bundle,
                self._open_session(),
                self.workspace,
                self.approvals,
                elicitation_timeout=self.elicitation_timeout,
            )
        return conductor

    async def forget(self, key: str) -> None:
        """Connection `key` ended (an HTTP MCP session was terminated): close its session."""
        if self._shared:  # the named (or stdio) session outlives any one connection
            return
        self._idle_since.pop(key, None)
        conductor = self._conductors.pop(key, None)
        if conductor is not None:
            # A task the gateway's close() waits for too: a SIGTERM arriving meanwhile must not
            # end the process before this session's last records are durable.
            closing = asyncio.ensure_future(_settle(conductor))
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)
            await asyncio.shield(closing)

    async def close_idle(self, idle_timeout: float) -> None:
        """Until cancelled: close the session of each connection idle for `idle_timeout` s.

        Idle: no call of it in flight since its last one ended. The SDK ends such an MCP
        session after the same time unless its client holds a stream open; a connection that
        calls again after its session was closed here gets a new one.
        """
        if self._shared:  # the named session outlives every connection
            return
        interval = min(max(idle_timeout / 4, 0.05), IDLE_SWEEP_S)
        while True:
            await asyncio.sleep(interval)
            now = time.monotonic()
            for key, since in list(self._idle_since.items()):
                if now - since >= idle_timeout and key not in self._running:
                    conductor = self._conductors.get(key)
                    if conductor is not None:
                        note(
                            f"closed session {conductor.session.id}: its MCP session made no "
                            f"call for {idle_timeout:g}s"
                        )
                    try:
                        await self.forget(key)
                    except Exception as exc:  # the next sweeps go on; its session is closed
                        note(f"closing an idle session failed: {describe(exc)}")

    async def close(self) -> None:
        """Settle every connection's running calls, flush and close their sessions."""
        conductors, self._conductors = list(self._conductors.values()), {}
        for conductor in conductors:
            await _settle(conductor)
        while self._closing:  # sessions of connections that ended just before
            await asyncio.wait(list(self._closing))

    # -- the handlers -------------------------------------------------------------------------

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=mcp_tools(self.bundle))

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        key = connection_key(ctx)
        self._running[key] = self._running.get(key, 0) + 1
        try:
            return await self._call_tool(ctx, params, self.conductor(key))
        finally:
            self._running[key] -= 1
            if not self._running[key]:
                del self._running[key]
                self._idle_since[key] = time.monotonic()
            if key.startswith(ONE_REQUEST):  # no connection to outlive: its session ends here
                await asyncio.shield(self.forget(key))

    async def _call_tool(
        self,
        ctx: ServerRequestContext[Any],
        params: types.CallToolRequestParams,
        conductor: Conductor,
    ) -> types.CallToolResult:
        session_id = conductor.session.id
        arguments = params.arguments if params.arguments is not None else {}
        raw = json.dumps(arguments, ensure_ascii=False, allow_nan=False)
        if len(raw.encode()) > MAX_ARGUMENTS_BYTES:
            return refusal(
                str(ErrorCode.INVALID_ARGUMENTS),
                f"the arguments are {len(raw.encode())} bytes, over the gateway's limit of "
                f"{MAX_ARGUMENTS_BYTES} bytes; nothing was recorded or run",
                session_id,
            )
        asker = Asker(elicitor(ctx), asyncio.Event())
        pending = Pending(params.name, raw, asker, client_name(ctx))
        ticker = None
        if ctx.meta is not None and ctx.meta.get("progress_token") is not None:
            ticker = asyncio.ensure_future(report_progress(ctx, params.name))
        try:
            result = await conductor.call(pending)
        finally:
            if ticker is not None:
                ticker.cancel()
        spec = self.bundle.tools[params.name].spec if params.name in self.bundle.tools else None
        return call_result(result, session_id, spec)

    def server(self, instructions: str) -> Server[Any]:
        """The SDK's low-level server over these handlers."""
        return Server(
            "seamhost",
            version=__version__,
            instructions=instructions,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
        )


def connection_key(ctx: ServerRequestContext[Any]) -> str:
    """Which connection a request came on: its HTTP MCP session, else the stdio one."""
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is not None:
        return str(headers.get("mcp-session-id") or f"{ONE_REQUEST}{id(request)}")
    return STDIO


def client_name(ctx: ServerRequestContext[Any]) -> str:
    """The client as it introduced itself (``name version``), for the log's user messages."""
    params = ctx.session.client_params
    if params is None or params.client_info is None:
        return "an MCP client"
    info = params.client_info
    return f"{info.name} {info.version}".strip()


def elicitor(ctx: ServerRequestContext[Any]) -> Elicit | None:
    """How to ask this request's client for an answer; ``None`` when it cannot be asked."""
    capabilities = ctx.session.client_capabilities
    if capabilities is None or capabilities.elicitation is None or not ctx.session.can_send_request:
        return None
    session, request_id = ctx.session, ctx.request_id

    async def elicit(message: str, schema: dict[str, Any]) -> types.ElicitResult:
        return await session.elicit_form(message, schema, related_request_id=request_id)

    return elicit


async def report_progress(ctx: ServerRequestContext[Any], tool: str) -> None:
    """Until cancelled: every :data:`PROGRESS_INTERVAL_S`, the seconds the call has run."""
    started = time.monotonic()
    while True:
        await asyncio.sleep(PROGRESS_INTERVAL_S)
        elapsed = round(time.monotonic() - started, 1)
        await ctx.session.report_progress(elapsed, None, f"{tool}: running for {elapsed:g}s")


async def serve_stdio(gateway: Gateway, instructions: str) -> None:
    """Serve one connection on standard input and output until the client closes it."""
    from mcp.server.stdio import stdio_server

    from seamhost.gateway.malformed import AnsweringMalformed

    server = gateway.server(instructions)
    try:
        async with stdio_server() as (read, write):
            answering = AnsweringMalformed(read, write)
            await server.run(answering, write, server.create_initialization_options())
    finally:
        await gateway.close()


async def _settle(conductor: Conductor) -> None:
    """Let `conductor`'s calls settle, flush its session, and close it."""
    try:
        await conductor.close()
    finally:
        conductor.session.close()


__all__ = ["Gateway", "serve_stdio"]
