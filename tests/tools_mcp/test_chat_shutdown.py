"""`chat` and `exec` with a mounted MCP server end without a traceback.

The connection to a stdio server lives in a task of its own, inside the SDK's cancel scope,
which must be left in the task that entered it. `chat` closed its event loop without cancelling
the tasks still running (``asyncio.run`` does), so the loop's generator shutdown left the scope
from another task: 4 to 6 tracebacks on ``/exit``. Everything here is real (the CLI on a pty,
the ``mcp-server-time`` server from PyPI, confined by the sandbox) but the model, a local
stand-in for the OpenAI API replaying canned answers: the one mock this project allows.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from seamhost.cli.exitcodes import ExitCode
from seamhost.testing.model_adapter import CannedAnswer, CannedCall
from tests.cli.pty_kit import Terminal
from tests.model_openai.canned import canned_reply
from tests.model_openai.standin import StandIn

SERVER = Path(sys.executable).parent / "mcp-server-time"


@pytest.fixture
def standin() -> Iterator[StandIn]:
    with StandIn() as server:
        yield server


def profile(root: Path, standin: StandIn) -> Path:
    path = root / "mounted.toml"
    path.write_text(
        '[profile]\nname = "mounted"\nextends = ["openai"]\n'
        f'[plugins.model-openai]\nbase_url = "{standin.base_url}"\n'
        '[plugins.tools-mcp]\nlog_dir = "logs"\n'
        f'[plugins.tools-mcp.servers.time]\ncommand = ["{SERVER}", "--local-timezone", "UTC"]\n'
    )
    return path


def ask_the_time(standin: StandIn) -> None:
    call = CannedCall("c1", "time__get_current_time", json.dumps({"timezone": "Asia/Tokyo"}))
    standin.reply(
        canned_reply(CannedAnswer("Checking.", (call,))), canned_reply(CannedAnswer("Late."))
    )


def servers_of(pid: int) -> list[int]:
    """The mcp-server-time processes below `pid` (the sandbox may stand between them)."""
    children: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            names[int(entry.name)] = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            todo.append(child)
            if "mcp-server-time" in names.get(child, "") and "bwrap" not in names[child]:
                found.append(child)
    return found


@pytest.mark.parametrize("leave", ["/exit\r", "\x04", "ctrl-c twice", "server-died"])
def test_chat_leaves_without_a_traceback(tmp_path: Path, standin: StandIn, leave: str) -> None:
    ask_the_time(standin)
    env = {"SEAMHOST_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "sk-test"}
    terminal = Terminal(
        "chat", "--profile", str(profile(tmp_path, standin)), "--workspace", str(tmp_path),
        env=env,
    )  # fmt: skip
    try:
        terminal.expect("you> ")
        terminal.type("what time is it\r")
        terminal.expect("turn 1 completed")
        terminal.expect("you> ")
        if leave == "server-died":
            servers = servers_of(terminal.process.pid)
            assert servers, "the mounted server is not running under chat"
            for pid in servers:
                os.kill(pid, signal.SIGKILL)
            leave = "/exit\r"
        if leave == "ctrl-c twice":
            terminal.type("\x03")
            terminal.expect("(Ctrl-C again, Ctrl-D or /exit leaves)")
            leave = "\x03"
        terminal.type(leave)
        assert terminal.wait() == ExitCode.OK
    finally:
        terminal.kill()
    assert "✓ ok time__get_current_time" in terminal.shown
    assert "Traceback" not in terminal.shown, terminal.shown
    assert "RuntimeError" not in terminal.shown


def test_exec_ends_without_a_traceback(tmp_path: Path, standin: StandIn) -> None:
    ask_the_time(standin)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")} | {
        "SEAMHOST_HOME": str(tmp_path / "home"),
        "OPENAI_API_KEY": "sk-test",
    }
    done = subprocess.run(
        [sys.executable, "-m", "seamhost", "exec", "--profile", str(profile(tmp_path, standin)),
         "--workspace", str(tmp_path), "what time is it"],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == ExitCode.OK, done.stderr
    assert "Late." in done.stdout
    assert "Traceback" not in done.stderr, done.stderr
