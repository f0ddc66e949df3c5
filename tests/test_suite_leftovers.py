"""The suite-wide check of tests/conftest.py: a test that leaves a file in the temporary
directory (a run's workspace, above all) fails the run, naming it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).parent / "conftest.py"


def pytest_run(tmp_path: Path, body: str, *options: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text(CONFTEST.read_text())
    (tmp_path / "test_one.py").write_text(body)
    env = {k: v for k, v in os.environ.items() if k not in ("TMPDIR", "PYTEST_DEBUG_TEMPROOT")}
    env["PYTEST_DEBUG_TEMPROOT"] = str(tmp_path)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options, str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


# The default run uses pytest-xdist (noxfile.py): there the workers share the controller's
# directory and the controller checks it once they are done.
@pytest.mark.parametrize("options", [(), ("-n", "2")], ids=["one process", "xdist"])
def test_a_workspace_left_behind_fails_the_run(tmp_path: Path, options: tuple[str, ...]) -> None:
    result = pytest_run(
        tmp_path,
        "import tempfile\n"
        "def test_leaves_one():\n"
        "    tempfile.mkdtemp(prefix='seamhost-workspace-')\n"
        "def test_leaves_nothing():\n"
        "    pass\n",
        *options,
    )
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, result.stdout
    assert "the test suite left 1 file(s) in the temporary directory: ['seamhost-workspace-" in (
        result.stdout
    )


def test_a_suite_that_cleans_up_passes(tmp_path: Path) -> None:
    result = pytest_run(
        tmp_path,
        "import shutil, tempfile\n"
        "def test_cleans_up():\n"
        "    shutil.rmtree(tempfile.mkdtemp(prefix='seamhost-workspace-'))\n",
    )
    assert result.returncode == 0, result.stdout
