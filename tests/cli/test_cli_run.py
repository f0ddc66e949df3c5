"""``seamhost run`` end to end: the transcript, the store, the exit codes, --json."""

from __future__ import annotations

import json
from pathlib import Path

from seamhost.cli.exitcodes import ExitCode
from tests.conftest import run_cli

ROOT = Path(__file__).parent.parent.parent
QUICKSTART = str(ROOT / "examples" / "quickstart.toml")


def test_the_main_job_ends_with_the_session_id_and_how_to_show_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = run_cli("run", QUICKSTART, env={"SEAMHOST_HOME": str(home)})
    assert result.returncode == ExitCode.OK, result.stderr
    last, show = result.stdout.strip().splitlines()[-2:]
    session_id = last.split()[1].rstrip(":")
    assert show == f"show it with: seamhost session show {session_id}"
    stored = [p.name for p in (home / "sessions").iterdir() if p.is_dir()]
    assert stored == [session_id]
    for code in ("DENIED_BY_GUARD", "INVALID_ARGUMENTS", "✓ ok write_file"):
        assert code in result.stdout


def test_json_prints_every_committed_envelope(tmp_path: Path) -> None:
    result = run_cli(
        "run",
        "--json",
        "--session",
        "fixed-id",
        QUICKSTART,
        env={"SEAMHOST_HOME": str(tmp_path / "home")},
    )
    assert result.returncode == ExitCode.OK, result.stderr
    *lines, last = result.stdout.splitlines()
    envelopes = [json.loads(line) for line in lines]
    assert json.loads(last) == {
        "outcome": "completed",
        "exit_code": 0,
        "session": "fixed-id",
        "turns": [{"turn": 1, "reason": "completed"}],
        # the scripted model reports no tokens, and no [pricing] prices it: cost unknown
        "usage": {
            "currency": "USD",
            "input_tokens": 0,
            "cached_input_tokens": 0,
            "output_tokens": 0,
            "cost": None,
            "unpriced": ["quickstart"],
            "turns": [
                {
                    "turn": 1,
                    "input_tokens": 0,
                    "cached_input_tokens": 0,
                    "output_tokens": 0,
                    "cost": None,
                }
            ],
        },
    }
    assert [e["seq"] for e in envelopes] == list(range(len(envelopes)))
    assert envelopes[0]["type"] == "turn/start"
    assert envelopes[-1]["type"] == "turn/end"
    assert envelopes[-1]["data"]["reason"] == "completed"
    shown = run_cli(
        "session", "show", "fixed-id", "--json", env={"SEAMHOST_HOME": str(tmp_path / "home")}
    )
    assert shown.stdout.splitlines() == lines


def test_a_bad_scenario_exits_2_naming_file_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[turn]]\nuser = "x"\n[[turn.step]]\n[[turn.step.call]]\ntool = 3\n')
    result = run_cli("run", str(bad), env={"SEAMHOST_HOME": str(tmp_path / "home")})
    assert result.returncode == ExitCode.USAGE
    assert f"{bad}: turn[0].step[0].call[0].tool" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_profile_without_a_model_exits_2(tmp_path: Path) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text("[plugins.tools]\n")
    result = run_cli(
        "run", "--profile", str(profile), QUICKSTART, env={"SEAMHOST_HOME": str(tmp_path / "home")}
    )
    assert result.returncode == ExitCode.USAGE
    assert "llm/replay" in result.stderr


def test_check_reports_an_unmet_expectation(tmp_path: Path) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        '[[turn]]\nuser = "x"\n[[turn.step]]\n[[turn.step.call]]\ntool = "read_file"\n'
        'args = { path = "missing.txt" }\nexpect = { "*" = "ok" }\n'
    )
    result = run_cli("run", "--check", str(scenario), env={"SEAMHOST_HOME": str(tmp_path / "home")})
    assert result.returncode == ExitCode.FAILURE
    assert (
        "expectation not met: call-1-1-1 (read_file): expected ok, got TOOL_ERROR" in result.stderr
    )
