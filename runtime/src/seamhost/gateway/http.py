"""Streamable HTTP, and the door in front of it (docs/design.md, "The MCP gateway").

``--http HOST:PORT`` serves the SDK's streamable HTTP transport on ``/mcp``, behind a
:class:`Door` that every request passes before the SDK sees it:

* the bind is loopback (``127.0.0.1``, ``::1``, ``localhost``) unless told otherwise, and any
  other bind needs a bearer token (``--token-env NAME``): :meth:`Door.check` refuses to start
  without one;
* ``Origin``: a request that carries one is refused unless it is a loopback origin or one the
  operator allowed (``--allow-origin``); a browser page elsewhere cannot drive the tools
  (DNS rebinding);
* on a loopback bind, ``Host`` must name a loopback address too (rebinding again);
* with a token, ``Authorization: Bearer <token>`` must match it (compared in constant time).

``Origin`` and ``Host`` are parsed strictly (:func:`authority_host`): the whole value must be
``host[:port]`` (``scheme://host[:port]`` for an origin), and the host must be exactly
``localhost`` or a loopback address literal. So ``http://127.0.0.1:1@evil.com`` (a loopback
name as userinfo), ``[::1].evil.com`` or ``localhost.evil.com`` (a loopback name as a prefix),
a path, a zone id or ``127.1`` are refused.

A refused request gets 403 (401 for the token) and a JSON-RPC error body; it is logged on
standard error (one line: method, path, peer, why) and never reaches the SDK, so nothing is
dispatched and no session is touched.

Behind the door, :mod:`.limits` bounds each body and :mod:`.connections` the connections and
their headers; the SDK counts the MCP sessions and ends idle ones.

A client that ends its MCP session (``DELETE`` with its ``Mcp-Session-Id``, which the SDKs send
when they close) has its seamhost session settled, flushed and closed then; one idle for the
idle timeout has it closed by :meth:`~seamhost.gateway.server.Gateway.close_idle`; the others
are closed when the server stops.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import attrs
import click

from seamhost.gateway.limits import (
    ASGIApp,
    HttpLimits,
    Receive,
    Scope,
    Send,
    bounded_bodies,
    note,
    refuse,
)

if TYPE_CHECKING:
    from seamhost.gateway.server import Gateway

LOOPBACK_NAME = "localhost"
PATH = "/mcp"
# ``host [":" port]`` as RFC 9110 allows it in ``Host`` and RFC 6454 in ``Origin``: a bracketed
# IPv6 literal or a name of letters, digits, dots and hyphens, then at most a port. Anything
# else (userinfo, a path, a zone id, text after the bracket) is not a host this door knows.
_AUTHORITY = re.compile(
    r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9.-]+))(?::(?P<port>[0-9]{1,5}))?"
)
_ORIGIN = re.compile(r"(?P<scheme>[A-Za-z]+)://(?P<authority>.*)", re.DOTALL)


def parse_bind(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) as a host and a port; a usage error otherwise."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise click.UsageError(f"--http {text!r}: expected HOST:PORT, such as 127.0.0.1:8765")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether `host` (a bare name or address, as bound) is exactly a loopback name or address.

    ``localhost`` (any case), or an IP address literal on the loopback network: no prefix of a
    longer name, no zone id, no shorthand such as ``127.1``.
    """
    if host.lower() == LOOPBACK_NAME:
        return True
    if "%" in host:  # a zone id names an interface, not a host
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def authority_host(text: str) -> str | None:
    """The host of ``host[:port]`` (``[v6]:port``) parsed strictly; ``None`` when malformed."""
    match = _AUTHORITY.fullmatch(text)
    if match is None:
        return None
    port = match["port"]
    if port is not None and int(port) > 65535:
        return None
    if match["v6"] is not None:
        try:
            return str(ipaddress.IPv6Address(match["v6"]))
        except ValueError:
            return None
    return str(match["name"])


def loopback_origin(origin: str) -> bool:
    """Whether `origin` is exactly ``http(s)://HOST[:PORT]`` with a loopback HOST."""
    match = _ORIGIN.fullmatch(origin)
    if match is None or match["scheme"].lower() not in ("http", "https"):
        return False
    host = authority_host(match["authority"])
    return host is not None and is_loopback(host)


