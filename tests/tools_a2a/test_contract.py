"""The tool contract of seamhost.testing, run against a mounted A2A agent."""

from __future__ import annotations

import pytest

from seamhost.testing.tools import ToolCall, ToolContract, ToolDriver
from tests.tools_a2a.conftest import TOKEN, RemoteAgent


class TestMountedAgent(ToolContract):
    @pytest.fixture
    def tool_driver(self, shared: RemoteAgent, monkeypatch: pytest.MonkeyPatch) -> ToolDriver:
        monkeypatch.setenv("ECHO_TOKEN", TOKEN)
        return ToolDriver(
            plugin="tools-a2a",
            table={"agents": {"echo": {"url": shared.url, "token": {"$env": "ECHO_TOKEN"}}}},
            good=[ToolCall("a2a__echo", {"message": "contract"})],
            bad=[
                ToolCall("a2a__echo", {}),
                ToolCall("a2a__echo", {"message": ""}),
                ToolCall("a2a__echo", {"message": "x", "skill": "echo"}),
            ],
        )
