"""Raw-socket clients that misbehave on purpose, for the HTTP gateway's limits.

Each opens a real TCP connection to a real ``seamhost mcp serve --http`` on loopback and
speaks HTTP/1.1 by hand, so that it can do what no SDK client does: open a session and hold
its connections, send headers a byte at a time, promise a body and never send it. The server's
open descriptors are read from ``/proc/PID/fd``.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Iterator
from typing import Any

INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "flood", "version": "1"},
        },
    }
).encode()


def open_fds(pid: int) -> int:
    """How many descriptors process `pid` has open."""
    return len(os.listdir(f"/proc/{pid}/fd"))


def connect(port: int, timeout: float = 10.0) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def request(method: str, body: bytes = b"", **headers: str) -> bytes:
    """An HTTP/1.1 request to /mcp as bytes; `headers` spelled with ``_`` for ``-``."""
    lines = [f"{method} /mcp HTTP/1.1", "Host: 127.0.0.1"]
    fields = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Content-Length": str(len(body)),
        **{k.replace("_", "-"): v for k, v in headers.items()},
    }
    lines += [f"{k}: {v}" for k, v in fields.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def read_head(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """The status, the headers (lower-case names) and what of the body came with them.

    Status 0: the server closed the connection without an answer.
    """
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            chunk = b""
        if not chunk:
            return 0, {}, b""
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    status_line, *fields = head.decode("latin-1").split("\r\n")
    headers = {}
    for field in fields:
        name, _, value = field.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, rest


def read_until(sock: socket.socket, rest: bytes, marker: bytes) -> bytes:
    """Read until `marker` has arrived (the end of a chunked or SSE body)."""
    data = rest
    while marker not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def open_session(port: int, *, hold_stream: bool) -> tuple[int, dict[str, str], list[Any]]:
    """Initialize an MCP session and keep its connection (and a GET stream) open.

    Returns the initialize's status and headers and the sockets left open (the caller closes
    them); a refused initialize leaves none open.
    """
    sock = connect(port)
    sock.sendall(request("POST", INITIALIZE))
    status, headers, rest = read_head(sock)
    if status != 200:
        sock.close()
        return status, headers, []
    # The answer is one SSE event on a chunked body, ended by the zero-length chunk.
    read_until(sock, rest, b"0\r\n\r\n")
    held = [sock]
    session = headers.get("mcp-session-id", "")
    sock.sendall(
        request(
            "POST",
            b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
            Mcp_Session_Id=session,
            Mcp_Protocol_Version="2025-11-25",
        )
    )
    read_head(sock)
    if hold_stream:  # the standalone SSE stream a client keeps open for server messages
        stream = connect(port)
        stream.sendall(
            request(
                "GET",
                Accept="text/event-stream",
                Mcp_Session_Id=session,
                Mcp_Protocol_Version="2025-11-25",
            )
        )
        if read_head(stream)[0] == 200:
            held.append(stream)
        else:
            stream.close()
    return status, headers, held


@contextlib.contextmanager
def closing_all(sockets: list[socket.socket]) -> Iterator[list[socket.socket]]:
    try:
        yield sockets
    finally:
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.close()


def closed_by_server(sock: socket.socket, within: float) -> tuple[bool, int]:
    """Whether the server closed `sock` within `within` seconds, and the status it sent first."""
    sock.settimeout(within)
    deadline = time.monotonic() + within
    data = b""
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            return False, 0
        except (ConnectionResetError, BrokenPipeError):
            return True, 0
        if not chunk:
            status = int(data.split()[1]) if data.startswith(b"HTTP/1.1 ") else 0
            return True, status
        data += chunk
    return False, 0


def trickle(sockets: list[socket.socket], seconds: float, every: float = 0.2) -> None:
    """Send each socket one more header byte every `every` seconds, for `seconds` (slowloris)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for sock in sockets:
            with contextlib.suppress(OSError):  # refused and closed already
                sock.send(b"X")
        time.sleep(every)
