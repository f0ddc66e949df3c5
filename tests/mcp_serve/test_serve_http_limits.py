"""The HTTP gateway's limits hold against a flood, and a fresh client is served afterwards.

A real ``seamhost mcp serve --http`` on loopback, flooded by raw-socket clients
(:mod:`tests.mcp_serve.flood`): sessions opened and held with their streams, connections that
send their headers too slowly (slowloris), a body that never finishes, bodies over the size
limit. Throughout, the server's open descriptors (``/proc/PID/fd``) stay bounded; afterwards
an SDK client works, and standard error holds one line per kind of refusal, no traceback.
The default run floods a server with small limits in a few seconds; the ``slow`` variant
floods one with the default limits, at the scale the attack was reported at.
"""

from __future__ import annotations

import fcntl
import http.client
import json
import os
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp_serve.flood import (
    INITIALIZE,
    closed_by_server,
    closing_all,
    connect,
    open_fds,
    open_session,
    read_head,
    request,
    trickle,
)
from tests.mcp_serve.kit import Rig, http_server, text
from tests.mcp_serve.test_serve_http import http_calls
from tests.served import Served

MAX_FDS = 300  # what the server may hold open at any moment of a flood


def port_of(server: Served) -> int:
    return int(server.url.rsplit(":", 1)[1].split("/")[0])


