"""The HTTP gateway's connections: how many may be open, and how long headers may take.

uvicorn's HTTP/1.1 protocol (h11) accepts every connection and waits for a request's headers
as long as the client cares to send them, so a client that opens many sockets, or sends its
headers a byte at a time (slowloris), holds the server's descriptors for good.
:func:`bounded_protocol` makes the protocol class uvicorn runs, with two bounds:

* at most `max_connections` open connections: one more is answered at once with
  ``503 Service Unavailable`` and ``Retry-After``, and closed, before anything is read;
* a request's headers (the first request's, and each later one's on a kept-alive connection)
  must be complete within `header_timeout` seconds of the connection opening or the previous
  response ending; otherwise ``408 Request Timeout`` and the connection is closed.

Each refusal is one line on standard error, at most one a second of each kind (the next line
counts those held back); the body's own deadline is the ASGI layer's
(:mod:`.limits`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from seamhost.gateway.limits import RETRY_AFTER_S, Throttled


def _closing_response(status: str, body: str, *headers: str) -> bytes:
    """A whole HTTP/1.1 response that closes its connection, written before any request."""
    fields = [*headers, "Content-Type: text/plain; charset=utf-8", "Connection: close"]
    fields.append(f"Content-Length: {len(body.encode())}")
    head = "".join(f"{field}\r\n" for field in fields)
    return f"HTTP/1.1 {status}\r\n{head}\r\n{body}".encode()


_BUSY = _closing_response(
    "503 Service Unavailable",
    "too many open connections; retry later",
    f"Retry-After: {RETRY_AFTER_S}",
)
_TOO_SLOW = _closing_response("408 Request Timeout", "the request headers came too slowly")


def bounded_protocol(max_connections: int, header_timeout: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the two bounds of the module docstring."""
    busy, slow = Throttled(), Throttled()

    class Bounded(H11Protocol):
        _refused = False
        _headers_due: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            if len(self.connections) >= max_connections:
                self._refused = True
                peer = transport.get_extra_info("peername") or ("?", 0)
                busy(
                    f"refused a connection from {peer[0]}:{peer[1]}: {max_connections} are "
                    "open already (503)"
                )
                transport.write(_BUSY)
                transport.close()
                return
            super().connection_made(transport)
            self._await_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:  # never made: nothing of the protocol's own to tear down
                return
            self._headers_arrived()
            super().connection_lost(exc)

        def handle_events(self) -> None:
            cycle = self.cycle
            super().handle_events()
            if self.cycle is not cycle:  # a request's headers are complete: its cycle began
                self._headers_arrived()

        def on_response_complete(self) -> None:
            # Armed before the protocol looks at what came meanwhile: a request already waiting
            # (pipelined) begins its cycle in there and disarms it again.
            self._await_headers()
            super().on_response_complete()

        def _await_headers(self) -> None:
            self._headers_arrived()
            self._headers_due = self.loop.call_later(header_timeout, self._headers_late)

        def _headers_arrived(self) -> None:
            if self._headers_due is not None:
                self._headers_due.cancel()
                self._headers_due = None

        def _headers_late(self) -> None:
            self._headers_due = None
            if self.transport.is_closing():
                return
            peer = self.client or ("?", 0)
            slow(
                f"closed a connection from {peer[0]}:{peer[1]}: no complete request headers "
                f"within {header_timeout:g}s (408)"
            )
            self.transport.write(_TOO_SLOW)
            self.transport.close()

    return Bounded


__all__ = ["bounded_protocol"]
