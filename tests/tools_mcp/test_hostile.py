"""Malformed and hostile servers: a clear error naming the server, never a crash."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from seamhost_tools_mcp.plugin import McpMount

from seamhost.errors import PluginLoadError
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.llm.adapter import ModelEvent, ModelRequest
from tests.tools_mcp.conftest import HOSTILE, Area, one_call, run_turn


def hostile(mode: str) -> str:
    return f"[plugins.tools-mcp.servers.evil]\ncommand = {json.dumps([*HOSTILE, mode])}\n"


def limited(profile: Path) -> Path:
    """`profile` with a 1 MiB limit on the messages a server may send."""
    text = profile.read_text().replace(
        "startup_timeout_s = 20\n", "startup_timeout_s = 20\nmax_message_bytes = 1048576\n"
    )
    profile.write_text(text)
    return profile


@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        ("garbage", "sent something that is not JSON-RPC: 'this is not JSON-RPC'"),
        ("huge", "sent a message larger than 1048576 bytes"),
        ("bad-schema", "tool 'bad': inputSchema is not a usable JSON Schema"),
        ("collide", "tools 'a.b' and 'a_b' both mount as 'evil__a_b'"),
        ("twice", "lists the tool 'same' twice"),
    ],
)
def test_a_hostile_server_fails_the_bundle_naming_it(area: Area, mode: str, problem: str) -> None:
    profile = limited(area.profile(hostile(mode)))
    with pytest.raises(PluginLoadError) as caught:
        build_bundle(resolve_profile(str(profile)))
    message = str(caught.value)
    assert 'plugin "tools-mcp"' in message
    assert 'MCP server "evil": ' in message
    assert problem in message


def test_a_result_that_breaks_its_output_schema_is_a_tool_error(area: Area) -> None:
    profile = area.profile(hostile("bad-output"), scenario=one_call("evil__answer", {}))
    run = run_turn(profile, area)
    assert run.codes == {"c1": "TOOL_ERROR"}
    assert "breaks its output schema" in run.contents["c1"]
    assert "value.n" in run.contents["c1"] or "n" in run.contents["c1"]


@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        ("garbage-call", "sent something that is not JSON-RPC: '{not json'"),
        ("huge-call", "sent a message larger than 1048576 bytes"),
    ],
)
def test_a_server_that_breaks_the_protocol_mid_call_leaves_an_unknown_outcome(
    area: Area, mode: str, problem: str
) -> None:
    profile = limited(area.profile(hostile(mode), scenario=one_call("evil__answer", {})))
    run = run_turn(profile, area)
    assert run.codes == {"c1": "TOOL_OUTCOME_UNKNOWN"}  # the request had left: it may have run
    assert 'MCP server "evil"' in run.contents["c1"]
    assert problem in run.contents["c1"]


def test_an_unreachable_server_fails_the_bundle_unless_optional(area: Area) -> None:
    table = '[plugins.tools-mcp.servers.gone]\ncommand = ["/nonexistent/mcp-server"]\n'
    with pytest.raises(PluginLoadError, match='MCP server "gone"'):
        build_bundle(resolve_profile(str(area.profile(table))))
    optional = area.profile(table + "optional = true\n", name="optional.toml")
    bundle = build_bundle(resolve_profile(str(optional)))
    assert not any(name.startswith("gone__") for name in bundle.tools)


def test_an_optional_absent_server_is_told_to_the_model(area: Area) -> None:
    table = (
        '[plugins.tools-mcp.servers.gone]\ncommand = ["/nonexistent/mcp-server"]\noptional = true\n'
    )
    scenario = '[[turn]]\nuser = "go"\nfinal = "done"\n'
    run = run_turn(area.profile(table, scenario=scenario), area)
    plugin = run.bundle.pm.get_plugin("tools-mcp")
    assert isinstance(plugin, McpMount)
    assert plugin.mounts[0].absent is not None
    seen: list[tuple[Mapping[str, Any], ...]] = []

    async def capture(request: ModelRequest) -> AsyncIterator[ModelEvent]:
        seen.append(request.messages)
        nothing: tuple[ModelEvent, ...] = ()
        for event in nothing:
            yield event

    async def one() -> None:
        request = ModelRequest("s", 1, 1, ({"role": "user", "content": "hi"},), ())
        async for _ in plugin.llm_stream(request, capture):
            pass

    asyncio.run(one())
    first = seen[0][0]
    assert first["role"] == "system"
    assert "MCP server 'gone' is unavailable" in first["content"]


@pytest.mark.parametrize(
    "plugins", ["[plugins.sandbox-local]\nbackends = []\n", ""], ids=["no-backend", "no-provider"]
)
def test_no_usable_sandbox_means_no_server_at_all(area: Area, plugins: str) -> None:
    from tests.tools_mcp.conftest import loopback

    profile = area.profile(loopback(area), plugins=plugins)
    with pytest.raises(PluginLoadError) as caught:
        build_bundle(resolve_profile(str(profile)))
    assert "MCP server 'loop' cannot be confined" in str(caught.value)
    assert not (area.root / "logs" / "loop.log").exists()  # nothing was spawned