class Peak:
    """The most descriptors the server process was seen holding."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.value = open_fds(pid)

    def sample(self) -> None:
        self.value = max(self.value, open_fds(self.pid))


def flood(server: Served, sessions: int, slow: int, timeout: float) -> dict[str, Any]:
    """Open `sessions` sessions (held), then `slow` slowloris connections; what happened."""
    port, peak = port_of(server), Peak(server.process.pid)
    statuses: dict[int, int] = {}
    retry_after = []
    held: list[Any] = []
    with closing_all(held):
        for n in range(sessions):
            status, headers, sockets = open_session(port, hold_stream=True)
            statuses[status] = statuses.get(status, 0) + 1
            if status == 503:
                retry_after.append(headers.get("retry-after"))
            held += sockets
            if n % 10 == 0:
                peak.sample()
        peak.sample()
        trickling = []
        for _ in range(slow):
            sock = connect(port)
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the rest
            trickling.append(sock)
        held += trickling
        peak.sample()
        # Bytes that keep coming do not extend the headers' deadline (stopped short of it, so
        # that no byte crosses the server's answer).
        trickle(trickling, timeout * 0.6)
        peak.sample()
        # Each is either refused at once (503: too many connections) or closed once its
        # headers are overdue (408); none is left open.
        outcomes = [closed_by_server(sock, timeout + 5) for sock in trickling]
        peak.sample()
    return {
        "statuses": statuses,
        "retry_after": retry_after,
        "slowloris": outcomes,
        "peak": peak,
    }


def slow_body(server: Served, timeout: float) -> tuple[bool, int]:
    """A request whose headers promise a body that never comes in full."""
    sock = connect(port_of(server))
    with closing_all([sock]):
        head = request("POST", b"", Mcp_Session_Id="x").replace(
            b"Content-Length: 0", b"Content-Length: 1000"
        )
        sock.sendall(head + b'{"jsonrpc":')
        return closed_by_server(sock, timeout + 5)


def oversized(server: Served, declared: bool) -> int:
    """The status a body over the size limit gets, declared up front or streamed (chunked)."""
    sock = connect(port_of(server))
    with closing_all([sock]):
        if declared:
            sock.sendall(
                request("POST", b"").replace(b"Content-Length: 0", b"Content-Length: 67108864")
            )
        else:
            sock.sendall(
                request("POST", b"").replace(b"Content-Length: 0", b"Transfer-Encoding: chunked")
            )
            chunk = b"%x\r\n%s\r\n" % (1 << 20, b" " * (1 << 20))
            try:
                for _ in range(8):  # 8 MiB, over the 5 MiB limit
                    sock.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass  # refused before the end: what is wanted
        return read_head(sock)[0]


def fresh_client_works(server: Served, within: float = 15.0) -> None:
    """An SDK client is served, once the flood's abandoned sessions have idled out."""
    deadline = time.monotonic() + within
    while True:
        try:
            (result,) = anyio.run(http_calls, server.url, [("list_dir", {"path": "."})])
            break
        except BaseException as exc:  # the SDK's "Too many open sessions", in a task group
            if "Too many open sessions" not in repr(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    assert not result.is_error, text(result)


def test_a_flood_is_bounded_and_a_fresh_client_works_after_it(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    timeout = 1.0
    # The flood's sessions are abandoned, not ended: they make room once idle for 2 s.
    options = ("--max-sessions", "4", "--request-timeout", str(timeout), "--idle-timeout", "2")
    with http_server(rig, "127.0.0.1:0", *options) as server:
        started = time.monotonic()
        seen = flood(server, sessions=60, slow=100, timeout=timeout)
        assert seen["statuses"] == {200: 4, 503: 56}  # the cap, then 503
        assert set(seen["retry_after"]) == {"5"}
        slowloris = seen["slowloris"]
        assert all(closed for closed, _ in slowloris), "a slow connection was left open"
        # 4 sessions hold 8 of the 2 * 4 + 16 = 24 connections: up to 16 wait for their
        # headers until the timeout (408; fewer while the refused sessions' sockets are still
        # being closed), the others are refused at once (503, or a reset: they had sent bytes
        # the server closed them without reading).
        assert 1 <= [status for _, status in slowloris].count(408) <= 16
        assert {status for _, status in slowloris} <= {408, 503, 0}
        assert slow_body(server, timeout) == (True, 408)
        assert oversized(server, declared=True) == 413
        assert oversized(server, declared=False) == 413
        assert seen["peak"].value < MAX_FDS
        fresh_client_works(server)
        elapsed = time.monotonic() - started
    assert elapsed < 30
    stderr = server.stderr
    assert "Traceback" not in stderr
    for line in (
        "Refusing to open a new session",
        "are open already (503)",
        "no complete request headers within 1s (408)",
        "its body took over 1s",
        "-byte body from 127.0.0.1:",
    ):
        assert line in stderr, stderr
    # One line per kind of refusal and second, not one per refused request.
    assert len(stderr.splitlines()) < 40, stderr


def call(port: int, session: str | None, body: dict[str, Any]) -> tuple[int, str, Any]:
    """One POST to /mcp: the status, the session id header, and the JSON-RPC message (SSE)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Mcp-Protocol-Version": "2025-11-25",
    }
    if session is not None:
        headers["Mcp-Session-Id"] = session
    try:
        connection.request("POST", "/mcp", json.dumps(body), headers)
        response = connection.getresponse()
        payload = response.read().decode()
        message = None
        for line in payload.splitlines():
            if line.startswith("data: "):
                message = json.loads(line[len("data: ") :])
        return response.status, response.getheader("mcp-session-id") or "", message
    finally:
        connection.close()


def locked(path: Path) -> bool:
    """Whether another process holds the ``flock`` on `path` (a session's writer lock)."""
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # releases the lock taken just now, if it was
    return False


def test_an_idle_session_is_closed_and_its_seamhost_session_released(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    with http_server(rig, "127.0.0.1:0", "--idle-timeout", "1") as server:
        port = port_of(server)
        status, session, _ = call(port, None, json.loads(INITIALIZE))
        assert status == 200
        call(port, session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        status, _, answer = call(
            port,
            session,
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "list_dir", "arguments": {"path": "."}},
            },
        )
        assert status == 200
        seamhost_session = answer["result"]["_meta"]["seamhost/session"]
        lock = rig.home / "sessions" / seamhost_session / "session.lock"
        assert locked(lock)  # the server holds its session open while the client is around
        deadline = time.monotonic() + 10
        while locked(lock) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not locked(lock)  # closed by the server once idle
        # The MCP session is gone too: its id is not found, and a fresh client works.
        assert call(port, session, {"jsonrpc": "2.0", "id": 3, "method": "ping"})[0] == 404
        fresh_client_works(server)
    assert f"closed session {seamhost_session}" in server.stderr
    assert "Traceback" not in server.stderr
    records = rig.records(seamhost_session)
    assert [r["type"] for r in records][-1] == "turn/end"


@pytest.mark.slow
def test_600_sessions_and_1000_slow_connections_with_the_default_limits(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    options = ("--request-timeout", "2", "--idle-timeout", "2")  # else room after 10 minutes
    with http_server(rig, "127.0.0.1:0", *options) as server:
        seen = flood(server, sessions=600, slow=1000, timeout=2.0)
        assert seen["statuses"] == {200: 64, 503: 536}  # refused past the session cap
        assert all(closed for closed, _ in seen["slowloris"])
        # Not MAX_FDS: asyncio accepts up to uvicorn's backlog (2048) connections in one go
        # before the cap refuses any, so at this size the peak was measured at 447-670 on a
        # quiet 2-core machine. What holds is that the server never keeps the flood's 1,600
        # sockets: the refused ones are closed as they come.
        assert seen["peak"].value < 1000
        fresh_client_works(server)
    assert "Traceback" not in server.stderr
    print(f"peak descriptors: {seen['peak'].value}")


def test_limits_apply_to_http_only(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    refused = rig.cli("mcp", "serve", "--max-sessions", "3")
    assert refused.returncode == 2
    assert "apply to --http only" in refused.stderr
    refused = rig.cli("mcp", "serve", "--http", "127.0.0.1:0", "--idle-timeout", "0")
    assert refused.returncode == 2
    assert "--idle-timeout" in refused.stderr
