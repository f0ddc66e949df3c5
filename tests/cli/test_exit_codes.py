"""Every documented failure through the real CLI: its exit code and its one line (issue 19).

Each case is one command line that must fail. It checks the exit code against the documented
enum (docs/reference/exit-codes.md) and that stderr is exactly one line, ``seamhost: error:
...``, without a traceback; a command line with ``--json`` must also end its stdout with one
``{"error": ...}`` object saying the same. Cases marked ``process`` run ``python -m seamhost`` in
a child process, where the status is the process's own; the others go through click's CliRunner.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from seamhost.cli import main
from seamhost.cli.exitcodes import ExitCode
from tests.cli.processes import wait_for_descendant
from tests.conftest import run_cli
from tests.persistence_jsonl.conftest import flip, frame_spans

ROOT = Path(__file__).parent.parent.parent
QUICKSTART = ROOT / "examples" / "quickstart.toml"
USAGE, CORRUPT, FAILURE = ExitCode.USAGE, ExitCode.CORRUPT, ExitCode.FAILURE

FILES = {
    "not-installed.toml": '[profile]\nname = "p"\nextends = ["default"]\n[plugins.not-there]\n',
    "bad-key.toml": '[profile]\nname = "p"\nextends = ["default"]\n[plugins.tools]\nnope = 1\n',
    "bad-scenario.toml": '[[turn]]\nuser = "x"\n[[turn.step]]\n[[turn.step.call]]\ntool = 3\n',
    "mismatch.toml": (
        '[[turn]]\nuser = "x"\n[[turn.step]]\n[[turn.step.call]]\ntool = "read_file"\n'
        'args = { path = "missing.txt" }\nexpect = { "*" = "ok" }\n'
    ),
    # every question waits for a person; writing under release/ asks (the default profile's
    # rule), and release/ is writable here, so the tools' guard lets the question be asked
    "deferring.toml": (
        '[profile]\nname = "deferring"\nextends = ["default"]\n'
        '[plugins.user-approval]\nanswerers = ["defer"]\n[sandbox]\nread_only_paths = []\n'
    ),
    "release.toml": (
        '[[turn]]\nuser = "ship it"\n[[turn.step]]\n[[turn.step.call]]\ntool = "write_file"\n'
        'args = { path = "release/notes.txt", content = "1.0\\n", create_dirs = true }\n'
    ),
    # the shell unconfined, so that interrupting it needs no sandbox backend on this machine
    "unconfined.toml": (
        '[profile]\nname = "unconfined"\nextends = ["default"]\n'
        '[sandbox]\nmode = "danger-full-access"\n'
    ),
    "sleep.toml": (
        '[[turn]]\nuser = "wait"\n[[turn.step]]\n[[turn.step.call]]\ntool = "shell"\n'
        'args = { command = "sleep 30" }\n'
    ),
}


@attrs.frozen
class Rig:
    """A SEAMHOST_HOME holding the corrupted session ``bad``, and the files the cases name."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def env(self) -> dict[str, str]:
        return {"SEAMHOST_HOME": str(self.home)}

    def args(self, command: str) -> list[str]:
        """`command` split like a shell would, with {root} and {quickstart} filled in."""
        places = {"root": str(self.root), "quickstart": str(QUICKSTART)}
        return [arg.format(**places) for arg in shlex.split(command)]


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Rig:
    rig = Rig(tmp_path_factory.mktemp("exit-codes"))
    for name, text in FILES.items():
        (rig.root / name).write_text(text)
    made = run_cli(
        "run", "--session", "bad", "--workspace", str(rig.root / "ws"), str(QUICKSTART), env=rig.env
    )
    assert made.returncode == ExitCode.OK, made.stderr
    log = next((rig.home / "sessions" / "bad").glob("session.v*.jsonl*"))
    flip(log, frame_spans(log)[2].payload + 4)  # a checksum no longer matches: corruption
    return rig


@attrs.frozen
class Case:
    """A command line that fails, how it must end, and whether it runs in a child process."""

    command: str  # as Rig.args takes it
    code: ExitCode
    line: str  # a regular expression for the stderr line after "seamhost: error: "
    process: bool = False


