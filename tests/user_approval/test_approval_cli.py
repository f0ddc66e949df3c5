"""End to end through the real CLI: ``seamhost run`` in a child process, at a real terminal or
with none, and the audit pair read back with ``seamhost session show --json``.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import attrs
import pytest

from seamhost.cli.exitcodes import ExitCode
from seamhost.jsonvalue import digest
from tests.user_approval.conftest import ROOT, run_at_terminal, run_headless

APPROVALS = str(ROOT / "examples" / "approvals.toml")
VERSION_ARGS = {"path": "release/VERSION", "content": "1.4.0\n", "create_dirs": True}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


def stored(home: Path, session_id: str) -> list[dict[str, Any]]:
    """The session's records, one envelope per line, as ``session show --json`` prints them."""
    shown = run_headless(["session", "show", session_id, "--json"], home=home, cwd=home.parent)
    assert shown.returncode == ExitCode.OK, shown.stderr
    return [json.loads(line) for line in shown.stdout.splitlines()]


def of(records: list[dict[str, Any]], type_: str, call_id: str | None = None) -> list[Any]:
    return [
        r["data"]
        for r in records
        if r["type"] == type_ and (call_id is None or r["data"].get("call_id") == call_id)
    ]


def outcome_of(records: list[dict[str, Any]], call_id: str) -> str:
    [result] = of(records, "tool/result", call_id)
    return "ok" if not result["is_error"] else result["error"]["code"]


def audit_pair(records: list[dict[str, Any]], call_id: str) -> tuple[Any, Any]:
    """The call's approval/asked and the approval/decided with the same id, asked first."""
    [asked] = of(records, "approval/asked", call_id)
    decided = [r for r in records if r["type"] == "approval/decided"]
    [match] = [r for r in decided if r["data"]["id"] == asked["id"]]
    [asked_seq] = [r["seq"] for r in records if r["data"] is asked]
    assert asked_seq < match["seq"]
    return asked, match["data"]


# The shipped default keeps release/ read-only for every tool ([sandbox] read_only_paths), so an
# approved write there is still refused SANDBOX_DENIED; the approval flows below are about what
# follows an answer, so they run under default with release/ writable.
WRITABLE_RELEASE = (
    '[profile]\nname = "default-writable-release"\nextends = ["default"]\n'
    "[sandbox]\nread_only_paths = []\n"
)


def writable_release(tmp_path: Path) -> str:
    path = tmp_path / "writable-release.toml"
    path.write_text(WRITABLE_RELEASE)
    return str(path)


def scenario(tmp_path: Path, body: str) -> str:
    path = tmp_path / "scenario.toml"
    path.write_text(textwrap.dedent(body))
    return str(path)


# -- the acceptance: one scenario, interactive and headless ---------------------------------------


def test_at_a_terminal_the_person_allows_what_no_rule_covers(
    tmp_path: Path, home: Path, workspace: Path
) -> None:
    profile = writable_release(tmp_path)
    args = ["run", "--profile", profile, "--session", "at-terminal", "--workspace", str(workspace)]
    run = run_at_terminal(
        [*args, APPROVALS],
        home=home,
        answers=[b"y"],
        cwd=workspace,
    )
    assert run.returncode == ExitCode.OK, run.output
    assert run.output.count("allow this call once?") == 1  # the rule answered the draft
    assert '"path": "release/VERSION"' in run.output
    records = stored(home, "at-terminal")
    assert [outcome_of(records, c) for c in ("call-1-1-1", "call-1-2-1")] == ["ok", "ok"]
    _, draft = audit_pair(records, "call-1-1-1")
    assert draft["message"].startswith("allowed-once by user-approval: rules[0] allows it")
    _, bump = audit_pair(records, "call-1-2-1")
    assert bump["message"] == (
        "allowed-once by user-approval: rules: none matches this write_file call; "
        "tty: allowed once at /dev/tty"
    )
    assert (workspace / "release" / "VERSION").read_text() == "1.4.0\n"


