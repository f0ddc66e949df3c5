"""A bad tool-policy table through the real CLI: exit code 2, one line naming what to fix."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from seamhost.cli.exitcodes import ExitCode
from tests.tool_policy.conftest import PolicyLab

SEAMHOST = Path(sys.executable).with_name("seamhost")
RULE_0 = "plugins.tool-policy.rules[0]"


def check(lab: PolicyLab, profile: Path) -> subprocess.CompletedProcess[str]:
    """``seamhost profile check PROFILE`` in a child process that sees the test's plugins."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(lab.site.root), env.get("PYTHONPATH")]))
    return subprocess.run(
        [str(SEAMHOST), "profile", "check", str(profile)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_a_valid_policy_checks(lab: PolicyLab) -> None:
    profile = lab.profile(
        "good.toml",
        """
        [plugins.tool-policy]
        default = "ask"
        rules = [{ tool = "shell", command = "git push*", decision = "ask", reason = "r" }]
        floor = [{ path = "**/.env", location = "inside-workspace", reason = "secrets" }]
        """,
    )
    done = check(lab, profile)
    assert done.returncode == ExitCode.OK, done.stderr


@pytest.mark.parametrize(
    ("table", "key", "problem"),
    [
        (
            'rules = [{ decision = "allow" }, { command = "rm [abc", decision = "deny" }]',
            "plugins.tool-policy.rules[1].command",
            "is never closed",
        ),
        (
            'floor = [{ path = "src\\\\", reason = "x" }]',
            "plugins.tool-policy.floor[0].path",
            "lone backslash",
        ),
        (
            'rules = [{ args = { branch = "main\\\\" }, decision = "ask" }]',
            "plugins.tool-policy.rules[0].args.branch",
            "lone backslash",
        ),
    ],
)
def test_a_malformed_glob_fails_the_check_naming_the_rule(
    lab: PolicyLab, table: str, key: str, problem: str
) -> None:
    profile = lab.profile("bad.toml", f"[plugins.tool-policy]\n{table}\n")
    done = check(lab, profile)
    assert done.returncode == ExitCode.USAGE
    assert 'plugin "tool-policy" failed to load (factory)' in done.stderr
    assert f"{profile}: {key}" in done.stderr
    assert problem in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ('rules = [{ command = "x", decision = "bad" }]', "plugins.tool-policy.rules[0].decision"),
        ('rules = [{ command = "x" }]', "plugins.tool-policy.rules[0]"),
        ('rules = [{ decision = "ask", when = "x" }]', "plugins.tool-policy.rules[0]"),
        ('floor = [{ command = "x" }]', "plugins.tool-policy.floor[0]"),
        ('floor = [{ decision = "deny", reason = "x" }]', "plugins.tool-policy.floor[0]"),
        ('rules = [{ args = { command = "x" }, decision = "ask" }]', RULE_0 + ".args"),
        ('rules = [{ location = "nearby", decision = "ask" }]', RULE_0 + ".location"),
        ('default = "never"', "plugins.tool-policy.default"),
        ("floor = { reason = 'x' }", "plugins.tool-policy.floor"),
    ],
)
def test_a_malformed_table_fails_the_check_naming_file_and_key(
    lab: PolicyLab, table: str, key: str
) -> None:
    profile = lab.profile("bad.toml", f"[plugins.tool-policy]\n{table}\n")
    done = check(lab, profile)
    assert done.returncode == ExitCode.USAGE, done.stderr
    # The kernel renders list indexes from fastjsonschema as ".0" today, "[0]" once its key
    # paths read them as indexes: both name the same key.
    assert f"{profile}: {key}" in re.sub(r"\.(\d+)(?=[.:])", r"[\1]", done.stderr)
    assert "Traceback" not in done.stderr
