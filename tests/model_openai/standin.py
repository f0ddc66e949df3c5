"""A local stand-in for the OpenAI Chat Completions API, replaying recorded transcripts.

THE ONE MOCK THIS PROJECT ALLOWS: a remote model API cannot run here (no network but the package
registries), so the adapter's tests talk real HTTP over loopback to this server instead. It
listens on 127.0.0.1 (an ephemeral port) in a thread, answers each ``POST .../chat/completions``
with the next queued :class:`Reply`, and records every request (path, headers, JSON body) so a
test can assert what was sent and how many requests there were (the SDK must not retry).

Transcripts (``transcripts/``) are the wire format itself: a ``.sse`` file is the body of a
streamed 200 response (``data: {...}\\n\\n`` lines, ending ``data: [DONE]`` when the server
finished), a ``.json`` file an error response (``{"status", "headers", "body"}``). How the bytes
are delivered is the reply's: whole, one event every ``delay_s``, or cut off (``drop``: the
connection is closed in the middle of the chunked body, as when a server dies mid-stream).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import attrs

TRANSCRIPTS = Path(__file__).parent / "transcripts"


@attrs.frozen
class Reply:
    """One response: a status, headers and a body, delivered as a server would."""

    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    delay_s: float = 0.0  # the pause before each server-sent event
    drop: bool = False  # close the connection inside the chunked body instead of ending it

    @classmethod
    def transcript(cls, name: str, *, delay_s: float = 0.0, drop: bool = False) -> Reply:
        """The recorded transcript `name` (``x.sse`` streamed, ``x.json`` an error response)."""
        path = TRANSCRIPTS / name
        if path.suffix == ".sse":
            return cls.sse(path.read_bytes(), delay_s=delay_s, drop=drop)
        recorded = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            recorded["status"],
            (("Content-Type", "application/json"), *recorded.get("headers", {}).items()),
            json.dumps(recorded["body"]).encode(),
        )

    @classmethod
    def sse(cls, body: bytes, *, delay_s: float = 0.0, drop: bool = False) -> Reply:
        """A streamed 200 response with `body` as its server-sent events."""
        return cls(200, (("Content-Type", "text/event-stream"),), body, delay_s, drop)


@attrs.frozen
class Received:
    """One request the stand-in received."""

    path: str
    headers: dict[str, str]  # names in lower case
    body: Any  # the decoded JSON body


class StandIn:
    """The server: queue replies with :meth:`reply`, read :attr:`requests` afterwards."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[Received] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._server.block_on_close = False
        serve = self._server.serve_forever
        self._thread = threading.Thread(target=serve, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        """The URL to configure as ``base_url``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def reply(self, *replies: Reply) -> None:
        """Answer the next requests with `replies`, in order."""
        self.replies.extend(replies)

    def __enter__(self) -> StandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _handler(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the tests read :attr:`StandIn.requests` instead."""

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"null")
            standin.requests.append(
                Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            if not standin.replies:
                reply = Reply(500, (), b'{"error": {"message": "the stand-in has no reply"}}')
            else:
                reply = standin.replies.pop(0)
            # A client that gave up (a deadline) has hung up: nothing more to send.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._send(reply)

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            for name, value in reply.headers:
                self.send_header(name, value)
            self.send_header("Connection", "close")  # no pooled sockets outlive a test
            if reply.status != 200 or not reply.body.startswith(b"data:"):
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
                return
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for event in reply.body.split(b"\n\n"):
                if not event.strip():
                    continue
                time.sleep(reply.delay_s)
                self._chunk(event + b"\n\n")
            if reply.drop:  # promise more bytes than follow, then hang up
                self.wfile.write(b'400\r\ndata: {"id"')
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(b"0\r\n\r\n")

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    return Handler
