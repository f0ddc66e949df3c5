"""``seamhost exec`` end to end: one headless turn through the real CLI, tools, sandbox and store.

The model is model-scripted, configured by the profile (``[plugins.model-scripted] scenario``):
it answers by turn and step order whatever the prompt says, so each test scripts what the model
does and checks what exec makes of it: the answer on stdout, the transcript on stderr, ``--json``
lines, approvals only through rules (never the terminal), the exit codes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from seamhost.cli.exitcodes import ExitCode
from tests.cli.processes import wait_for_descendant
from tests.cli.pty_kit import Terminal
from tests.conftest import run_cli

WRITE_AND_READ = """
[[turn]]
user = "ignored: the scripted model answers by order"
final = "Done: notes.txt says hello."
[[turn.step]]
text = "Writing the notes."
[[turn.step.call]]
tool = "write_file"
args = { path = "notes.txt", content = "hello\\n" }
[[turn.step]]
[[turn.step.call]]
tool = "read_file"
args = { path = "notes.txt" }
"""


def release_write(path: str) -> str:
    """One write the default profile asks about (release/**), then a final answer."""
    return f"""
[[turn]]
user = "x"
final = "Tried the release write."
[[turn.step]]
[[turn.step.call]]
tool = "write_file"
args = {{ path = "{path}", content = "v1\\n", create_dirs = true }}
"""


class Rig:
    """A profile over the default one replaying `scenario`; a home and a workspace."""

    def __init__(self, root: Path, scenario: str, extra: str = "") -> None:
        (root / "scenario.toml").write_text(scenario)
        self.profile = root / "profile.toml"
        self.profile.write_text(
            # The approval path under test writes to release/, which default keeps read-only.
            '[profile]\nname = "exec-test"\nextends = ["default"]\n'
            "[sandbox]\nread_only_paths = []\n"
            f'[plugins.model-scripted]\nscenario = "scenario.toml"\n{extra}'
        )
        self.workspace = root / "workspace"
        self.workspace.mkdir()
        self.env = {"SEAMHOST_HOME": str(root / "home")}

    def args(self, *more: str) -> list[str]:
        return ["exec", "--profile", str(self.profile), "--workspace", str(self.workspace), *more]

    def exec(self, *more: str, input: str = "") -> subprocess.CompletedProcess[str]:
        return run_cli(*self.args(*more), env=self.env, input=input)

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, "--profile", str(self.profile), env=self.env)

    def records(self, session_id: str) -> list[dict[str, object]]:
        shown = self.cli("session", "show", session_id, "--json")
        assert shown.returncode == 0, shown.stderr
        return [json.loads(line) for line in shown.stdout.splitlines()]

    def session_ids(self) -> list[str]:
        stored = Path(self.env["SEAMHOST_HOME"]) / "sessions"
        return [p.name for p in stored.iterdir() if p.is_dir()]


def results(records: list[dict[str, object]]) -> dict[str, object]:
    """Each call's outcome: "ok" or its error code."""
    found: dict[str, object] = {}
    for r in records:
        data = r["data"]
        assert isinstance(data, dict)
        if r["type"] == "tool/result":
            found[data["call_id"]] = (data.get("error") or {}).get("code", "ok")
    return found


def test_the_answer_is_on_stdout_and_the_transcript_on_stderr(tmp_path: Path) -> None:
    rig = Rig(tmp_path, WRITE_AND_READ)
    done = rig.exec("write the notes")
    assert done.returncode == ExitCode.OK, done.stderr
    assert done.stdout == "Done: notes.txt says hello.\n"
    assert (rig.workspace / "notes.txt").read_text() == "hello\n"
    for shown in ("assistant: Writing the notes.", "✓ ok write_file", "✓ ok read_file"):
        assert shown in done.stderr
    assert "turn 1 completed" in done.stderr
    [session_id] = rig.session_ids()
    assert f"session {session_id}" in done.stderr
    assert rig.cli("session", "verify", session_id).returncode == 0


def test_json_prints_the_envelopes_then_one_final_line(tmp_path: Path) -> None:
    rig = Rig(tmp_path, WRITE_AND_READ)
    done = rig.exec("--json", "write the notes")
    assert done.returncode == ExitCode.OK, done.stderr
    *envelopes, final = [json.loads(line) for line in done.stdout.splitlines()]
    assert final == {
        "outcome": "completed",
        "exit_code": 0,
        "session": final["session"],
        "final": "Done: notes.txt says hello.",
        "reason": "completed",
        "turn": 1,
        "usage": final["usage"],  # the scripted model reports no tokens: test_openai_usage.py
    }
    assert final["usage"]["output_tokens"] == 0
    assert [e["seq"] for e in envelopes] == list(range(len(envelopes)))
    assert envelopes == rig.records(final["session"])
    assert done.stderr == ""


def test_a_dash_reads_the_prompt_from_stdin(tmp_path: Path) -> None:
    rig = Rig(tmp_path, WRITE_AND_READ)
    done = rig.exec("--json", "-", input="a prompt\nfrom a pipe\n")
    assert done.returncode == ExitCode.OK, done.stderr
    session_id = json.loads(done.stdout.splitlines()[-1])["session"]
    [message] = [r for r in rig.records(session_id) if r["type"] == "user/message"]
    assert message["data"]["content"] == "a prompt\nfrom a pipe\n"  # type: ignore[index]


@pytest.mark.parametrize("prompt", ["", "   \n"])
def test_an_empty_prompt_is_a_usage_error(tmp_path: Path, prompt: str) -> None:
    rig = Rig(tmp_path, WRITE_AND_READ)
    done = rig.exec("-", input=prompt)
    assert done.returncode == ExitCode.USAGE
    assert done.stderr.startswith("seamhost: error: the PROMPT is empty")
    assert not (tmp_path / "home" / "sessions").exists()


def test_rules_answer_what_they_cover(tmp_path: Path) -> None:
    rig = Rig(tmp_path, release_write("release/notes/v1.md"))  # the default profile's rule
    done = rig.exec("--json", "draft the notes")
    assert done.returncode == ExitCode.OK, done.stderr
    session_id = json.loads(done.stdout.splitlines()[-1])["session"]
    assert results(rig.records(session_id)) == {"call-1-1-1": "ok"}
    assert (rig.workspace / "release" / "notes" / "v1.md").read_text() == "v1\n"


def test_an_asked_call_no_rule_covers_is_unavailable_without_a_question(tmp_path: Path) -> None:
    rig = Rig(tmp_path, release_write("release/v1.txt"))
    done = rig.exec("write it")
    assert done.returncode == ExitCode.OK, done.stderr  # a refused call is a normal outcome
    assert "APPROVAL_UNAVAILABLE write_file" in done.stderr
    assert "allow this call once?" not in done.stderr + done.stdout
    assert done.stdout == "Tried the release write.\n"
    assert not (rig.workspace / "release").exists()


def test_exec_on_a_terminal_still_never_asks_there(tmp_path: Path) -> None:
    """Standard input, standard output and the controlling terminal are all a pty: no question."""
    rig = Rig(tmp_path, release_write("release/v1.txt"))
    terminal = Terminal(*rig.args("write it"), env=rig.env)
    try:
        assert terminal.wait() == ExitCode.OK
    finally:
        terminal.kill()
    assert "APPROVAL_UNAVAILABLE write_file" in terminal.shown
    assert "tty: no terminal: standard input is not a terminal" in terminal.shown
    assert "allow this call once?" not in terminal.shown


def test_a_deferred_approval_parks_the_turn_with_exit_4(tmp_path: Path) -> None:
    extra = '[plugins.user-approval]\nanswerers = ["rules", "defer"]\n'
    rig = Rig(tmp_path, release_write("release/v1.txt"), extra)
    done = rig.exec("--json", "write it")
    assert done.returncode == ExitCode.AWAITS_APPROVAL, done.stderr
    final = json.loads(done.stdout.splitlines()[-1])
    assert final["reason"] == "suspended"
    assert final["exit_code"] == 4
    approval = final["approval_id"]
    assert final["error"]["code"] == "awaits_approval"
    [line] = done.stderr.splitlines()
    assert line.startswith(f"seamhost: error: session {final['session']} awaits approval")
    assert f"`seamhost approve {final['session']} {approval}`" in line
    listed = json.loads(rig.cli("approvals", "--json").stdout)
    assert [a["approval_id"] for a in listed] == [approval]


def test_a_failed_turn_exits_1_with_one_line(tmp_path: Path) -> None:
    rig = Rig(tmp_path, '[[turn]]\nuser = "x"\n[[turn.step]]\nerror = "the model broke"\n')
    done = rig.exec("anything")
    assert done.returncode == ExitCode.FAILURE
    assert done.stdout == ""
    last = done.stderr.splitlines()[-1]
    assert last.startswith("seamhost: error: session ")
    assert "turn 1 error (" in last
    assert "the model broke" in last


def test_ctrl_c_cancels_the_turn_and_exits_130(tmp_path: Path) -> None:
    sleep = (
        '[[turn]]\nuser = "x"\n[[turn.step]]\n[[turn.step.call]]\ntool = "shell"\n'
        'args = { command = "sleep 30" }\n'
    )
    rig = Rig(tmp_path, sleep)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")} | rig.env
    with subprocess.Popen(
        [sys.executable, "-m", "seamhost", *rig.args("--json", "sleep")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as child:
        assert child.stdout is not None
        assert child.stderr is not None
        while '"tool/dispatch"' not in (line := child.stdout.readline()):
            assert line, "exec ended before the shell command started"
        # tool/dispatch is shown when it is committed, before its checkpoint is durable and the
        # body starts: wait for the sleep itself, so that the interrupt stops a running body.
        assert wait_for_descendant(child.pid, ["sleep", "30"]), "the shell command never started"
        started = time.monotonic()
        child.send_signal(signal.SIGINT)
        rest, stderr = child.stdout.read(), child.stderr.read()
        child.wait(timeout=60)
    assert time.monotonic() - started < 20  # the sleep was stopped, not waited for
    assert child.returncode == ExitCode.INTERRUPTED
    final = json.loads(rest.splitlines()[-1])
    assert (final["reason"], final["exit_code"]) == ("aborted", 130)
    assert stderr.startswith("seamhost: error: interrupted: session ")
    assert results(rig.records(final["session"])) == {"call-1-1-1": "TOOL_OUTCOME_UNKNOWN"}
    assert rig.cli("session", "verify", final["session"]).returncode == 0


@pytest.mark.parametrize("command", ["exec", "chat"])
def test_a_profile_without_a_model_exits_2_before_any_session(tmp_path: Path, command: str) -> None:
    profile = tmp_path / "no-model.toml"
    profile.write_text('[profile]\nname = "no-model"\n[plugins.tools]\n')
    args = [command, "--profile", str(profile)] + (["hello"] if command == "exec" else [])
    done = run_cli(*args, env={"SEAMHOST_HOME": str(tmp_path / "home")}, input="hello\n")
    assert done.returncode == ExitCode.USAGE
    assert done.stderr.splitlines() == [
        f"seamhost: error: {profile}: plugins: no plugin provides llm/adapter (a model); "
        "add one, such as [plugins.model-openai]"
    ]
    assert not (tmp_path / "home" / "sessions").exists()
