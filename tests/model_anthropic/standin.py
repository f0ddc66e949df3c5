"""A local stand-in for Anthropic's Messages API, replaying recorded transcripts.

THE ONE MOCK THIS PROJECT ALLOWS: a remote model API cannot run here. Everything else the tests
touch is real; this serves, on 127.0.0.1 at a free port, what the API would send, byte for byte
in its wire format (``event: ...\\ndata: {...}\\n\\n`` over chunked HTTP/1.1), one scripted
:class:`Reply` per request, and records each request so a test can assert what was sent.

A transcript file (``transcripts/*.sse``) is the recorded stream itself; lines starting
``: standin `` are directives for the stand-in and never sent: ``: standin sleep 0.3`` pauses,
``: standin split`` sends the next event in two writes cut in its middle, ``: standin drop``
cuts the connection inside a chunk (the peer sees a body that breaks off).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import attrs

TRANSCRIPTS = Path(__file__).parent / "transcripts"


@attrs.frozen
class Reply:
    """One response: a status, headers and a body (an SSE transcript, or JSON for an error)."""

    status: int = 200
    body: str = ""  # the transcript text (status 200) or the error body
    headers: dict[str, str] = attrs.field(factory=dict)


def stream(name: str) -> Reply:
    """The recorded stream ``transcripts/NAME.sse``."""
    return Reply(200, (TRANSCRIPTS / f"{name}.sse").read_text(encoding="utf-8"))


def error(status: int, kind: str, message: str, **headers: str) -> Reply:
    """An HTTP error as the API sends it: ``{"type": "error", "error": {...}}``."""
    body = {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}
    return Reply(status, json.dumps(body), {"content-type": "application/json", **headers})


@attrs.define
class Recorded:
    """What one request sent."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@attrs.define
class StandIn:
    """A running stand-in: its base URL and the requests it has received."""

    url: str
    requests: list[Recorded] = attrs.field(factory=list)


def _send(handler: BaseHTTPRequestHandler, reply: Reply) -> None:
    handler.send_response(reply.status)
    if reply.status != 200:
        data = reply.body.encode()
        # kept alive, like the API's: the adapter must close its pooled connection itself
        for key, value in reply.headers.items():
            handler.send_header(key, value)
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
        return
    handler.send_header("content-type", "text/event-stream; charset=utf-8")
    handler.send_header("transfer-encoding", "chunked")
    handler.send_header("connection", "close")
    handler.end_headers()
    split = False
    for event in reply.body.split("\n\n"):
        lines = [line for line in event.split("\n") if line]
        for directive in (
            line[len(": standin ") :] for line in lines if line.startswith(": standin ")
        ):
            if directive == "drop":
                handler.wfile.write(b"400\r\n" + b'data: {"type": "conte')
                handler.wfile.flush()
                handler.connection.shutdown(socket.SHUT_RDWR)
                return
            if directive == "split":
                split = True
            elif directive.startswith("sleep "):
                handler.wfile.flush()
                time.sleep(float(directive.split()[1]))
        wire = "\n".join(line for line in lines if not line.startswith(": standin "))
        if not wire:
            continue
        data = (wire + "\n\n").encode()
        cut = len(data) // 2 if split else len(data)
        for piece in (data[:cut], data[cut:]):
            if piece:
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                handler.wfile.flush()
        split = False
    handler.wfile.write(b"0\r\n\r\n")


@contextlib.contextmanager
def serve(transcript: Sequence[Reply]) -> Iterator[StandIn]:
    """Serve `transcript`, one reply per request in order; a request past its end gets 500."""
    replies = list(transcript)
    lock = threading.Lock()
    standin = StandIn("")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            with lock:
                standin.requests.append(
                    Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                reply = replies.pop(0) if replies else error(500, "api_error", "no reply left")
            with contextlib.suppress(OSError):  # the client may hang up first (a deadline)
                _send(self, reply)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.block_on_close = False
    standin.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield standin
    finally:
        server.shutdown()
        server.server_close()