RUN = "run --workspace {root}/ws"
PARKING = f"{RUN} --profile {{root}}/deferring.toml"
CORRUPTED = r"session 'bad' is corrupted at byte \d+ of .*"
MISSING = r"no session 'nope' \(nor one whose id starts with it\) in .*; `seamhost session ls` .*"
CASES = [
    # click's usage errors: at the top, in a subcommand, in a nested group
    Case("run --bogus", USAGE, r"no such option '--bogus' \(see `seamhost run --help`\)", True),
    Case("--bogus", USAGE, r"no such option '--bogus' \(see `seamhost --help`\)"),
    Case("nosuch", USAGE, r"no such command 'nosuch' \(see `seamhost --help`\)", True),
    Case("session nosuch", USAGE, r"no such command 'nosuch' \(see `seamhost session --help`\)"),
    Case(
        "session show", USAGE, r"missing argument 'ID' \(see `seamhost session show --help`\)", True
    ),
    Case(
        "run --approval-policy maybe {quickstart}",
        USAGE,
        r"invalid value for '--approval-policy': 'maybe' is not one of 'ask', 'never' "
        r"\(see `seamhost run --help`\)",
    ),
    Case("run {root}", USAGE, r"invalid value for '\[SCENARIO\]': .* is a directory \(see .*\)"),
    Case("session verify a b", USAGE, r"got unexpected extra argument \(b\) \(see .*\)"),
    Case("session show x --bogus --json", USAGE, r"no such option '--bogus' .*"),
    # seamhost's own usage errors
    Case(
        "session verify", USAGE, r"give one session ID or --all \(see `seamhost session verify .*"
    ),
    Case("run", USAGE, r"give a SCENARIO to run, or --resume ID \(see `seamhost run --help`\)"),
    # configuration: nothing was done
    Case(f"{RUN} --profile nosuch {{quickstart}}", USAGE, r"profile 'nosuch' not found .*", True),
    Case(f"{RUN} {{root}}/bad-scenario.toml", USAGE, r".*toml: turn\[0\]\.step\[0\].*", True),
    Case("session ls --profile {root}/bad-key.toml", USAGE, r".*: plugins\.tools\.nope: .*"),
    Case(
        "session ls --profile {root}/not-installed.toml --json",
        USAGE,
        r".*: plugins\.not-there: plugin 'not-there' is not installed; .*",
    ),
    # an id that names no session: a usage error
    Case("session show nope", USAGE, MISSING, True),
    Case("session show nope --json", USAGE, MISSING),
    Case("session repair nope", USAGE, MISSING),
    Case("run --resume nope", USAGE, MISSING, True),
    Case("approve nope approval-1", USAGE, MISSING),
    # a corrupted session: 3 from every command that reads it
    Case("session show bad", CORRUPT, CORRUPTED, True),
    Case("session show bad --json", CORRUPT, CORRUPTED),
    Case("session verify bad", CORRUPT, r"corrupted session\(s\): bad", True),
    Case("session verify --all", CORRUPT, r"corrupted session\(s\): bad"),
    Case("session repair bad", CORRUPT, CORRUPTED),
    Case("run --resume bad", CORRUPT, CORRUPTED, True),
    Case("approve bad approval-1", CORRUPT, CORRUPTED),
    Case("reject bad approval-1", CORRUPT, CORRUPTED),
    # a run that did not end well
    Case(
        f"{RUN} --check {{root}}/mismatch.toml",
        FAILURE,
        r"session \S+: expectation not met: call-1-1-1 \(read_file\): expected ok, got "
        r"TOOL_ERROR; see `seamhost session show \S+`",
        True,
    ),
    Case(f"{RUN} --check --json {{root}}/mismatch.toml", FAILURE, r".*expectation not met.*", True),
    Case(
        f"{PARKING} --session parked {{root}}/release.toml",
        ExitCode.AWAITS_APPROVAL,
        r"session parked awaits approval (\S+): answer it with `seamhost approve parked \1` or "
        r"`seamhost reject parked \1`, then continue with `seamhost run --resume parked "
        r"\[SCENARIO\]`",
        True,
    ),
    Case(f"{PARKING} --json {{root}}/release.toml", ExitCode.AWAITS_APPROVAL, r".*awaits.*", True),
]


def ends_as(case: Case, status: int, stdout: str, stderr: str) -> None:
    """`case`'s command ended with its code, one line on stderr, and its JSON object if asked."""
    assert status == case.code, f"exit {status}\n{stdout}\n{stderr}"
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("seamhost: error: "), lines[0]
    message = lines[0].removeprefix("seamhost: error: ")
    assert re.fullmatch(case.line, message), message
    if "--json" in shlex.split(case.command):
        error = json.loads(stdout.splitlines()[-1])["error"]
        assert (error["code"], error["exit_code"]) == (case.code.name.lower(), case.code)
        assert error["message"] == message
    else:
        assert '{"error"' not in stdout


@pytest.mark.parametrize("case", CASES, ids=[c.command for c in CASES])
def test_each_documented_failure_ends_with_its_code_and_one_line(rig: Rig, case: Case) -> None:
    if case.process:
        done = run_cli(*rig.args(case.command), env=rig.env)
        ends_as(case, done.returncode, done.stdout, done.stderr)
    else:
        env = {**dict.fromkeys(k for k in os.environ if k.startswith("SEAMHOST_")), **rig.env}
        result = CliRunner().invoke(main, rig.args(case.command), env=env)
        assert isinstance(result.exception, SystemExit), result.exc_info  # not a crash
        ends_as(case, result.exit_code, result.stdout, result.stderr)