@attrs.frozen
class Door:
    """Who may come in: the bind, the accepted origins and the token."""

    host: str
    port: int
    token: str | None
    origins: frozenset[str] = frozenset()
    # Paths a GET may read without the token (Origin and Host still checked): ``a2a serve``'s
    # Agent Card, which a client reads first to learn that it needs one.
    public: frozenset[str] = frozenset()

    def check(self) -> None:
        """Refuse a non-loopback bind without a token (a usage error: nothing is served)."""
        if not is_loopback(self.host) and self.token is None:
            raise click.UsageError(
                f"--http {self.host}:{self.port} is not a loopback address: give a bearer token "
                "with --token-env NAME (the clients send `Authorization: Bearer <token>`)"
            )

    def refusal(self, headers: dict[str, str], *, public: bool = False) -> tuple[int, str] | None:
        """``(status, why)`` for a request these headers cannot come in with; ``None``: welcome.

        `public`: the request reads a :attr:`public` path, which needs no token.
        """
        origin = headers.get("origin")
        if origin is not None and origin not in self.origins and not loopback_origin(origin):
            return 403, f"the Origin {origin!r} is not allowed (--allow-origin accepts one)"
        if is_loopback(self.host):
            host = headers.get("host", "")
            named = authority_host(host)
            if named is None or not is_loopback(named):
                return 403, f"the Host {host!r} is not a loopback name on a loopback bind"
        if self.token is not None and not public:
            given = headers.get("authorization", "")
            expected = f"Bearer {self.token}"
            if not hmac.compare_digest(given.encode(), expected.encode()):
                return 401, "a missing or wrong bearer token"
        return None

    def guard(self, app: ASGIApp, ended: Callable[[str], Awaitable[None]]) -> ASGIApp:
        """`app` behind this door; `ended(session id)` once a client terminated its session."""

        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            headers = {
                k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]
            }
            public = scope.get("method") == "GET" and scope.get("path") in self.public
            refused = self.refusal(headers, public=public)
            if refused is None:
                await app(scope, receive, send)
                session = headers.get("mcp-session-id")
                if scope.get("method") == "DELETE" and session:  # the client ended its session
                    await ended(session)
                return
            status, why = refused
            peer = scope.get("client") or ("?", 0)
            note(
                f"refused {scope.get('method')} {scope.get('path')} from {peer[0]}:{peer[1]}: {why}"
            )
            extra = [(b"www-authenticate", b"Bearer")] if status == 401 else []
            await refuse(send, status, why, *extra)

        return guarded


async def serve_http(
    gateway: Gateway, instructions: str, door: Door, limits: HttpLimits | None = None
) -> None:
    """Serve streamable HTTP behind `door`, within `limits`, until stopped (SIGTERM, SIGINT)."""
    import asyncio

    from mcp.server.transport_security import TransportSecuritySettings

    limits = limits or HttpLimits()
    server = gateway.server(instructions)
    # The door checks Origin and Host itself (with the operator's allowed origins).
    app = server.streamable_http_app(
        streamable_http_path=PATH,
        host=door.host,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_sessions=limits.max_sessions,
        session_idle_timeout=limits.idle_timeout,
        max_request_body_size=limits.max_body_bytes,
    )
    idle = asyncio.ensure_future(gateway.close_idle(limits.idle_timeout))
    try:
        await serve_app(door.guard(bounded_bodies(app, limits), gateway.forget), door, limits, PATH)
    finally:
        idle.cancel()
        await gateway.close()


async def serve_app(app: ASGIApp, door: Door, limits: HttpLimits, path: str) -> None:
    """Serve `app` (already behind `door`) with uvicorn within `limits` until stopped.

    The connections and their headers are bounded by :mod:`.connections`; the address served
    is noted on standard error once listening (``listening on http://HOST:PORT<path>``).
    """
    import asyncio

    import uvicorn

    from seamhost.gateway.connections import bounded_protocol

    config = uvicorn.Config(
        app,
        host=door.host,
        port=door.port,
        http=bounded_protocol(limits.max_connections, limits.request_timeout),
        log_config=None,  # the command routes every logger to one line each (gateway/logs.py)
        log_level="warning",
        access_log=False,
        lifespan="on",
    )
    web = uvicorn.Server(config)
    serving = asyncio.ensure_future(web.serve())
    try:
        while not web.started and not serving.done():
            await asyncio.sleep(0.01)
        if web.started:
            socket = web.servers[0].sockets[0]
            host, port = socket.getsockname()[:2]
            shown = f"[{host}]" if ":" in host else host
            note(f"listening on http://{shown}:{port}{path}")
        await serving
    finally:
        if not serving.done():
            web.should_exit = True
            await asyncio.wait([serving])


__all__ = [
    "Door",
    "authority_host",
    "is_loopback",
    "loopback_origin",
    "parse_bind",
    "serve_app",
    "serve_http",
]