@pytest.mark.parametrize("profile", ["default", "ci"])
def test_headless_a_doomed_write_is_never_asked_and_the_rest_is_unavailable(
    home: Path, workspace: Path, profile: str
) -> None:
    run = run_headless(
        [
            "run",
            "--profile",
            profile,
            "--session",
            "headless",
            "--check",
            "--workspace",
            str(workspace),
            APPROVALS,
        ],
        home=home,
        cwd=workspace,
    )
    assert run.returncode == ExitCode.OK, run.stdout + run.stderr
    assert "expectation not met" not in run.stderr
    records = stored(home, "headless")
    # release/ is read-only for every tool: the sandbox would refuse the draft, so the tools
    # plugin's guard denies it before the approvers are asked (no approval/asked for it).
    assert outcome_of(records, "call-1-1-1") == "DENIED_BY_GUARD"
    assert of(records, "approval/asked", "call-1-1-1") == []
    assert outcome_of(records, "call-1-2-1") == "APPROVAL_UNAVAILABLE"
    assert of(records, "tool/dispatch", "call-1-2-1") == [], "the body never started"
    assert not (workspace / "release" / "VERSION").exists()
    _, decided = audit_pair(records, "call-1-2-1")
    assert decided["outcome"] == "unavailable"
    assert "rules: none matches this write_file call" in decided["message"]
    # shown as unavailable, never as a person's cancel
    assert "approval unavailable" in run.stdout
    assert "APPROVAL_UNAVAILABLE" in run.stdout
    assert "cancel" not in run.stdout.lower()


# -- every outcome, through the real CLI ----------------------------------------------------------

BUMP = """
    [[turn]]
    user = "bump the version"
    [[turn.step]]
    [[turn.step.call]]
    tool = "write_file"
    args = { path = "release/VERSION", content = "1.4.0\\n", create_dirs = true }
"""


@attrs.frozen
class Case:
    """One outcome: the keys typed (``None``: no terminal at all), the flags, what follows."""

    answers: list[bytes] | None
    flags: list[str]
    outcome: str
    result: str


CASES = {
    "allowed-once": Case([b"y"], [], "allowed-once", "ok"),
    "rejected": Case([b"n"], [], "rejected", "APPROVAL_REJECTED"),
    "cancelled": Case([b"\x03"], [], "cancelled", "APPROVAL_CANCELLED"),
    "unavailable": Case(None, [], "unavailable", "APPROVAL_UNAVAILABLE"),
    "policy-never": Case([], ["--approval-policy", "never"], "unavailable", "APPROVAL_UNAVAILABLE"),
}


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_each_outcome_is_audited_and_decides_the_call(
    tmp_path: Path, home: Path, workspace: Path, case: Case
) -> None:
    answers, flags, outcome, result = case.answers, case.flags, case.outcome, case.result
    profile = writable_release(tmp_path)
    args = ["run", "--profile", profile, "--session", "one", "--workspace", str(workspace), *flags]
    args.append(scenario(tmp_path, BUMP))
    if answers is None:  # headless: no terminal anywhere
        headless = run_headless(args, home=home, cwd=workspace)
        returncode, output = headless.returncode, headless.stdout + headless.stderr
    else:
        at_terminal = run_at_terminal(args, home=home, answers=answers, cwd=workspace)
        returncode, output = at_terminal.returncode, at_terminal.output
        assert output.count("allow this call once?") == len(answers)
    assert returncode == ExitCode.OK, output
    assert f"approval {outcome}" in output
    records = stored(home, "one")
    asked, decided = audit_pair(records, "call-1-1-1")
    assert asked["id"] == decided["id"]
    assert asked["id"].startswith("approval-call-1-1-1-")
    assert asked["tool"] == "write_file"
    assert asked["args_digest"] == digest(VERSION_ARGS)
    assert "release/" in asked["reason"]
    assert decided["outcome"] == outcome
    assert outcome_of(records, "call-1-1-1") == result
    allowed = outcome == "allowed-once"
    assert len(of(records, "tool/dispatch", "call-1-1-1")) == (1 if allowed else 0)
    assert (workspace / "release" / "VERSION").exists() is allowed
    if flags:
        assert of(records, "approval/policy") == [{"policy": "never", "source": "command line"}]
        assert "approval policy is `never`" in decided["message"]
        assert decided.get("answerer") is None


