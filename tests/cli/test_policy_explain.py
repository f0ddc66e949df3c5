"""``seamhost policy explain`` and the attacks of issue 12 (2, 3, 5) under the shipped profiles.

Each attack ran without anyone asked on main: the floors matched text, ``git push*`` missed
global options and unknown wrappers, and user-approval's ``*`` crossed ``/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from seamhost.cli import main
from tests.conftest import run_cli


def explain(tool: str, arguments: Any, profile: str = "default") -> dict[str, Any]:
    args = ["policy", "explain", "--profile", profile, "--tool", tool, "--json"]
    result = CliRunner().invoke(main, [*args, "--args", json.dumps(arguments)])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


ROOT_DELETIONS = [
    {"command": "rm -fr /"},
    {"command": "rm -r -f /"},
    {"command": "rm -Rf /"},
    {"command": "rm --recursive --force /"},
    {"argv": ["rm", "-fr", "/"]},
    {"command": "cd / && rm -rf ."},
]


@pytest.mark.parametrize("arguments", ROOT_DELETIONS, ids=json.dumps)
@pytest.mark.parametrize("profile", ["default", "ci", "strict"])
def test_attack_2_every_spelling_of_deleting_root_is_denied(
    arguments: dict[str, Any], profile: str
) -> None:
    report = explain("shell", arguments, profile)
    assert report["decision"] == "deny"
    floor = report["details"]["tool-policy"]["floor"]
    assert floor["kind"] == "floor"
    assert floor["unanalysable"] == ""
    assert floor["reason"] == "deleting the root file system is never allowed"


GIT_PUSHES = [
    "git -C . push",
    "git -c k=v push",
    "git --git-dir=.git push",
    "git --no-pager push",
    "unshare git push",
    "strace -f git push",
    "chrt -f 10 git push",
    "setpriv --reuid=1000 git push",
    "prlimit --nofile=64 git push",
    "fakeroot git push",
    "nsenter -t 1 git push",
    "systemd-run --user git push",
    "doas git push",
    "runuser -u me git push",
    "su -c 'git push'",
    "flock /tmp/l git push",
    "ionice -c 3 git push",
    "taskset 1 git push",
    "stdbuf -o0 git push",
    "watch git push",
    "parallel git push ::: origin",
]


@pytest.mark.parametrize("command", GIT_PUSHES)
def test_attack_3_git_push_asks_through_global_options_and_wrappers(command: str) -> None:
    report = explain("shell", {"command": command})
    assert report["decision"] == "ask", report["reason"]
    rule = report["details"]["tool-policy"]["rule"]
    assert rule["key"] == "rules[0]"
    assert "publishing" in rule["reason"]


def test_an_unanalysable_wrapper_makes_a_floor_deny_saying_so() -> None:
    report = explain("shell", {"command": "unshare --no-such-option rm -rf /tmp/x"})
    assert report["decision"] == "deny"
    floor = report["details"]["tool-policy"]["floor"]
    assert "option --no-such-option is not understood" in floor["unanalysable"]
    assert "cannot be checked against floor[0]" in report["reason"]
    assert "never allowed" not in report["reason"]  # not the floor's own reason


def test_the_shell_analysis_is_shown() -> None:
    report = explain("shell", {"command": "sudo git -C . push --force origin"})
    shell = report["details"]["tool-policy"]["shell"]
    pushes = [c for c in shell["commands"] if c["program"] == "git"]
    assert pushes
    assert pushes[0]["subcommand"] == "push"
    assert "-f" in pushes[0]["flags"]
    votes = {(v["seam"], v["plugin"]): v["vote"] for v in report["votes"]}
    assert votes[("tools/pre-execute", "tool-policy")] == "ask"
    assert votes[("tools/guard", "tool-policy")] == "abstain"


def test_nothing_runs_and_no_session_is_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    target = tmp_path / "touched"
    result = run_cli(
        "policy", "explain", "--tool", "shell", "--args",
        json.dumps({"command": f"touch {target}"}), env={"SEAMHOST_HOME": str(home)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("decision: allow")
    assert not target.exists()
    assert not (home / "sessions").exists() or not any((home / "sessions").iterdir())


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--tool", "shell", "--args", "{nope"], "--args"),
        (["--tool", "shell", "--args", "[1]"], "must be a JSON object"),
        (["--tool", "no_such_tool", "--args", "{}"], "no tool 'no_such_tool'"),
    ],
)
def test_bad_arguments_or_an_unknown_tool_exit_2_in_one_line(args: list[str], problem: str) -> None:
    result = run_cli("policy", "explain", *args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("seamhost: error:")
    assert problem in lines[0]


SCENARIO = """
[scenario]
name = "keys"
[[turn]]
user = "write"
final = "done"
[[turn.step]]
text = "writing"
[[turn.step.call]]
tool = "write_file"
args = { path = "release/notes/internal/keys/prod.md", content = "k", create_dirs = true }
[[turn.step.call]]
tool = "write_file"
args = { path = "release/notes/1.4.md", content = "n", create_dirs = true }
"""


def test_attack_5_a_star_in_an_approval_rule_stays_in_its_directory(tmp_path: Path) -> None:
    scenario = tmp_path / "keys.toml"
    scenario.write_text(SCENARIO)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    # release/ writable, so that the tools' guard (the sandbox's refusal) leaves the question
    # to the approval rules, which this attack is about
    profile = tmp_path / "writable-release.toml"
    profile.write_text('[profile]\nextends = ["ci"]\n[sandbox]\nread_only_paths = []\n')
    result = run_cli(
        "run", "--profile", str(profile), "--workspace", str(workspace), str(scenario), "--json",
        env={"SEAMHOST_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert not (workspace / "release/notes/internal/keys/prod.md").exists(), result.stdout
    records = [json.loads(line) for line in result.stdout.splitlines() if '"seq"' in line]
    decided = [r["data"] for r in records if r["type"] == "approval/decided"]
    # The keys file matches no approval rule: `*` stays in its directory. The draft matches
    # `release/notes/*.md` and is allowed by the rule (the shipped profiles keep release/
    # read-only, and the tools' guard then denies both before anyone is asked: a separate
    # guarantee).
    assert [d["outcome"] for d in decided] == ["unavailable", "allowed-once"], decided
    assert "rules[0] allows it" in decided[1]["message"]
    assert "APPROVAL_UNAVAILABLE" in result.stdout


@pytest.mark.parametrize(
    "operand",
    ["~/../..", "$HOME/../..", "${HOME}/../..", '"$HOME"/../../', "PWD", "~/../../*"],
)
def test_issue_33_the_rm_floor_sees_through_the_shells_expansions(
    operand: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # HOME=/root as the issue reported; the workspace (policy explain's: the current
    # directory) lies deeper here than /a/b, so "$PWD" climbs as many levels as it needs.
    workspace = tmp_path / "ws"
    workspace.mkdir()
    monkeypatch.chdir(workspace)
    monkeypatch.setenv("HOME", "/root")
    if operand == "PWD":
        operand = '"$PWD"' + "/.." * (len(workspace.resolve().parts) - 1)
    report = explain("shell", {"command": f"rm -rf {operand}"})
    assert report["decision"] == "deny", report["reason"]
    assert report["details"]["tool-policy"]["floor"]["reason"] == (
        "deleting the root file system is never allowed"
    )
    commands = report["details"]["tool-policy"]["shell"]["commands"]
    (command,) = [c for c in commands if c["program"] == "rm"]
    assert command["resolved"] == ([["/…"]] if operand.endswith("*") else [["/"]])
