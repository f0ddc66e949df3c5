"""Nothing from a session reaches the terminal raw (issue 33, point 5).

A tool's output, the model's text and a call's arguments are written by parties the person at
the terminal does not control. Printed raw, an escape sequence in them acts on the terminal:
OSC 52 writes the clipboard, CSI sequences clear the screen or hide text, C1 controls (U+009B is
a one-character CSI on terminals that honour C1) do the same, BEL rings. Each human-facing view
(``run``, ``session show``, ``exec``, ``chat``) must show them escaped (``\\x1b``), while the log
keeps the bytes exactly and ``--json`` stays exact JSON.

Everything is real: the CLI in a child process (``chat`` on a real pty), the scripted model
replaying a scenario, the shell tool running bash's ``printf`` in the sandbox, the JSONL store.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from seamhost.cli.exitcodes import ExitCode
from tests.cli.pty_kit import Terminal
from tests.conftest import run_cli

# What a hostile file, command output or model writes: OSC 52 (set the clipboard to "hello")
# ended by BEL, a CSI that clears the screen, the C1 CSI U+009B and a lone BEL.
HOSTILE = "\x1b]52;c;aGVsbG8=\x07 clear\x1b[2J c1\x9b6n bell\x07 end"
ESCAPED = ("\\x1b]52;c;aGVsbG8=\\x07", "\\x1b[2J", "\\x9b6n", "bell\\x07")

# bash's printf writes the same bytes (U+009B is \302\233 in UTF-8).
PRINTF = r"printf '\033]52;c;aGVsbG8=\007 clear\033[2J c1\302\2336n bell\007 end'"

# In TOML the controls are written as \\u escapes; the shell call has bash's printf write them.
SCENARIO = """
[scenario]
workspace = { "evil.txt" = "EVIL" }

[[turn]]
user = "read evil.txt \\u001b[2J please"
final = "Read it. \\u001b]52;c;aGVsbG8=\\u0007 done \\u009b6n"
[[turn.step]]
text = "Reading \\u001b]0;owned\\u0007 the file."
[[turn.step.call]]
tool = "read_file"
args = { path = "evil.txt" }
[[turn.step]]
[[turn.step.call]]
tool = "shell"
args = { command = "PRINTF" }

[[turn]]
user = "again"
[[turn.step]]
error = "the model broke: \\u001b]52;c;aGVsbG8=\\u0007 \\u009b6n"
""".replace("EVIL", "".join(f"\\u{ord(c):04x}" if not c.isprintable() else c for c in HOSTILE))
SCENARIO = SCENARIO.replace("PRINTF", PRINTF.replace("\\", "\\\\"))

C1 = re.compile("[\x80-\x9f]")


def assert_no_raw_controls(shown: str, where: str) -> None:
    """No raw ESC, BEL or C1 control in `shown`."""
    assert "\x1b" not in shown, f"{where}: raw ESC in {shown!r}"
    assert "\x07" not in shown, f"{where}: raw BEL in {shown!r}"
    assert C1.search(shown) is None, f"{where}: raw C1 control in {shown!r}"


def assert_terminal_safe(shown: str, where: str) -> None:
    """No raw control in `shown`, and the hostile text's escaped forms are there instead."""
    assert_no_raw_controls(shown, where)
    for escaped in ESCAPED:
        assert escaped in shown, f"{where}: {escaped!r} not shown in {shown!r}"


class Rig:
    """A profile over the default one replaying SCENARIO; a home and a workspace."""

    def __init__(self, root: Path) -> None:
        self.scenario = root / "scenario.toml"
        self.scenario.write_text(SCENARIO, encoding="utf-8")
        self.profile = root / "profile.toml"
        self.profile.write_text(
            '[profile]\nname = "safety"\nextends = ["default"]\n'
            '[plugins.model-scripted]\nscenario = "scenario.toml"\n'
        )
        self.workspace = root / "workspace"
        self.workspace.mkdir()
        # `run` seeds the scenario's workspace; `exec` and `chat` work on the files there.
        (self.workspace / "evil.txt").write_text(HOSTILE, encoding="utf-8")
        self.home = root / "home"
        self.env = {"SEAMHOST_HOME": str(self.home)}

    def cli(self, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, "--profile", str(self.profile), env=self.env, input=input)

    def session_id(self) -> str:
        [session] = [p.name for p in (self.home / "sessions").iterdir() if p.is_dir()]
        return session

    def records(self, session_id: str) -> list[dict[str, Any]]:
        shown = self.cli("session", "show", session_id, "--json")
        assert shown.returncode == 0, shown.stderr
        return [json.loads(line) for line in shown.stdout.splitlines()]


