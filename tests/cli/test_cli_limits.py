"""``[limits]`` in profiles and ``--limit KEY=VALUE`` on the command line, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run_cli

ROOT = Path(__file__).parent.parent.parent
QUICKSTART = str(ROOT / "examples" / "quickstart.toml")


def run(tmp_path: Path, *args: str) -> tuple[int, list[dict[str, Any]], str]:
    env = {"SEAMHOST_HOME": str(tmp_path / "home")}
    done = run_cli("run", "--json", "--workspace", str(tmp_path / "ws"), *args, env=env)
    records = [json.loads(line) for line in done.stdout.splitlines() if '"seq"' in line]
    return done.returncode, records, done.stderr


def test_a_limit_from_the_command_line_overrides_the_profile(tmp_path: Path) -> None:
    code, records, _ = run(tmp_path, "--limit", "max_steps=1", QUICKSTART)
    assert code == 1
    [end] = [r["data"] for r in records if r["type"] == "turn/end"]
    assert end["reason"] == "error"
    assert "step limit (1)" in str(end["message"])


def test_the_tool_call_budget_ends_the_turn_with_budget_exceeded(tmp_path: Path) -> None:
    code, records, _ = run(tmp_path, "--limit", "max_tool_calls=1", QUICKSTART)
    assert code == 1
    codes = [
        (r["data"].get("error") or {}).get("code") for r in records if r["type"] == "tool/result"
    ]
    assert codes[0] is None
    assert codes[1] == "BUDGET_EXCEEDED"
    assert len([r for r in records if r["type"] == "tool/dispatch"]) == 1
    [end] = [r["data"] for r in records if r["type"] == "turn/end"]
    assert str(end["message"]).startswith("BUDGET_EXCEEDED")


def test_bad_limits_are_one_line_usage_errors(tmp_path: Path) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text('[profile]\nextends = ["default"]\n[limits]\nmax_steps = 0\n')
    for args, needle in (
        (["--limit", "max_stepz=1", QUICKSTART], "limits.max_stepz: unknown key"),
        (["--limit", "max_steps", QUICKSTART], "expected KEY=VALUE"),
        (["--limit", "tool_timeout_s=soon", QUICKSTART], "'soon' is not a number"),
        (["--profile", str(profile), QUICKSTART], f"{profile}: limits.max_steps: expected at"),
    ):
        code, _, stderr = run(tmp_path, *args)
        assert code == 2, stderr
        lines = [line for line in stderr.splitlines() if line.startswith("seamhost: error:")]
        assert len(lines) == 1, stderr
        assert needle in lines[0], stderr