def test_the_profile_policy_yields_to_the_command_line(
    tmp_path: Path, home: Path, workspace: Path
) -> None:
    never = tmp_path / "never.toml"
    never.write_text(
        '[profile]\nname = "never"\nextends = ["default"]\n'
        '[plugins.user-approval]\npolicy = "never"\n[sandbox]\nread_only_paths = []\n'
    )
    base = ["run", "--profile", str(never), "--workspace", str(workspace)]
    refused = run_headless([*base, "--session", "refused", APPROVALS], home=home, cwd=workspace)
    assert refused.returncode == ExitCode.OK, refused.stderr
    records = stored(home, "refused")
    assert [outcome_of(records, c) for c in ("call-1-1-1", "call-1-2-1")] == [
        "APPROVAL_UNAVAILABLE",
        "APPROVAL_UNAVAILABLE",
    ]
    asked = run_headless(
        [*base, "--session", "asked", "--approval-policy", "ask", APPROVALS],
        home=home,
        cwd=workspace,
    )
    assert asked.returncode == ExitCode.OK, asked.stderr
    records = stored(home, "asked")
    assert [outcome_of(records, c) for c in ("call-1-1-1", "call-1-2-1")] == [
        "ok",
        "APPROVAL_UNAVAILABLE",
    ]


# -- sandbox escalation ---------------------------------------------------------------------------

ESCALATIONS = """
    [[turn]]
    user = "tidy the notes"
    [[turn.step]]
    [[turn.step.call]]
    id = "same-mode"
    tool = "write_file"
    args = { path = "notes.md", content = "a\\n" }
    sandbox_permissions = "workspace-write"
    justification = "asks for what it has"
    [[turn.step]]
    [[turn.step.call]]
    id = "wide"
    tool = "write_file"
    args = { path = "notes.md", content = "b\\n" }
    sandbox_permissions = "danger-full-access"
    justification = "rewrites the notes outside the workspace rules"
    [[turn.step]]
    [[turn.step.call]]
    id = "plain"
    tool = "write_file"
    args = { path = "notes.md", content = "c\\n" }
"""


def test_an_escalation_is_validated_shown_approved_and_granted_for_one_call(
    tmp_path: Path, home: Path, workspace: Path
) -> None:
    run = run_at_terminal(
        ["run", "--session", "esc", "--workspace", str(workspace), scenario(tmp_path, ESCALATIONS)],
        home=home,
        answers=[b"y"],
        cwd=workspace,
    )
    assert run.returncode == ExitCode.OK, run.output
    assert run.output.count("allow this call once?") == 1
    assert "escalation  danger-full-access for this call only" in run.output
    assert "because     rewrites the notes outside the workspace rules" in run.output
    records = stored(home, "esc")
    assert outcome_of(records, "same-mode") == "ESCALATION_INVALID"
    assert of(records, "approval/asked", "same-mode") == [], "nothing is asked for it"
    asked, decided = audit_pair(records, "wide")
    assert asked["escalation"] == "danger-full-access"
    assert decided["outcome"] == "allowed-once"
    assert [d["sandbox_mode"] for d in of(records, "tool/dispatch", "wide")] == [
        "danger-full-access"
    ]
    assert of(records, "approval/asked", "plain") == []
    assert [d["sandbox_mode"] for d in of(records, "tool/dispatch", "plain")] == ["workspace-write"]
    assert (workspace / "notes.md").read_text() == "c\n"
