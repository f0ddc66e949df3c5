"""Mounting ``@modelcontextprotocol/server-everything`` (npm), the protocol's reference server.

The pinned version comes from ``tests/node`` (:mod:`tests.node_programs`: installed with
`npm ci` on first use; without npm it skips saying so, unless ``SEAMHOST_REQUIRE_NODE=1``, as
in CI, makes that a failure).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from tests.node_programs import node_program
from tests.tools_mcp.conftest import Area, one_call, records_of, run_turn


@pytest.fixture(scope="session")
def everything() -> Path:
    return Path(node_program("mcp-server-everything")[0])


def server(binary: Path, extra: str = "") -> str:
    return (
        "[plugins.tools-mcp.servers.ev]\n"
        f"command = {json.dumps([str(binary), 'stdio'])}\n"
        "timeout_s = 30\n" + extra
    )


def test_listing(everything: Path, area: Area) -> None:
    bundle = build_bundle(resolve_profile(str(area.profile(server(everything)))))
    names = set(bundle.tools)
    assert {"ev__echo", "ev__get-sum", "ev__get-structured-content"} <= names
    assert "ev__trigger-long-running-operation" in names
    origin = bundle.tools["ev__echo"].spec.origin
    assert origin is not None
    assert origin["server_info"]["name"]
    assert bundle.tools["ev__echo"].spec.effect == "write"  # readOnlyHint, not trusted


def test_calls_with_structured_results_and_errors(everything: Path, area: Area) -> None:
    scenario = """
    [[turn]]
    user = "go"
    final = "done"
    [[turn.step]]
    [[turn.step.call]]
    id = "echo"
    tool = "ev__echo"
    args = { message = "hello there" }
    [[turn.step.call]]
    id = "sum"
    tool = "ev__get-sum"
    args = { a = 2, b = 40 }
    [[turn.step.call]]
    id = "weather"
    tool = "ev__get-structured-content"
    args = { location = "Chicago" }
    [[turn.step.call]]
    id = "missing"
    tool = "ev__get-resource-reference"
    args = { resourceId = -1 }
    """
    run = run_turn(area.profile(server(everything), scenario=scenario), area)
    assert run.codes["echo"] == "ok"
    assert "hello there" in run.contents["echo"]
    assert run.codes["sum"] == "ok"
    assert "42" in run.contents["sum"]
    assert run.codes["weather"] == "ok"
    assert isinstance(run.values["weather"]["temperature"], (int, float))  # structuredContent
    assert run.codes["missing"] == "TOOL_ERROR"
    assert 'MCP server "ev"' in run.contents["missing"]
    assert "Invalid resourceId" in run.contents["missing"]


def test_a_long_running_tool_reports_progress(everything: Path, area: Area) -> None:
    args = {"duration": 1, "steps": 4}
    run = run_turn(
        area.profile(
            server(everything), scenario=one_call("ev__trigger-long-running-operation", args)
        ),
        area,
    )
    assert run.codes == {"c1": "ok"}
    result = next(d for kind, d in records_of(run.session) if kind == "tool/result")
    assert result["meta"]["progress"][0] == 4


def test_a_long_running_tool_cancelled(everything: Path, area: Area) -> None:
    args = {"duration": 60, "steps": 60}
    profile = area.profile(
        server(everything, "cancel_grace_s = 1\n"),
        scenario=one_call("ev__trigger-long-running-operation", args),
    )

    async def cancel_soon(agent: Agent) -> None:
        while not any(r.type == "tool/dispatch" for r in agent.session.records):
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.5)
        agent.cancel()

    run = run_turn(profile, area, during=cancel_soon)
    assert run.codes == {"c1": "TOOL_OUTCOME_UNKNOWN"}  # not trusted read-only: unknown
    assert "notifications/cancelled" in run.contents["c1"]
