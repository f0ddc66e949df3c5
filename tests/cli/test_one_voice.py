"""One voice across the CLI (issue 34 point 6), through the real ``seamhost`` in child processes.

* A command that parks names the one command that answers the turn and the one that continues
  it, by the model the session recorded: ``run --resume ID [SCENARIO]`` for a scripted session,
  ``exec --resume ID`` (or ``chat --resume ID`` from chat) for a real model's.
* ``--json`` streams are JSON Lines ending in exactly one summary object; a failure in
  ``--json`` mode is one object with the same keys; the user guide documents each shape.
* A mistyped profile, command, tool or session id gets a close match: exit 2, one line.

The real model is model-openai against the API stand-in (tests/model_openai/standin.py): the
one mock this project allows, since a remote model API cannot run here. Everything else is real.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.summary import OUTCOMES
from seamhost.testing.model_adapter import CannedAnswer, CannedCall
from tests.conftest import run_cli
from tests.model_openai.canned import canned_reply
from tests.model_openai.standin import StandIn

ROOT = Path(__file__).parent.parent.parent
USER_GUIDE = ROOT / "docs" / "user-guide.md"

# Writes under drafts/ are asked about, and the question is deferred to a person later.
ASKS_AND_DEFERS = """
[[plugins.tool-policy.rules]]
tool = "write_file"
path = "drafts/**"
decision = "ask"
reason = "drafts are reviewed"
[plugins.user-approval]
answerers = ["rules", "defer"]
"""

SCRIPTED = """
[[turn]]
user = "draft it"
final = "Drafted."
[[turn.step]]
text = "Writing the draft now."
[[turn.step.call]]
tool = "write_file"
args = { path = "drafts/a.md", content = "a\\n", create_dirs = true }
"""


class Home:
    """A session store of its own, a workspace, and the CLI pointed at them."""

    def __init__(self, root: Path, profile_text: str, env: dict[str, str] | None = None) -> None:
        self.root = root
        self.workspace = root / "ws"
        self.workspace.mkdir()
        self.profile = root / "voice.toml"
        self.profile.write_text(profile_text)
        self.env = {"SEAMHOST_HOME": str(root / "home"), **(env or {})}

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, env=self.env)

    def with_profile(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.cli(*args, "--profile", str(self.profile))


def stream(stdout: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The envelopes and the one summary a ``--json`` stream is made of (checked to be so)."""
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert lines, "a --json stream ends in a summary"
    *envelopes, summary = lines
    assert all("seq" in e and "type" in e for e in envelopes), envelopes
    seqs = [e["seq"] for e in envelopes]  # consecutive: a resume's start after the log's end
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))) if seqs else True
    assert {"outcome", "exit_code", "session"} <= set(summary), summary
    assert summary["outcome"] in OUTCOMES
    return envelopes, summary


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one failure line on stderr (exec writes its transcript there before it)."""
    [line] = [line for line in done.stderr.splitlines() if line.startswith("seamhost: error: ")]
    assert done.stderr.endswith(line + "\n")
    assert "Traceback" not in done.stderr
    return line


# --------------------------------------------------------------------------------------------
# A scripted session parks: run, approve, session show all say run --resume ID [SCENARIO]


@pytest.fixture
def scripted(tmp_path: Path) -> Home:
    (tmp_path / "scenario.toml").write_text(SCRIPTED)
    return Home(tmp_path, '[profile]\nname = "voice"\nextends = ["default"]\n' + ASKS_AND_DEFERS)


def test_a_parked_scripted_run_names_approve_and_run_resume(scripted: Home) -> None:
    scenario = str(scripted.root / "scenario.toml")
    done = scripted.with_profile(
        "run", "--json", "--workspace", str(scripted.workspace), "--session", "s-1", scenario
    )
    assert done.returncode == ExitCode.AWAITS_APPROVAL, done.stderr
    envelopes, summary = stream(done.stdout)
    approval = summary["approval_id"]
    then = "seamhost run --resume s-1 [SCENARIO]"
    assert summary == {
        "outcome": "parked",
        "exit_code": 4,
        "session": "s-1",
        "turns": [{"turn": 1, "reason": "suspended"}],
        "usage": summary["usage"],  # its totals: tests/model_openai/test_openai_usage.py
        "approval_id": approval,
        "answer": f"seamhost approve s-1 {approval}",
        "continue": then,
        "error": {
            "code": "awaits_approval",
            "exit_code": 4,
            "message": one_error_line(done).removeprefix("seamhost: error: "),
            "details": {"session_id": "s-1", "approval_id": approval},
        },
    }
    line = one_error_line(done)
    assert f"`seamhost approve s-1 {approval}` or `seamhost reject s-1 {approval}`" in line
    assert line.endswith(f"then continue with `{then}`")
    assert envelopes[-1]["type"] == "approval/deferred"

    shown = scripted.with_profile("session", "show", "s-1")
    assert f"then continue with `{then}`" in shown.stdout, shown.stdout

    kept = scripted.with_profile("session", "rm", "s-1")
    assert kept.returncode != 0
    assert f"answer it and `{then}`, then remove it" in kept.stdout, kept.stdout

    answered = scripted.with_profile("approve", "s-1", approval)
    assert answered.returncode == 0, answered.stderr
    assert answered.stdout.strip().endswith(f"continue with `{then}`")
    resumed = scripted.with_profile("run", "--json", "--resume", "s-1", scenario)
    assert resumed.returncode == ExitCode.OK, resumed.stderr
    _, summary = stream(resumed.stdout)
    assert (summary["outcome"], summary["exit_code"], summary["session"]) == ("completed", 0, "s-1")
    assert "error" not in summary
    assert (scripted.workspace / "drafts" / "a.md").read_text() == "a\n"


def test_a_failed_run_ends_its_stream_with_one_failed_summary(scripted: Home) -> None:
    quickstart = str(ROOT / "examples" / "quickstart.toml")
    done = scripted.cli(
        "run", "--json", "--limit", "max_steps=1", "--session", "s-2",
        "--workspace", str(scripted.workspace), quickstart,
    )  # fmt: skip
    assert done.returncode == ExitCode.FAILURE, done.stderr
    _, summary = stream(done.stdout)
    assert (summary["outcome"], summary["exit_code"], summary["session"]) == ("failed", 1, "s-2")
    assert summary["error"]["code"] == "failure"
    assert summary["error"]["details"]["turns"], summary
    assert summary["error"]["message"] == one_error_line(done).removeprefix("seamhost: error: ")


# --------------------------------------------------------------------------------------------
# A real model's session parks: exec, approve say exec --resume ID; exec prints no "answer"


@pytest.fixture
def standin() -> Iterator[StandIn]:
    with StandIn() as server:
        yield server


@pytest.fixture
def real(tmp_path: Path, standin: StandIn) -> Home:
    profile = (
        '[profile]\nname = "voice-real"\nextends = ["openai"]\n'
        f'[plugins.model-openai]\nbase_url = "{standin.base_url}"\n' + ASKS_AND_DEFERS
    )
    return Home(tmp_path, profile, {"OPENAI_API_KEY": "sk-test-voice"})


def draft_call() -> Any:
    arguments = json.dumps({"path": "drafts/b.md", "content": "b\n", "create_dirs": True})
    return canned_reply(
        CannedAnswer("Let me write the draft.", (CannedCall("call_d1", "write_file", arguments),))
    )


def test_a_parked_exec_of_a_real_model_names_exec_resume(real: Home, standin: StandIn) -> None:
    standin.reply(draft_call(), canned_reply(CannedAnswer("The draft is written.")))
    args = ("exec", "--profile", str(real.profile), "--workspace", str(real.workspace))
    done = real.cli(*args, "draft it")
    assert done.returncode == ExitCode.AWAITS_APPROVAL, done.stderr
    assert done.stdout == ""  # the text before the parked call is not the turn's answer
    line = one_error_line(done)
    [session] = re.findall(r"session (\S+) awaits approval", line)
    [approval] = re.findall(r"awaits approval (\S+):", line)
    then = f"seamhost exec --resume {session}"
    assert f"`seamhost approve {session} {approval}`" in line
    assert line.endswith(f"then continue with `{then}`"), line
    assert "run --resume" not in line
    assert "chat --resume" not in line

    answered = real.with_profile("approve", session, approval)
    assert answered.returncode == 0, answered.stderr
    assert answered.stdout.strip().endswith(f"continue with `{then}`"), answered.stdout
    shown = real.with_profile("session", "show", session)
    assert f"continue with `{then}`" in shown.stdout

    resumed = real.cli(*args, "--json", "--resume", session)
    assert resumed.returncode == ExitCode.OK, resumed.stderr
    _, summary = stream(resumed.stdout)
    assert summary == {
        "outcome": "completed",
        "exit_code": 0,
        "session": session,
        "final": "The draft is written.",
        "reason": "completed",
        "turn": 1,
        "usage": summary["usage"],  # its totals: tests/model_openai/test_openai_usage.py
    }


def test_exec_resume_with_nothing_to_do_still_ends_in_a_summary(
    real: Home, standin: StandIn
) -> None:
    standin.reply(canned_reply(CannedAnswer("Hello.")))
    args = ("exec", "--json", "--profile", str(real.profile), "--workspace", str(real.workspace))
    first = real.cli(*args, "hi")
    assert first.returncode == ExitCode.OK, first.stderr
    _, summary = stream(first.stdout)
    again = real.cli(*args, "--resume", summary["session"])
    assert again.returncode == ExitCode.OK, again.stderr
    assert stream(again.stdout) == (
        [],
        {
            "outcome": "completed",
            "exit_code": 0,
            "session": summary["session"],
            "final": None,
            "reason": None,
        },
    )


def test_a_parked_chat_of_a_real_model_names_chat_resume(real: Home, standin: StandIn) -> None:
    standin.reply(draft_call())
    done = run_cli(
        "chat",
        "--profile",
        str(real.profile),
        "--workspace",
        str(real.workspace),
        env=real.env,
        input="draft it\n",
    )  # fmt: skip  (no terminal: chat reads the lines plainly)
    assert done.returncode == ExitCode.AWAITS_APPROVAL, done.stderr
    line = one_error_line(done)
    [session] = re.findall(r"session (\S+) awaits approval", line)
    assert line.endswith(f"then continue with `seamhost chat --resume {session}`"), line


def test_a_parked_exec_json_summary_has_no_final_text(real: Home, standin: StandIn) -> None:
    standin.reply(draft_call())
    done = real.cli(
        "exec", "--json", "--profile", str(real.profile), "--workspace", str(real.workspace), "go"
    )
    assert done.returncode == ExitCode.AWAITS_APPROVAL, done.stderr
    _, summary = stream(done.stdout)
    session, approval = summary["session"], summary["approval_id"]
    assert summary["outcome"] == "parked"
    assert summary["final"] is None
    assert summary["answer"] == f"seamhost approve {session} {approval}"
    assert summary["continue"] == f"seamhost exec --resume {session}"


# --------------------------------------------------------------------------------------------
# Failures in --json mode: one object, the summary's keys


def test_a_failure_in_json_mode_is_one_object_with_the_summary_keys(tmp_path: Path) -> None:
    home = Home(tmp_path, "")
    done = home.cli("run", "--json", "--profile", "nosuch", str(tmp_path / "x.toml"))
    assert done.returncode == ExitCode.USAGE
    [obj] = [json.loads(line) for line in done.stdout.splitlines()]
    assert obj["outcome"] == "error"
    assert obj["exit_code"] == 2
    assert obj["error"]["code"] == "usage"
    assert obj["error"]["message"] == one_error_line(done).removeprefix("seamhost: error: ")
    assert "session" not in obj  # none was named


def test_a_failure_naming_a_session_carries_it(scripted: Home) -> None:
    scenario = str(scripted.root / "scenario.toml")
    parked = scripted.with_profile(
        "run", "--workspace", str(scripted.workspace), "--session", "s-3", scenario
    )
    assert parked.returncode == ExitCode.AWAITS_APPROVAL, parked.stderr
    done = scripted.cli("--json", "approve", "--profile", str(scripted.profile), "s-3", "nope")
    assert done.returncode == ExitCode.USAGE
    [obj] = [json.loads(line) for line in done.stdout.splitlines()]
    assert (obj["outcome"], obj["exit_code"], obj["session"]) == ("error", 2, "s-3")
    assert {"code", "message"} <= set(obj["error"])


# --------------------------------------------------------------------------------------------
# Did you mean: profile, command, tool, session id


@pytest.mark.parametrize(
    ("args", "suggestion"),
    [
        (("run", "--profile", "defualt", "x.toml"), "did you mean 'default'?"),
        (("profile", "show", "stirct"), "did you mean 'strict'?"),
        (("sesion", "ls"), "Did you mean 'session'?"),
        (("aprove", "s", "a"), "'approve'"),
        (("session", "lss"), "Did you mean 'ls'?"),
        (("policy", "explain", "--tool", "shel", "--args", "{}"), "did you mean 'shell'?"),
        (("policy", "explain", "--tool", "write_fil", "--args", "{}"), "mean 'write_file'"),
    ],
)
def test_a_mistyped_name_gets_a_close_match(
    tmp_path: Path, args: tuple[str, ...], suggestion: str
) -> None:
    done = Home(tmp_path, "").cli(*args)
    assert done.returncode == ExitCode.USAGE, done.stderr
    assert suggestion in one_error_line(done)


def test_a_mistyped_session_id_gets_the_close_ids(scripted: Home) -> None:
    scenario = str(scripted.root / "scenario.toml")
    for sid in ("20260101-000000-abcdef012345", "20260101-000000-999999999999"):
        done = scripted.with_profile(
            "run", "--workspace", str(scripted.workspace), "--session", sid, scenario
        )
        assert done.returncode == ExitCode.AWAITS_APPROVAL, done.stderr
    typo = scripted.with_profile("session", "show", "20260101-000000-abcdef012354")
    assert typo.returncode == ExitCode.USAGE
    assert one_error_line(typo).endswith("did you mean '20260101-000000-abcdef012345'?")
    short = scripted.with_profile("approve", "20260110-000000-abc", "a")  # a mistyped prefix
    assert short.returncode == ExitCode.USAGE
    assert "did you mean '20260101-000000-abcdef012345'?" in one_error_line(short)
    far = scripted.with_profile("session", "show", "zzz")
    assert far.returncode == ExitCode.USAGE
    assert "did you mean" not in one_error_line(far)


# --------------------------------------------------------------------------------------------
# The user guide documents --json per command


def json_commands() -> list[str]:
    """Every ``seamhost`` command that takes ``--json``, by its full name."""
    from seamhost.cli import main

    found: list[str] = []

    def walk(command: click.Command, path: str, ctx: click.Context) -> None:
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None
                walk(sub, f"{path} {name}", click.Context(sub, parent=ctx, info_name=name))
        elif any("--json" in getattr(p, "opts", ()) for p in command.params):
            found.append(path)

    walk(main, "seamhost", click.Context(main, info_name="seamhost"))
    return found


def test_the_user_guide_documents_json_for_every_command_that_has_it() -> None:
    text = USER_GUIDE.read_text(encoding="utf-8")
    section = text.split("### JSON output", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    section = " ".join(section.split())  # names wrap across lines
    commands = json_commands()
    assert {"seamhost run", "seamhost exec", "seamhost session ls"} <= set(commands)
    missing = [c for c in commands if f"`{c.removeprefix('seamhost ')}" not in section]
    assert not missing, f"the user guide's JSON output section does not list: {missing}"
    for key in ("outcome", "exit_code", "session", "answer", "continue", "error"):
        assert f"`{key}`" in section, key
