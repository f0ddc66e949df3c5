"""The HTTP gateway's limits, and the ASGI layer that holds each request's body to them.

A client on the HTTP door may be careless or hostile; whatever it does, the server's memory,
descriptors and sessions stay bounded and a fresh client is served once the others are gone:

==========================  =========================================================  =======
limit                       what happens past it                                        default
==========================  =========================================================  =======
``max_sessions``            a request that would open another MCP session: ``503``     64
                            with ``Retry-After`` (the SDK counts its sessions)
``idle_timeout``            an MCP session without a request in flight (no call, no    600 s
                            open stream) for that long is closed, its seamhost
                            session settled, flushed and closed; its id then gets 404
``request_timeout``         a request's headers, and then its body, each not complete  30 s
                            within it: ``408``, the connection closed
connections                 ``2 * max_sessions + 16`` open at once; one more is        144
                            answered ``503`` with ``Retry-After`` and closed
:data:`MAX_BODY_BYTES`      a body larger: ``413``, before it is parsed                5 MiB
==========================  =========================================================  =======

The connections and the headers are bounded in the HTTP protocol itself
(:mod:`.connections`); :func:`bounded_bodies` reads each body within its deadline and its
size before the SDK sees it, and adds ``Retry-After`` to the SDK's own ``503``. A refusal is
one line on standard error, never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import attrs

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

DEFAULT_MAX_SESSIONS = 64
DEFAULT_IDLE_TIMEOUT_S = 600.0
DEFAULT_REQUEST_TIMEOUT_S = 30.0
# The gateway refuses arguments over 4 MiB with a result of its own (server.py); a body may be
# somewhat larger than the arguments it carries (the envelope, escapes), not without bound.
MAX_BODY_BYTES = 5 << 20
RETRY_AFTER_S = 5  # what a client refused for want of room is told to wait before it retries


# Who the lines on standard error name, and the JSON-RPC code a refusal carries: MCP leaves
# -32000 to -32099 to servers (-32001 here); A2A gives that range meanings of its own (-32001
# is TaskNotFound), so ``seamhost a2a serve``, behind the same door and limits, says
# ``speak_as("seamhost a2a serve", -32600)`` (Invalid Request).
_voice: list[tuple[str, int]] = [("seamhost mcp serve", -32001)]


def speak_as(command: str, refusal_code: int) -> None:
    """Name `command` on standard error and refuse with `refusal_code`, for this process."""
    _voice[0] = (command, refusal_code)


def speaker() -> str:
    """The command the lines on standard error name."""
    return _voice[0][0]


def note(line: str) -> None:
    """One line on standard error, as every refusal of the door is."""
    print(f"{speaker()}: {line}", file=sys.stderr, flush=True)


class Throttled:
    """Notes of one kind at most once per `interval` seconds: a flood is not a flood of lines.

    The lines held back are counted, and the next line that is written says how many.
    """

    def __init__(self, interval: float = 1.0) -> None:
        self.interval = interval
        self._last = -interval
        self._held = 0

    def __call__(self, line: str) -> None:
        now = time.monotonic()
        if now - self._last < self.interval:
            self._held += 1
            return
        if self._held:
            line += f" (and {self._held} more like it since the last such line)"
        self._held, self._last = 0, now
        note(line)


@attrs.frozen
class HttpLimits:
    """The limits of one HTTP gateway (the module docstring says what each does)."""

    max_sessions: int = DEFAULT_MAX_SESSIONS
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT_S
    max_body_bytes: int = MAX_BODY_BYTES

    @property
    def max_connections(self) -> int:
        """Open connections at once: a session's stream and a call or two each, and room."""
        return 2 * self.max_sessions + 16


async def refuse(send: Send, status: int, why: str, *headers: tuple[bytes, bytes]) -> None:
    """Answer with `status` and a JSON-RPC error saying `why`; the connection is then closed."""
    error = {"code": _voice[0][1], "message": why}
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error})
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"connection", b"close"),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})


def bounded_bodies(app: ASGIApp, limits: HttpLimits) -> ASGIApp:
    """`app`, given each request's body whole, read within its deadline and size limit."""
    too_large, too_slow = Throttled(), Throttled()
    retry_after = (b"retry-after", str(RETRY_AFTER_S).encode())

    async def bounded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        peer = "{}:{}".format(*(scope.get("client") or ("?", 0)))
        declared = _content_length(scope)
        if declared is not None and declared > limits.max_body_bytes:
            too_large(f"refused a {declared}-byte body from {peer} (413)")
            await refuse(send, 413, f"the body is over {limits.max_body_bytes} bytes")
            return
        try:
            async with asyncio.timeout(limits.request_timeout):
                first = await _read_body(receive, limits.max_body_bytes)
        except TimeoutError:
            too_slow(
                f"closed a request from {peer}: its body took over {limits.request_timeout:g}s"
            )
            await refuse(send, 408, f"the body did not arrive within {limits.request_timeout:g}s")
            return
        if first is None:
            too_large(f"refused a body over {limits.max_body_bytes} bytes from {peer} (413)")
            await refuse(send, 413, f"the body is over {limits.max_body_bytes} bytes")
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return first
            return await receive()  # a disconnect, for a streaming response to notice

        async def with_retry_after(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 503:
                headers = list(message.get("headers", []))
                if not any(name.lower() == b"retry-after" for name, _ in headers):
                    message = {**message, "headers": [*headers, retry_after]}
            await send(message)

        await app(scope, replay, with_retry_after)

    return bounded


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _read_body(receive: Receive, limit: int) -> Message | None:
    """The request's whole body as one message; ``None`` when it is over `limit` bytes.

    A disconnect before the end is passed on as it is: the app sees the client gone.
    """
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return message
        body += message.get("body", b"")
        if len(body) > limit:
            return None
        if not message.get("more_body", False):
            return {"type": "http.request", "body": bytes(body), "more_body": False}


__all__ = [
    "DEFAULT_IDLE_TIMEOUT_S",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_REQUEST_TIMEOUT_S",
    "MAX_BODY_BYTES",
    "RETRY_AFTER_S",
    "HttpLimits",
    "Throttled",
    "bounded_bodies",
    "note",
    "refuse",
    "speak_as",
    "speaker",
]
