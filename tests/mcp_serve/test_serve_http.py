"""``seamhost mcp serve --http``: the SDK's streamable HTTP client, and the door in front of it.

The server is a real child process on a free port (``--http HOST:0``; it prints the address).
Refused requests (a foreign ``Origin``, a missing or wrong bearer token) are sent raw, so that
nothing but the door decides: they get 403/401, are logged on the server's standard error, and
reach no session.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_serve.kit import Rig, answering, http_server, outcomes, session_of, text
from tests.served import of_type, well_formed

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}


def post(url: str, body: dict[str, Any], **headers: str) -> tuple[int, dict[str, str]]:
    """POST `body` as JSON-RPC; the status and the response headers (errors included)."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **{k.replace("_", "-"): v for k, v in headers.items()},
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            response.read()
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as error:
        error.read()
        error.close()
        return error.code, dict(error.headers)


async def http_calls(
    url: str, calls: list[tuple[str, dict[str, Any]]], headers: dict[str, str] | None = None
) -> list[types.CallToolResult]:
    answer = answering("accept", {"allow_once": True})
    async with (
        httpx2.AsyncClient(headers=headers or {}, timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write, elicitation_callback=answer) as client,
    ):
        await client.initialize()
        return [await client.call_tool(name, args) for name, args in calls]


def test_http_serves_calls_each_connection_in_its_own_session(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    (rig.workspace / "ask").mkdir()
    (rig.workspace / "notes.txt").write_text("over http\n")
    with http_server(rig, "127.0.0.1:0") as server:
        first = anyio.run(
            http_calls,
            server.url,
            [
                ("read_file", {"path": "notes.txt"}),
                ("write_file", {"path": "ask/h.txt", "content": "h"}),  # asked by elicitation
                ("write_file", {"path": "secret/k", "content": "k"}),
            ],
        )
        # The client ended its MCP session (DELETE): the server closed its seamhost session,
        # so another writer may take it while the server runs on.
        taken = rig.cli("session", "repair", session_of(first[0]))
        assert taken.returncode == 0, taken.stderr
        second = anyio.run(http_calls, server.url, [("read_file", {"path": "notes.txt"})])
    read, asked, denied = first
    assert text(read) == "over http\n"
    assert not asked.is_error, text(asked)
    assert (rig.workspace / "ask" / "h.txt").read_text() == "h"
    assert denied.is_error
    assert text(denied).startswith("DENIED_BY_POLICY")
    # Two clients that named no session never share one.
    assert session_of(read) == session_of(denied) != session_of(second[0])
    records = rig.records(session_of(read))
    well_formed(records)
    assert list(outcomes(records).values()) == ["ok", "ok", "DENIED_BY_POLICY"]
    assert [d["outcome"] for d in of_type(records, "approval/decided")] == ["allowed-once"]
    well_formed(rig.records(session_of(second[0])))


def test_a_foreign_origin_is_refused_and_nothing_is_dispatched(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "write_file", "arguments": {"path": "x", "content": "x"}},
    }
    with http_server(rig, "127.0.0.1:0") as server:
        status, _ = post(server.url, INITIALIZE, Origin="http://evil.example")
        assert status == 403
        status, headers = post(server.url, INITIALIZE, Origin="http://localhost:1234")
        assert status == 200
        session = headers["mcp-session-id"]
        status, _ = post(server.url, call, Origin="https://evil.example", Mcp_Session_Id=session)
        assert status == 403
        status, _ = post(server.url, INITIALIZE, Host="evil.example")  # DNS rebinding
        assert status == 403
        # A loopback name in the userinfo, or as a prefix of a foreign name, is not loopback.
        status, _ = post(server.url, INITIALIZE, Origin="http://127.0.0.1:1@evil.com")
        assert status == 403
        status, _ = post(server.url, INITIALIZE, Host="[::1].evil.com")
        assert status == 403
    assert not (rig.workspace / "x").exists()
    assert rig.session_ids() == []  # no call reached a session
    assert server.stderr.count("seamhost mcp serve: refused POST /mcp") == 5
    assert "evil.example" in server.stderr


def test_a_non_loopback_bind_needs_a_token_and_checks_it(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    refused = rig.cli("mcp", "serve", "--http", "0.0.0.0:0")
    assert refused.returncode == 2
    assert "--token-env" in refused.stderr
    token = "s3cret-token"
    with http_server(
        rig, "0.0.0.0:0", "--token-env", "MCP_TOKEN", env={"MCP_TOKEN": token}
    ) as server:
        assert post(server.url, INITIALIZE)[0] == 401
        assert post(server.url, INITIALIZE, Authorization="Bearer wrong")[0] == 401
        assert post(server.url, INITIALIZE, Authorization=token)[0] == 401
        assert rig.session_ids() == []
        (result,) = anyio.run(
            http_calls,
            server.url,
            [("list_dir", {"path": "."})],
            {"Authorization": f"Bearer {token}"},
        )
    assert not result.is_error, text(result)
    assert len(rig.session_ids()) == 1
    assert server.stderr.count("a missing or wrong bearer token") == 3
    assert token not in server.stderr


def test_a_stateless_2026_client_gets_a_closed_session_per_request(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    (rig.workspace / "notes.txt").write_text("modern\n")

    async def main(url: str) -> tuple[str, list[types.CallToolResult]]:
        async with Client(url) as client:  # negotiates the newest protocol: no MCP session
            results = [
                await client.call_tool("read_file", {"path": "notes.txt"}),
                # No back channel to ask on: the profile's answerers are asked (none answers).
                await client.call_tool("write_file", {"path": "ask/m", "content": "m"}),
            ]
            return client.protocol_version, results

    with http_server(rig, "127.0.0.1:0") as server:
        version, (read, asked) = anyio.run(main, server.url)
        sessions = {session_of(read), session_of(asked)}
        for session_id in sessions:  # each closed once answered: another writer may take it
            assert rig.cli("session", "repair", session_id).returncode == 0
    assert version >= "2026"
    assert text(read) == "modern\n"
    assert text(asked).startswith("APPROVAL_UNAVAILABLE")
    assert len(sessions) == 2
    for session_id in sessions:
        well_formed(rig.records(session_id))
