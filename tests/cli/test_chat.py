"""``seamhost chat`` driven on a real pty: typed messages, streamed text, tool results,
approvals at the terminal, Ctrl-C during a slow step, /exit, history and --resume.

The model is model-scripted, configured by the profile: it answers by turn and step order
whatever is typed (scripted turn 1 answers the first message of each chat process). The tools,
the sandbox and the JSONL store are the real ones, in the test's own directory.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from seamhost.cli.exitcodes import ExitCode
from tests.cli.pty_kit import Terminal
from tests.conftest import run_cli

QUESTION = "allow this call once? [y/N]"
PROMPT = "you> "
SCENARIO = """
[[turn]]
user = "ignored"
final = "The release file is handled."
[[turn.step]]
text = "Writing the release file."
[[turn.step.call]]
tool = "write_file"
args = { path = "release/v1.txt", content = "v1\\n", create_dirs = true }

[[turn]]
user = "ignored"
final = "Slept."
[[turn.step]]
[[turn.step.call]]
tool = "shell"
args = { command = "sleep 30" }
"""


class Chat:
    """A profile replaying SCENARIO, a home and a workspace; `start` opens a chat on a pty."""

    def __init__(self, root: Path) -> None:
        (root / "scenario.toml").write_text(SCENARIO)
        self.profile = root / "profile.toml"
        self.profile.write_text(
            # The approval path under test writes to release/, which default keeps read-only.
            '[profile]\nname = "chat-test"\nextends = ["default"]\n'
            "[sandbox]\nread_only_paths = []\n"
            '[plugins.model-scripted]\nscenario = "scenario.toml"\n'
        )
        self.workspace = root / "workspace"
        self.home = root / "home"
        self.env = {"SEAMHOST_HOME": str(self.home)}
        self.terminals: list[Terminal] = []

    def start(self, *more: str) -> Terminal:
        terminal = Terminal(
            "chat", "--profile", str(self.profile), "--workspace", str(self.workspace), *more,
            env=self.env,
        )  # fmt: skip
        self.terminals.append(terminal)
        terminal.expect(PROMPT)
        return terminal

    def records(self, session_id: str) -> list[dict[str, Any]]:
        """The session's envelopes, as ``session show --json`` prints them."""
        done = run_cli("session", "show", session_id, *self.options, env=self.env)
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()]

    def verify(self, session_id: str) -> None:
        done = run_cli("session", "verify", session_id, *self.options, env=self.env)
        assert done.returncode == 0, done.stdout + done.stderr
        [report] = json.loads(done.stdout)
        assert report["intact"] is True, report

    @property
    def options(self) -> tuple[str, ...]:
        return ("--profile", str(self.profile), "--json")

    def session_id(self) -> str:
        [session] = [p.name for p in (self.home / "sessions").iterdir() if p.is_dir()]
        return session


@pytest.fixture
def chat(tmp_path: Path) -> Iterator[Chat]:
    rig = Chat(tmp_path)
    yield rig
    for terminal in rig.terminals:
        terminal.kill()


def leave(terminal: Terminal) -> tuple[int, str]:
    """Type /exit; the exit status and the line that says how to resume."""
    terminal.type("/exit\r")
    status = terminal.wait()
    return status, terminal.shown.strip().splitlines()[-1]


def test_a_message_streams_text_runs_a_tool_asks_at_the_terminal(chat: Chat) -> None:
    terminal = chat.start()
    terminal.type("write the release file\r")
    before = terminal.expect(QUESTION)
    assert "assistant: Writing the release file." in before
    assert "→ write_file" in before
    terminal.type("y")
    after = terminal.expect(PROMPT)
    assert "→ allowed once" in after
    assert "✓ ok write_file" in after
    assert "assistant: The release file is handled." in after
    assert "turn 1 completed" in after
    assert terminal.shown.count("Writing the release file.") == 1  # streamed, not repeated
    assert (chat.workspace / "release" / "v1.txt").read_text() == "v1\n"
    status, line = leave(terminal)
    session_id = chat.session_id()
    assert status == ExitCode.OK
    assert line == f"session {session_id}: resume it with `seamhost chat --resume {session_id}`"


