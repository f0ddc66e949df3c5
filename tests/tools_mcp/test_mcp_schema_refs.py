"""An upstream tool whose schemas refer outside themselves is refused; nothing is fetched or read.

Issue 33, point 1: the schema compiler followed a remote or ``file:`` ``$ref`` of a mounted
tool's ``inputSchema``/``outputSchema`` over urllib, so listing a hostile server made the host
connect where it said and read the files it named. The server here is a real SDK server over
stdio (:mod:`tests.tools_mcp.ref_server`); the traps are a real listening socket that counts
connections and a FIFO that sees any reader open it (:mod:`tests.reference_traps`).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

import pytest
from seamhost_tools_mcp.plugin import McpMount

from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.llm.adapter import ModelEvent, ModelRequest
from tests.reference_traps import FILE_SECRET, HTTP_SECRET, Listener, WatchedFifo
from tests.tools_mcp.conftest import HERE, PYTHON, Area, one_call, run_turn

REFUSED = ("remote", "local_file", "relative", "nested_id", "in_const")


@pytest.fixture
def traps(area: Area) -> Iterator[tuple[Listener, WatchedFifo]]:
    with Listener() as listener, WatchedFifo(area.outside / "trap.json") as fifo:
        yield listener, fifo


def refs_table(listener: Listener, fifo: WatchedFifo) -> str:
    command = [PYTHON, str(HERE / "ref_server.py"), listener.url, fifo.url]
    return f"[plugins.tools-mcp.servers.refs]\ncommand = {json.dumps(command)}\n"


def assert_untouched(listener: Listener, fifo: WatchedFifo, *texts: str) -> None:
    assert listener.connections == 0
    assert not fifo.opened.wait(0.2)
    for text in texts:
        assert HTTP_SECRET not in text
        assert FILE_SECRET not in text


def test_a_tool_referring_outside_is_refused_and_the_others_mount(
    area: Area, traps: tuple[Listener, WatchedFifo]
) -> None:
    listener, fifo = traps
    bundle = build_bundle(resolve_profile(str(area.profile(refs_table(listener, fifo)))))
    assert sorted(name for name in bundle.tools if name.startswith("refs__")) == ["refs__fine"]
    plugin = bundle.pm.get_plugin("tools-mcp")
    assert isinstance(plugin, McpMount)
    [mount] = plugin.mounts
    refusals = dict(mount.refused)
    assert sorted(refusals) == sorted(REFUSED)
    for tool, message in refusals.items():
        assert message.startswith(f'MCP server "refs": tool {tool!r} refused: '), message
    assert repr(listener.url) in refusals["remote"]
    assert repr(fifo.url) in refusals["local_file"]
    assert "outputSchema" in refusals["local_file"]
    assert "'x.json'" in refusals["relative"]
    assert repr(f"{listener.url}/nested") in refusals["nested_id"]
    assert_untouched(listener, fifo, *refusals.values())

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
    note = seen[0][0]
    assert note["role"] == "system"
    for tool in REFUSED:
        assert f'MCP server "refs": tool {tool!r} refused' in note["content"]


def test_a_session_calls_the_remaining_tool_and_records_nothing_fetched(
    area: Area, traps: tuple[Listener, WatchedFifo]
) -> None:
    listener, fifo = traps
    scenario = one_call("refs__fine", {"text": "hello"})
    run = run_turn(area.profile(refs_table(listener, fifo), scenario=scenario), area)
    assert run.codes == {"c1": "ok"}
    log = json.dumps([r.data for r in run.session.records], default=str)
    assert_untouched(listener, fifo, log)


def test_the_cli_names_server_tool_and_reference_and_exits_0(
    area: Area, traps: tuple[Listener, WatchedFifo]
) -> None:
    listener, fifo = traps
    profile = area.profile(refs_table(listener, fifo))
    done = subprocess.run(
        [sys.executable, "-m", "seamhost", "mcp", "pins", "--profile", str(profile)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "SEAMHOST_CACHE": str(area.root / "cache")},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "refs__fine" not in done.stdout  # pins list upstream names
    assert "[plugins.tools-mcp.servers.refs.overrides.fine]" in done.stdout
    assert "overrides.remote]" not in done.stdout
    assert "MCP server \"refs\": tool 'remote' refused: " in done.stderr
    assert repr(listener.url) in done.stderr
    assert "Traceback" not in done.stderr
    assert_untouched(listener, fifo, done.stdout, done.stderr)
