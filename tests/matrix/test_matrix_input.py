"""Bad input stops a matrix before any cell runs (exit 2, naming the file and the key); the
defaults of ``[tool.seamhost.matrix]``; Ctrl-C writes the JUnit of the cells done (exit 130)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from seamhost.cli.exitcodes import ExitCode
from tests.matrix.kit import DATA, SCENARIOS, TEAM, failed, junit_cases, matrix, places

READ = str(SCENARIOS / "read.toml")


def no_cell_ran(tmp_path: Path) -> bool:
    return not any((tmp_path / "tmp").glob("seamhost-matrix-*"))


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["-p", "nope", "-s", READ], "profile 'nope' not found"),
        (["-p", "stri*x", "-s", READ], "--profile: no profile name matches 'stri*x'"),
        (["-p", "missing/profile.toml", "-s", READ], "--profile: no profile file"),
        (["-p", "default", "-s", "nowhere.toml"], "--scenario: no scenario file"),
        (["-p", "default", "-s", "none-*.toml"], "--scenario: no scenario file matches"),
        (["-s", READ], "--profile: no profile to run"),
        (["-p", "default"], "--scenario: no scenario to run"),
        (["-p", "default", "-s", READ, "-j", "0"], "--jobs"),
    ],
    ids=[
        "unknown-profile",
        "profile-glob",
        "profile-path",
        "scenario-path",
        "scenario-glob",
        "no-profile",
        "no-scenario",
        "jobs",
    ],
)
def test_bad_arguments_exit_2_before_any_cell(tmp_path: Path, args: list[str], named: str) -> None:
    result = matrix(tmp_path, *args)
    assert result.returncode == ExitCode.USAGE, result.stderr
    assert named in result.stderr
    assert result.stdout == ""
    assert no_cell_ran(tmp_path)


def test_an_invalid_profile_is_named_with_its_key(tmp_path: Path) -> None:
    profile = tmp_path / "bad.toml"
    profile.write_text(
        '[profile]\nname = "bad"\n[plugins.tools]\nbogus = 1\n[plugins.model-scripted]\n'
    )
    result = matrix(tmp_path, "-p", "default", "-p", str(profile), "-s", READ)
    assert result.returncode == ExitCode.USAGE
    assert str(profile) in result.stderr
    assert "bogus" in result.stderr
    assert no_cell_ran(tmp_path)


def test_a_profile_that_cannot_replay_a_scenario_is_refused(tmp_path: Path) -> None:
    profile = tmp_path / "toolsonly.toml"
    profile.write_text('[profile]\nname = "toolsonly"\n[plugins.tools]\n')
    result = matrix(tmp_path, "-p", str(profile), "-s", READ)
    assert result.returncode == ExitCode.USAGE
    assert f"{profile}: plugins: no plugin replays a scenario" in result.stderr


def test_an_invalid_scenario_is_named_with_its_key_before_any_cell(tmp_path: Path) -> None:
    scenario = tmp_path / "renamed.toml"
    text = (
        (SCENARIOS / "write.toml")
        .read_text()
        .replace(
            'calls = { report = { decision = "allow"', 'calls = { reprot = { decision = "allow"'
        )
    )
    scenario.write_text(text)
    result = matrix(tmp_path, "-p", "default", "-s", READ, "-s", str(scenario))
    assert result.returncode == ExitCode.USAGE
    assert f"{scenario}: expect.calls.reprot: no such call" in result.stderr
    assert no_cell_ran(tmp_path)


def test_two_scenarios_of_one_name_are_refused(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    shutil.copy(SCENARIOS / "read.toml", tmp_path / "other" / "read.toml")
    result = matrix(tmp_path, "-p", "default", "-s", READ, "-s", "other/read.toml")
    assert result.returncode == ExitCode.USAGE
    assert "two scenarios are named 'read'" in result.stderr


def project_with_defaults(tmp_path: Path, table: str) -> Path:
    project = tmp_path / "project"
    (project / "scenarios").mkdir(parents=True)
    (project / "profiles").mkdir()
    shutil.copy(TEAM, project / "profiles")
    for name in ("read", "write", "escape"):
        shutil.copy(SCENARIOS / f"{name}.toml", project / "scenarios")
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "x"\n\n[tool.seamhost.matrix]\n{table}'
    )
    return project


def test_defaults_come_from_the_pyproject_of_the_current_directory(tmp_path: Path) -> None:
    project = project_with_defaults(
        tmp_path,
        'profiles = ["strict", "profiles/*.toml"]\nscenarios = ["scenarios"]\n'
        'junit = "reports/matrix.xml"\njobs = 2\n',
    )
    result = matrix(tmp_path, cwd=project)
    assert result.returncode == ExitCode.OK, result.stderr
    cases = junit_cases(project / "reports" / "matrix.xml")
    assert sorted(cases) == [
        f"{p}::{s}" for p in ("strict", "team") for s in ("escape", "read", "write")
    ]
    # An argument replaces the table's list.
    only = matrix(tmp_path, "-p", "strict", "--junit", "one.xml", cwd=project)
    assert only.returncode == ExitCode.OK, only.stderr
    assert len(junit_cases(project / "one.xml")) == 3


def test_a_bad_pyproject_table_is_named_with_its_key(tmp_path: Path) -> None:
    project = project_with_defaults(tmp_path, 'profiles = ["strict"]\njobs = "many"\n')
    result = matrix(tmp_path, "-s", "scenarios", cwd=project)
    assert result.returncode == ExitCode.USAGE
    assert (
        "pyproject.toml: tool.seamhost.matrix.jobs: expected a number of workers" in result.stderr
    )


def interrupt_matrix(tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Start a matrix whose second cell is slow, Ctrl-C it once that cell has started."""
    junit = tmp_path / "out.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    env.update(places(tmp_path))
    args = ["-p", "minimal", "-s", READ, "-s", str(DATA / "slow.toml"), "--junit", str(junit)]
    child = subprocess.Popen(
        [sys.executable, "-m", "seamhost", "matrix", *args, *extra],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not any((tmp_path / "tmp").glob("seamhost-matrix-*/minimal/slow/workspace")):
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the slow cell never started"
        time.sleep(0.05)
    time.sleep(0.5)  # into the model's wait
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    return subprocess.CompletedProcess(child.args, child.returncode, out, err), junit


def test_ctrl_c_writes_the_junit_of_the_cells_done_and_exits_130(tmp_path: Path) -> None:
    result, junit = interrupt_matrix(tmp_path)
    assert result.returncode == ExitCode.INTERRUPTED, result.stderr
    assert "interrupted: 1 of 2 cells done" in result.stderr
    cases = junit_cases(junit)
    assert list(cases) == ["minimal::read"]
    assert failed(cases) == {}
    shutil.rmtree(tmp_path / "tmp")


def test_ctrl_c_with_workers_writes_the_cells_done_and_leaves_no_worker(tmp_path: Path) -> None:
    result, junit = interrupt_matrix(tmp_path, "-j", "2")
    assert result.returncode == ExitCode.INTERRUPTED, result.stderr
    cases = junit_cases(junit)
    assert "minimal::slow" not in cases  # it was running: it did not finish, so it is not there
    assert set(cases) <= {"minimal::read"}
    assert processes_with(f"TMPDIR={tmp_path / 'tmp'}") == []
    shutil.rmtree(tmp_path / "tmp")


def processes_with(variable: str) -> list[int]:
    """The processes whose environment holds `variable` (this test's own children are marked
    by their TMPDIR): a worker outliving the matrix would be one."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:  # gone, or not ours to read
            continue
        if variable.encode() in environ:
            found.append(int(entry.name))
    return found
