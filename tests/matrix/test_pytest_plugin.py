"""``pytest --seamhost-matrix``: one item per cell, in a separate pytest run as a user's CI would
start it, so that ``--junitxml``, ``-k`` and ``-x`` are pytest's own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.matrix.kit import SCENARIOS, SCHEMA, TEAM, places


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "scenarios").mkdir(parents=True)
    (root / "profiles").mkdir()
    shutil.copy(TEAM, root / "profiles")
    for name in ("broken", "read", "write"):
        shutil.copy(SCENARIOS / f"{name}.toml", root / "scenarios")
    (root / "pyproject.toml").write_text(
        '[tool.seamhost.matrix]\nprofiles = ["strict", "profiles/team.toml"]\n'
        'scenarios = ["scenarios/*.toml"]\n'
    )
    return root


def pytest_run(tmp_path: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SEAMHOST_", "PYTEST_"))}
    env.update(places(tmp_path))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--seamhost-matrix", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def cases(junit: Path) -> dict[str, ET.Element]:
    document = junit.read_bytes()
    assert SCHEMA.problems(document) == []
    return {
        f"{c.get('classname')}::{c.get('name')}": c
        for c in ET.fromstring(document).iter("testcase")
    }


def test_one_item_per_cell_with_junitxml(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = pytest_run(tmp_path, root, "--junitxml", "out.xml", "-q")
    assert result.returncode == 1, result.stdout + result.stderr
    found = cases(root / "out.xml")
    assert sorted(found) == [
        f"{p}::{s}" for p in ("strict", "team") for s in ("broken", "read", "write")
    ]
    bad = [cell for cell, case in found.items() if case.find("failure") is not None]
    assert bad == ["strict::broken"]
    message = found["strict::broken"].find("failure").get("message", "")  # type: ignore[union-attr]
    assert "notes (write_file): expected ok, got DENIED_BY_GUARD (session " in message
    assert "the failed cells' stores are in" in result.stdout
    shutil.rmtree(tmp_path / "tmp")


def test_k_selects_and_x_stops_and_the_command_line_chooses(tmp_path: Path) -> None:
    root = project(tmp_path)
    chosen = pytest_run(tmp_path, root, "-k", "team", "-q")
    assert chosen.returncode == 0, chosen.stdout
    assert "3 passed, 3 deselected" in chosen.stdout
    stopped = pytest_run(tmp_path, root, "-x", "-q")  # strict::broken is the first cell
    assert stopped.returncode == 1
    assert "1 failed" in stopped.stdout
    assert "passed" not in stopped.stdout
    listed = pytest_run(
        tmp_path, root, "--collect-only", "-q",
        "--seamhost-profile", "default", "--seamhost-scenario", "scenarios/read.toml",
    )  # fmt: skip
    assert listed.returncode == 0, listed.stdout
    assert listed.stdout.splitlines()[0] == "default::read"
    shutil.rmtree(tmp_path / "tmp", ignore_errors=True)


def test_a_bad_profile_stops_the_run_before_any_test(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = pytest_run(tmp_path, root, "--seamhost-profile", "nope")
    assert result.returncode == 4  # pytest's usage error
    assert "seamhost matrix: profile 'nope' not found" in result.stderr


def test_the_cells_spread_over_xdist_workers(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = pytest_run(tmp_path, root, "-n", "2", "-v", "--junitxml", "out.xml")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "[gw0]" in result.stdout  # both workers ran cells
    assert "[gw1]" in result.stdout
    found = cases(root / "out.xml")
    assert len(found) == 6
    bad = [cell for cell, case in found.items() if case.find("failure") is not None]
    assert bad == ["strict::broken"]
    shutil.rmtree(tmp_path / "tmp", ignore_errors=True)