def test_every_exit_code_but_ok_has_a_case() -> None:
    covered = {c.code for c in CASES} | {ExitCode.OK, ExitCode.INTERRUPTED}  # 130: below
    assert covered == set(ExitCode)


def failure_json(stdout: str) -> dict[str, object]:
    error: dict[str, object] = json.loads(stdout.splitlines()[-1])["error"]
    return error


def test_json_failures_carry_the_error_type_and_its_fields(rig: Rig) -> None:
    result = CliRunner().invoke(main, ["session", "show", "bad", "--json"], env=rig.env)
    error = failure_json(result.stdout)
    assert error["type"] == "SessionCorrupted"
    details = error["details"]
    assert isinstance(details, dict)
    assert details["session_id"] == "bad"
    assert details["path"].endswith(".jsonl.zst")
    assert isinstance(details["offset"], int)
    click_error = failure_json(CliRunner().invoke(main, ["run", "--bogus", "--json"]).stdout)
    assert (click_error["type"], click_error["code"]) == ("NoSuchOption", "usage")


def test_check_json_lists_each_mismatch(rig: Rig) -> None:
    command = f"{RUN} --check --json --session checked {{root}}/mismatch.toml"
    done = run_cli(*rig.args(command), env=rig.env)
    assert done.returncode == ExitCode.FAILURE
    *envelopes, last = done.stdout.splitlines()
    assert all("seq" in json.loads(line) for line in envelopes)  # the events come first
    details = json.loads(last)["error"]["details"]
    assert details == {
        "session_id": "checked",
        "mismatches": [
            {"call_id": "call-1-1-1", "tool": "read_file", "expected": "ok", "got": "TOOL_ERROR"}
        ],
    }


def test_a_parked_run_names_its_approval_in_json(rig: Rig) -> None:
    done = run_cli(*rig.args(f"{PARKING} --json --session json {{root}}/release.toml"), env=rig.env)
    assert done.returncode == ExitCode.AWAITS_APPROVAL
    details = failure_json(done.stdout)["details"]
    assert isinstance(details, dict)
    assert details.keys() == {"session_id", "approval_id"}
    assert details["session_id"] == "json"
    assert f"awaits approval {details['approval_id']}:" in done.stderr


def test_ctrl_c_ends_a_run_with_130_and_one_line(rig: Rig) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")} | rig.env
    command = f"{RUN} --profile {{root}}/unconfined.toml --session ctrl-c {{root}}/sleep.toml"
    with subprocess.Popen(
        [sys.executable, "-m", "seamhost", *rig.args(command)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as child:
        assert child.stdout is not None
        assert child.stderr is not None
        seen = ""
        while "dispatched call-1-1-1" not in seen:  # interrupt the command, not the start-up
            line = child.stdout.readline()
            assert line, "the run ended before the shell command started"
            seen += line
        # The line is printed when the dispatch is committed, before its checkpoint is durable
        # and the body starts: wait for the sleep itself, so that the interrupt stops a body.
        assert wait_for_descendant(child.pid, ["sleep", "30"]), "the shell command never started"
        started = time.monotonic()
        child.send_signal(signal.SIGINT)
        stdout, stderr = seen + child.stdout.read(), child.stderr.read()
        child.wait(timeout=60)
    assert time.monotonic() - started < 20  # the sleep was stopped, not waited for
    interrupted = Case(
        command,
        ExitCode.INTERRUPTED,
        r"interrupted: session ctrl-c stopped; continue it with "
        r"`seamhost run --resume ctrl-c \[SCENARIO\]`",
    )
    ends_as(interrupted, child.returncode, stdout, stderr)
    # The shell writes: stopped after dispatch, what it did is unknown (design.md §10).
    assert "TOOL_OUTCOME_UNKNOWN" in stdout


def test_version_json_names_the_kernel_and_each_plugin() -> None:
    from seamhost.kernel.plugins import discover
    from seamhost.version import __version__

    result = CliRunner().invoke(main, ["--version", "--json"])
    assert result.exit_code == ExitCode.OK, result.output
    shown = json.loads(result.stdout)
    assert shown["seamhost"] == __version__
    expected = [
        {"name": name, "version": p.version, "distribution": p.distribution}
        for name, p in sorted(discover().plugins.items())
    ]
    assert shown["plugins"] == expected
    assert "seamhost-tools" in {p["distribution"] for p in expected}
    assert CliRunner().invoke(main, ["--json", "--version"]).stdout == result.stdout


def test_a_bare_group_shows_its_help_and_exits_2() -> None:
    result = CliRunner().invoke(main, ["session"])
    assert result.exit_code == ExitCode.USAGE
    assert "Commands:" in result.stderr