def test_ctrl_c_cancels_a_slow_step_and_the_prompt_returns(chat: Chat) -> None:
    terminal = chat.start()
    terminal.type("first\r")
    terminal.expect(QUESTION)
    terminal.type("n")
    terminal.expect(PROMPT)
    terminal.type("now sleep\r")
    terminal.expect("dispatched call-2-1-1")
    time.sleep(0.3)  # the shell command runs
    started = time.monotonic()
    terminal.type("\x03")
    cancelled = terminal.expect(PROMPT)
    assert time.monotonic() - started < 10  # the sleep was stopped, not waited for
    assert "✗ TOOL_OUTCOME_UNKNOWN shell" in cancelled
    assert "turn 2 aborted: cancelled" in cancelled
    terminal.type("/help\r")
    assert "/exit" in terminal.expect(PROMPT)
    terminal.type("\x04")  # Ctrl-D leaves too
    assert terminal.wait() == ExitCode.OK
    session_id = chat.session_id()
    chat.verify(session_id)
    ends = [r["data"]["reason"] for r in chat.records(session_id) if r["type"] == "turn/end"]
    assert ends == ["completed", "aborted"]


def test_ctrl_c_twice_at_the_prompt_leaves(chat: Chat) -> None:
    terminal = chat.start()
    terminal.type("\x03")
    terminal.expect("(Ctrl-C again, Ctrl-D or /exit leaves)")
    terminal.type("\x03")
    assert terminal.wait() == ExitCode.OK
    assert terminal.shown.strip().endswith("no message was sent, so no session was stored")


def test_an_unknown_command_is_named_not_sent(chat: Chat) -> None:
    terminal = chat.start()
    terminal.type("/nope now\r")
    assert "unknown command /nope; /help lists them" in terminal.expect(PROMPT)
    status, line = leave(terminal)
    assert status == ExitCode.OK
    assert line == "no message was sent, so no session was stored"
    assert not (chat.home / "sessions").exists()


def test_resume_continues_the_same_session(chat: Chat) -> None:
    terminal = chat.start()
    terminal.type("write it\r")
    terminal.expect(QUESTION)
    terminal.type("y")
    terminal.expect(PROMPT)
    assert leave(terminal)[0] == ExitCode.OK
    session_id = chat.session_id()
    again = chat.start("--resume", session_id[:12])
    assert f"resumed {session_id}" in again.shown
    again.type("once more\r")
    again.expect(QUESTION)  # scripted turn 1 again: a new process starts the script anew
    again.type("n")
    assert "turn 2 completed" in again.expect(PROMPT)
    assert leave(again)[0] == ExitCode.OK
    assert chat.session_id() == session_id  # no second session
    chat.verify(session_id)
    records = chat.records(session_id)
    assert [r["data"]["turn"] for r in records if r["type"] == "turn/start"] == [1, 2]
    decided = [r["data"]["outcome"] for r in records if r["type"] == "approval/decided"]
    assert decided == ["allowed-once", "rejected"]


def test_the_history_is_kept_in_the_home_and_recalled(chat: Chat) -> None:
    terminal = chat.start()
    terminal.type("remember this line\r")
    terminal.expect(QUESTION)
    terminal.type("n")
    terminal.expect(PROMPT)
    assert leave(terminal)[0] == ExitCode.OK
    assert "remember this line" in (chat.home / "chat_history").read_text()
    again = chat.start()
    again.type("\x1b[A\x1b[A")  # up twice: past /exit to the line before it
    again.expect("remember this line")
    again.type("\x15/exit\r")  # Ctrl-U clears the recalled line first
    assert again.wait() == ExitCode.OK


def test_without_a_terminal_lines_are_read_plainly_and_nobody_is_asked(chat: Chat) -> None:
    done = run_cli(
        "chat", "--profile", str(chat.profile), "--workspace", str(chat.workspace),
        env=chat.env, input="write the release file\n",
    )  # fmt: skip
    assert done.returncode == ExitCode.OK, done.stderr
    assert "APPROVAL_UNAVAILABLE write_file" in done.stdout
    assert "standard input is not a terminal" in done.stdout
    assert QUESTION not in done.stdout
    session_id = chat.session_id()
    assert done.stdout.strip().endswith(f"`seamhost chat --resume {session_id}`")
    assert not (chat.home / "chat_history").exists()  # no line editing, no history
