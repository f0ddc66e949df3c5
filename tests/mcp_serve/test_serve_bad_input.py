"""Bad input on the wire: a protocol error or an error result, never a crash, nothing lost.

The client here is raw JSON-RPC written line by line to a real ``seamhost mcp serve`` over
stdio, so that it can send what no SDK client would: lines that are not JSON, unknown methods,
params of the wrong shape, arguments over the gateway's size limit.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from tests.mcp_serve.kit import Rig, outcomes
from tests.served import well_formed

ANSWER_WITHIN = 20.0  # seconds a reply may take


class Wire:
    """One server process and its two pipes."""

    def __init__(self, rig: Rig) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *rig.serve_args()],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=rig.environment(),
            text=True,
        )
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.stdin: IO[str] = self.process.stdin
        self.stdout: IO[str] = self.process.stdout
        # Read by a thread, so that a reply that never comes fails the test instead of hanging it.
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.stdout:
            self.lines.put(line)
        self.lines.put("")

    def send(self, message: dict[str, Any] | str) -> None:
        line = message if isinstance(message, str) else json.dumps(message)
        self.stdin.write(line + "\n")
        self.stdin.flush()

    def answer(self, request_id: int | None) -> dict[str, Any]:
        """The next response to `request_id` (notifications in between are skipped)."""
        while True:
            line = self.lines.get(timeout=ANSWER_WITHIN)
            assert line, "the server closed its output"
            message: dict[str, Any] = json.loads(line)
            if "method" not in message and message.get("id") == request_id:
                return message

    def call(self, request_id: int, name: str, arguments: Any) -> dict[str, Any]:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        return self.answer(request_id)


def test_bad_requests_get_errors_and_the_server_goes_on(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    (rig.workspace / "notes.txt").write_text("kept\n")
    wire = Wire(rig)
    try:
        wire.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        init = wire.answer(1)
        session_id = init["result"]["instructions"].split("session ")[1].split()[0]
        wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

        wire.send("this is not JSON {")
        wire.send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": ')
        wire.send({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"})
        assert wire.answer(3)["error"]["code"] == -32601
        wire.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"x": 1}})
        assert wire.answer(4)["error"]["code"] == -32602  # no tool name
        listed = wire.call(5, "read_file", ["not", "an", "object"])
        assert listed["error"]["code"] == -32602
        huge = wire.call(6, "write_file", {"path": "big", "content": "x" * (5 << 20)})
        assert huge["result"]["isError"] is True
        assert huge["result"]["content"][0]["text"].startswith("INVALID_ARGUMENTS")
        unknown = wire.call(7, "no_such_tool", {})
        assert unknown["result"]["content"][0]["text"].startswith("UNKNOWN_TOOL")
        invalid = wire.call(8, "read_file", {"path": 3})
        assert invalid["result"]["content"][0]["text"].startswith("INVALID_ARGUMENTS")
        good = wire.call(9, "read_file", {"path": "notes.txt"})
        assert good["result"]["isError"] is False
        assert good["result"]["structuredContent"]["content"] == "kept\n"
    finally:
        wire.stdin.close()
        code = wire.process.wait(timeout=30)
        wire.stdout.close()
    assert code == 0  # a clean end when the client closes the connection
    assert not (rig.workspace / "big").exists()
    records = rig.records(session_id)
    well_formed(records)
    # Every call that reached the pipeline is in the log, with its result; none other is.
    assert list(outcomes(records).values()) == ["UNKNOWN_TOOL", "INVALID_ARGUMENTS", "ok"]


def test_a_line_that_is_not_json_rpc_gets_an_error_reply(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    wire = Wire(rig)
    try:
        wire.send("this is not JSON {")
        parse = wire.answer(None)
        assert parse["error"]["code"] == -32700  # Parse error, as JSON-RPC 2.0 says
        wire.send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": ')
        assert wire.answer(None)["error"]["code"] == -32700
        # JSON, but not a JSON-RPC message: Invalid Request, with its id when it has one.
        wire.send({"jsonrpc": "2.0", "id": 3, "method": 5})
        invalid = wire.answer(3)
        assert invalid["error"]["code"] == -32600
        wire.send("[1, 2]")
        assert wire.answer(None)["error"]["code"] == -32600
        wire.send(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        assert "result" in wire.answer(4)  # and the server goes on
    finally:
        wire.stdin.close()
        code = wire.process.wait(timeout=30)
        wire.stdout.close()
    assert code == 0
