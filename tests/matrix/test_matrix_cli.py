"""``seamhost matrix`` through the real CLI: cells, expectations, JUnit, exit codes, workers.

The shipped profiles default and strict and a user's profile named by its path (data/profiles)
run the scenarios of data/scenarios, one of which (broken.toml) expects under strict what strict
refuses.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from seamhost.cli.exitcodes import ExitCode
from tests.matrix.kit import SCENARIOS, TEAM, failed, junit_cases, matrix


def test_three_profiles_by_four_scenarios_fail_exactly_the_broken_cell(tmp_path: Path) -> None:
    junit = tmp_path / "out.xml"
    result = matrix(
        tmp_path, "-p", "default", "-p", "strict", "-p", str(TEAM),
        "-s", str(SCENARIOS / "*.toml"), "--junit", str(junit),
    )  # fmt: skip
    assert result.returncode == ExitCode.FAILURE, result.stderr
    cases = junit_cases(junit)
    assert len(cases) == 12
    assert {c.split("::")[0] for c in cases} == {"default", "strict", "team"}
    assert {c.split("::")[1] for c in cases} == {"broken", "escape", "read", "write"}
    bad = failed(cases)
    assert list(bad) == ["strict::broken"]
    message = bad["strict::broken"].get("message", "")
    assert "notes (write_file): expected ok, got DENIED_BY_GUARD" in message
    assert "(session " in message
    assert bad["strict::broken"].tag == "failure"
    # The table names every cell; the error line the failed one, and where its store was kept.
    assert result.stdout.count("│ pass ") == 11
    assert result.stdout.count("│ FAIL ") == 1
    assert "1 of 12 cells failed: strict::broken" in result.stderr
    kept = next(line for line in result.stderr.splitlines() if line.startswith("store of"))
    assert Path(kept.split(": ", 1)[1]).is_dir()


def user_matrix(tmp_path: Path, *, broken: bool) -> Path:
    """A user's directory: two profiles (a shipped one and their own), three scenarios."""
    project = tmp_path / "project"
    (project / "scenarios").mkdir(parents=True)
    (project / "profiles").mkdir()
    shutil.copy(TEAM, project / "profiles" / "team.toml")
    names = ["read", "write", "broken" if broken else "escape"]
    for name in names:
        shutil.copy(SCENARIOS / f"{name}.toml", project / "scenarios")
    return project


def test_acceptance_two_profiles_by_three_scenarios_one_broken(tmp_path: Path) -> None:
    project = user_matrix(tmp_path, broken=True)
    result = matrix(
        tmp_path, "-p", "strict", "-p", "profiles/team.toml", "-s", "scenarios",
        "--junit", "out.xml", "-j", "2", cwd=project,
    )  # fmt: skip
    assert result.returncode == ExitCode.FAILURE, result.stderr
    cases = junit_cases(project / "out.xml")
    assert sorted(cases) == [
        "strict::broken", "strict::read", "strict::write",
        "team::broken", "team::read", "team::write",
    ]  # fmt: skip
    bad = failed(cases)
    assert list(bad) == ["strict::broken"]
    assert "expected ok, got DENIED_BY_GUARD" in bad["strict::broken"].get("message", "")


def test_acceptance_the_same_matrix_without_the_broken_scenario_passes(tmp_path: Path) -> None:
    project = user_matrix(tmp_path, broken=False)
    result = matrix(
        tmp_path, "-p", "strict", "-p", "profiles/team.toml", "-s", "scenarios/*.toml",
        "--junit", "out.xml", "--json", cwd=project,
    )  # fmt: skip
    assert result.returncode == ExitCode.OK, result.stderr
    cases = junit_cases(project / "out.xml")
    assert len(cases) == 6
    assert failed(cases) == {}
    summary = json.loads(result.stdout)
    assert summary["outcome"] == "passed"
    assert summary["exit_code"] == 0
    cells = {f"{c['profile']}::{c['scenario']}": c for c in summary["cells"]}
    assert cells["strict::write"]["calls"][0]["decision"] == "deny"
    assert cells["strict::write"]["calls"][0]["ran"] is False
    assert cells["team::write"]["calls"][0] == {
        "call_id": "report", "tool": "write_file", "turn": 1, "decision": "allow",
        "approval": None, "code": "ok", "ran": True,
    }  # fmt: skip
    assert cells["strict::escape"]["denied"] == 2
    # Every cell passed: the work directory with the cells' stores is gone.
    assert list((tmp_path / "tmp").iterdir()) == []


def test_workers_give_the_results_one_process_gives(tmp_path: Path) -> None:
    args = ("-p", "default", "-p", "strict", "-s", str(SCENARIOS / "*.toml"), "--json")
    alone = json.loads(matrix(tmp_path, *args).stdout)
    shared = json.loads(matrix(tmp_path, *args, "-j", "3").stdout)

    def verdicts(summary: dict[str, object]) -> list[tuple[str, ...]]:
        cells = summary["cells"]
        assert isinstance(cells, list)
        return [(c["profile"], c["scenario"], c["outcome"], str(c["ok"])) for c in cells]

    assert verdicts(alone) == verdicts(shared)
    assert len(verdicts(alone)) == 8


def test_a_cell_that_crashes_is_a_failed_cell_and_the_others_run(tmp_path: Path) -> None:
    # The store's key file is checked when the first session is created, not when the bundle
    # is built: every cell of this profile crashes as it starts, after the plan was checked.
    profile = tmp_path / "keyed.toml"
    profile.write_text(
        '[profile]\nname = "keyed"\nextends = ["default"]\n'
        '[plugins.persistence-jsonl]\nmac_key_file = "missing.key"\n'
    )
    junit = tmp_path / "out.xml"
    result = matrix(
        tmp_path, "-p", str(profile), "-p", "strict",
        "-s", str(SCENARIOS / "read.toml"), "--junit", str(junit),
    )  # fmt: skip
    assert result.returncode == ExitCode.FAILURE, result.stderr
    cases = junit_cases(junit)
    assert sorted(cases) == ["keyed::read", "strict::read"]
    bad = failed(cases)
    assert list(bad) == ["keyed::read"]
    assert bad["keyed::read"].tag == "error"
    assert "mac_key_file" in bad["keyed::read"].get("message", "")