def assert_log_keeps_the_bytes(rig: Rig, session_id: str) -> None:
    """The records hold the controls exactly as the tools and the model produced them."""
    records = rig.records(session_id)
    contents = [r["data"].get("content") for r in records if r["type"] == "tool/result"]
    assert contents[0] == HOSTILE  # read_file
    assert HOSTILE in contents[1]  # the shell's stdout
    ended = [r["data"] for r in records if r["type"] == "turn/end"]
    assert "the model broke: \x1b]52;c;aGVsbG8=\x07 \x9b6n" in ended[-1]["message"]


def test_run_and_session_show_escape_what_the_session_holds(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    done = rig.cli("run", str(rig.scenario), "--workspace", str(rig.workspace))
    assert done.returncode == ExitCode.FAILURE, done.stderr  # turn 2's model failure
    assert_terminal_safe(done.stdout, "run stdout")
    assert_no_raw_controls(done.stderr, "run stderr")
    assert "the model broke: \\x1b]52;c;aGVsbG8=\\x07 \\x9b6n" in done.stderr
    session_id = rig.session_id()
    shown = rig.cli("session", "show", session_id)
    assert shown.returncode == 0, shown.stderr
    assert_terminal_safe(shown.stdout, "session show")
    assert "Reading \\x1b]0;owned\\x07 the file." in shown.stdout  # the model's text
    assert "read evil.txt \\x1b[2J please" in shown.stdout  # the user's message
    assert_log_keeps_the_bytes(rig, session_id)


def test_run_json_stays_exact_json(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    done = rig.cli("run", str(rig.scenario), "--workspace", str(rig.workspace), "--json")
    assert done.returncode == ExitCode.FAILURE, done.stderr
    assert "\x1b" not in done.stdout  # JSON escapes every control character
    envelopes = [json.loads(line) for line in done.stdout.splitlines()[:-1]]
    assert envelopes == rig.records(rig.session_id())


def test_exec_escapes_the_answer_and_the_transcript(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    done = run_cli(
        "exec", "--profile", str(rig.profile), "--workspace", str(rig.workspace), "read it",
        env=rig.env,
    )  # fmt: skip
    assert done.returncode == ExitCode.OK, done.stderr
    assert done.stdout == "Read it. \\x1b]52;c;aGVsbG8=\\x07 done \\x9b6n\n"
    assert_terminal_safe(done.stderr, "exec transcript")
    as_json = run_cli(
        "exec", "--profile", str(rig.profile), "--workspace", str(rig.workspace), "--json",
        "read it", env=rig.env,
    )  # fmt: skip
    final = json.loads(as_json.stdout.splitlines()[-1])
    assert final["final"] == "Read it. \x1b]52;c;aGVsbG8=\x07 done \x9b6n"  # exact in JSON


def test_chat_escapes_streamed_text_and_results_on_a_terminal(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    terminal = Terminal(
        "chat", "--profile", str(rig.profile), "--workspace", str(rig.workspace), env=rig.env
    )
    try:
        terminal.expect("you> ")
        terminal.type("read it\r")
        terminal.expect("turn 1 completed")
        terminal.expect("you> ")
        terminal.type("again\r")
        terminal.expect("turn 2 error")
        terminal.expect("you> ")
        terminal.type("/exit\r")
        assert terminal.wait() == ExitCode.OK
    finally:
        terminal.kill()
    raw = terminal.raw
    for sequence in (b"\x1b]", b"\x07", b"\xc2\x9b", b"\x1b[2J"):
        assert sequence not in raw, f"raw {sequence!r} reached the terminal"
    shown = terminal.shown
    for escaped in (*ESCAPED, "Reading \\x1b]0;owned\\x07 the file."):
        assert escaped in shown, f"{escaped!r} not shown"
    assert_log_keeps_the_bytes(rig, rig.session_id())
