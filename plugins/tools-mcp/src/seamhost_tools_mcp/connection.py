"""One connection to an upstream server: the transport, the SDK's ``ClientSession``, the handshake.

:func:`connect` opens a stdio server through :mod:`.stdio` (confined) or a streamable HTTP
endpoint through the SDK's client (``headers`` on every request), initializes the session and
records who answered (:class:`~seamhost_tools_mcp.descriptors.ServerIdentity`). Every failure
is an :class:`~seamhost_tools_mcp.errors.McpServerError` naming the server, with the
transport's own reason (a message too large, a line that is not JSON-RPC) when it has one.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import ObjectSendStream
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import Implementation, JSONRPCRequest, PaginatedRequestParams

from seamhost import SandboxUnavailable
from seamhost.errors import describe
from seamhost.version import __version__
from seamhost_tools_mcp.descriptors import Descriptor, ServerIdentity
from seamhost_tools_mcp.errors import McpServerError
from seamhost_tools_mcp.ledger import Ledger
from seamhost_tools_mcp.startup import Hiding, log_offset, start_failure
from seamhost_tools_mcp.stdio import Confine, Launch

if TYPE_CHECKING:
    from mcp.client._transport import ReadStream, WriteStream

    from seamhost_tools_mcp.settings import ServerSettings, Settings

MAX_PAGES = 100


class Outbox(ObjectSendStream[SessionMessage]):
    """The write stream of an HTTP connection, marking each request the transport took.

    anyio's stream base makes it the async context manager that closes it, as the SDK expects.
    """

    def __init__(self, inner: WriteStream[SessionMessage], ledger: Ledger) -> None:
        self._inner = inner
        self._ledger = ledger

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(item)
        message = item.message
        if isinstance(message, JSONRPCRequest):
            self._ledger.written(message.method, message.params, message.id)

    async def aclose(self) -> None:
        await self._inner.aclose()


class Connected:
    """An initialized session with one server."""

    def __init__(
        self,
        server: ServerSettings,
        session: ClientSession,
        ledger: Ledger,
        failure: Callable[[], str | None],
        confined: Mapping[str, str] | None = None,
    ) -> None:
        self.server = server
        self.session = session
        self.ledger = ledger
        self._failure = failure
        self.confined = dict(confined or {})  # a stdio server's sandbox, backend, enforcement
        self.identity = ServerIdentity("?", "?", "?")  # who answered, once initialized

    @property
    def failure(self) -> str | None:
        """Why the transport gave up on the server (protocol broken, stream closed), if it did."""
        return self._failure()

    def error(self, exc: BaseException, doing: str) -> McpServerError:
        """`exc`, met while `doing`, as an error naming the server and the transport's reason."""
        reason = self.failure or describe(exc)
        return McpServerError(self.server.name, f"{doing} failed: {reason}")

    async def descriptors(self) -> list[Descriptor]:
        """Every tool the server lists (all pages), as descriptors."""
        found: list[Descriptor] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            params = PaginatedRequestParams(cursor=cursor) if cursor else None
            try:
                page = await self.session.list_tools(params=params)
            except (MCPError, ValueError, RuntimeError) as exc:
                raise self.error(exc, "tools/list") from exc
            for tool in page.tools:
                listed = tool.model_dump(by_alias=True, mode="json", exclude_none=True)
                found.append(Descriptor.of(listed))
            cursor = page.next_cursor
            if not cursor:
                return found
        raise McpServerError(self.server.name, f"tools/list has more than {MAX_PAGES} pages")


@contextlib.asynccontextmanager
async def connect(
    server: ServerSettings,
    settings: Settings,
    *,
    confine: Confine,
    confinement: Mapping[str, Any],
    environ: Mapping[str, str],
) -> AsyncIterator[Connected]:
    """Open, initialize and yield a connection to `server`; close it (and stop it) after.

    `confinement` holds the rest of the ``ConfineRequest`` of a stdio server: mode, workspace,
    writable and read-only paths, network, pins. The SDK's task group wraps what is raised
    inside it in exception groups; they are unwrapped, so callers see the error itself.
    """
    try:
        async with _connected(server, settings, confine, confinement, environ) as connected:
            yield connected
    except BaseExceptionGroup as group:
        raise _leaf(group) from group


def _leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first error of `group` that is not itself a group."""
    first = group.exceptions[0]
    return _leaf(first) if isinstance(first, BaseExceptionGroup) else first


@contextlib.asynccontextmanager
async def _connected(
    server: ServerSettings,
    settings: Settings,
    confine: Confine,
    confinement: Mapping[str, Any],
    environ: Mapping[str, str],
) -> AsyncIterator[Connected]:
    read: ReadStream[SessionMessage | Exception]
    write: WriteStream[SessionMessage]
    async with contextlib.AsyncExitStack() as stack:
        if server.command:
            workspace: Path = confinement["workspace"]
            log = settings.log_dir / f"{server.name}.log"
            since = log_offset(log)

            def started(problem: str) -> str:
                hides = Hiding(server.name, launch.backend, launch.hidden, launch.shown)
                return start_failure(problem, server.command, log, since, hides)

            launch = Launch(
                server.name,
                server.command,
                env=server.env,
                environ=environ,
                cwd=server.cwd or workspace,
                log=log,
                limit=settings.max_message_bytes,
                read_paths=server.read_paths,
            )
            channel = await stack.enter_async_context(launch.open(confine, confinement))
            read, write, ledger = channel.read_stream, channel.write_stream, channel.ledger
            confined = channel.confined

            def failure() -> str | None:
                return channel.failure

        else:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            assert server.url is not None
            client = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers=dict(server.headers),
                    timeout=httpx2.Timeout(settings.startup_timeout_s, read=server.timeout_s),
                )
            )
            read, raw_write = await stack.enter_async_context(
                streamable_http_client(server.url, http_client=client)
            )
            ledger = Ledger()
            write = Outbox(raw_write, ledger)
            confined = {}

            def failure() -> str | None:
                return None

            def started(problem: str) -> str:
                return problem

        session = await stack.enter_async_context(
            ClientSession(
                read, write, client_info=Implementation(name="seamhost", version=__version__)
            )
        )
        connected = Connected(server, session, ledger, failure, confined)
        try:
            with anyio.fail_after(settings.startup_timeout_s):
                await session.initialize()
        except TimeoutError as exc:
            problem = f"did not answer initialize within {settings.startup_timeout_s:g}s"
            raise McpServerError(server.name, started(connected.failure or problem)) from exc
        except SandboxUnavailable:
            raise
        except McpServerError as exc:
            raise McpServerError(server.name, started(exc.problem)) from exc
        except Exception as exc:
            failed = connected.error(exc, "initialize")
            raise McpServerError(server.name, started(failed.problem)) from exc
        info = session.server_info
        if info is not None:
            connected.identity = ServerIdentity(
                info.name, info.version, session.protocol_version or "?"
            )
        yield connected
