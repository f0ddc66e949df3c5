"""The tool contract run against the first-party ``tools`` plugin and the example plugin-hello,
both found through their installed entry points."""

from __future__ import annotations

import pytest

from seamhost.testing.tools import ToolCall, ToolContract, ToolDriver


class TestFirstPartyTools(ToolContract):
    @pytest.fixture
    def tool_driver(self) -> ToolDriver:
        return ToolDriver(
            plugin="tools",
            others={"sandbox-local": {}},
            good=[
                ToolCall("read_file", {"path": "notes.txt"}, files={"notes.txt": "hello\n"}),
                ToolCall("list_dir", {"path": "."}, files={"a.txt": "a"}),
                ToolCall("write_file", {"path": "new.txt", "content": "new\n"}),
                ToolCall(
                    "edit_file",
                    {"path": "a.txt", "old": "one", "new": "two"},
                    files={"a.txt": "one\n"},
                ),
                ToolCall("shell", {"command": "echo hi"}),
            ],
            bad=[
                ToolCall("read_file", {}),
                ToolCall("list_dir", {"path": 3}),
                ToolCall("write_file", {"path": "x.txt"}),
                ToolCall("shell", {"command": "echo", "surprise": True}),
            ],
        )


class TestPluginHello(ToolContract):
    @pytest.fixture
    def tool_driver(self) -> ToolDriver:
        return ToolDriver(
            plugin="hello",
            table={"greeting": "Hi"},
            good=[ToolCall("hello", {"name": "Ada"})],
            bad=[ToolCall("hello", {"name": ""}), ToolCall("hello", {"who": "Ada"})],
        )
