"""bubblewrap and ``ConfineRequest.readable_paths``: what its private /tmp hides, yet is read.

The contract (``seamhost.testing.sandbox``) checks that a named path under /tmp is readable and
never written; here, what only bubblewrap's private /tmp makes true: a path under /tmp that is
not named stays hidden, a readable path holding the workspace keeps the workspace writable
(parents are bound before children), and paths outside /tmp or under a root get no bind.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from seamhost_sandbox_local.bubblewrap import Bubblewrap

from seamhost import ConfineRequest, SandboxMode
from seamhost.sandbox.runner import RunResult, SandboxRunner
from seamhost.testing.sandbox import SandboxProvider
from tests.sandbox_local.conftest import make_plugin, working

WW = SandboxMode.WORKSPACE_WRITE


@pytest.fixture
def under_tmp() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="seamhost-readable-") as named:
        yield Path(named)


def run_bwrap(
    workspace: Path, script: str, readable: tuple[Path, ...], mode: SandboxMode = WW
) -> RunResult:
    working("bwrap")
    seams = SandboxProvider("bwrap", make_plugin(backends=["bwrap"])).seams()
    runner = SandboxRunner(seams.confine, mode, workspace, readable_paths=readable)
    return asyncio.run(runner.run(("sh", "-c", script), timeout=30, cwd=workspace))


def test_a_path_under_tmp_not_named_stays_hidden(scratch: Path, under_tmp: Path) -> None:
    (under_tmp / "named").mkdir()
    (under_tmp / "named" / "file").write_text("seen\n")
    (under_tmp / "other").write_text("secret\n")
    workspace = Path(tempfile.mkdtemp(dir=scratch))
    script = f"cat {under_tmp}/named/file; cat {under_tmp}/other || echo hidden"
    result = run_bwrap(workspace, script, (under_tmp / "named",))
    assert result.stdout == b"seen\nhidden\n", result.stderr


def test_a_readable_path_holding_the_workspace_keeps_it_writable(under_tmp: Path) -> None:
    """The clone under /tmp case: the venv (and the whole clone) readable, the workspace in it."""
    workspace = under_tmp / "clone" / "ws"
    workspace.mkdir(parents=True)
    venv = under_tmp / "clone" / ".venv"
    venv.mkdir()
    (venv / "lib.py").write_text("original\n")
    script = f"echo written > out.txt && cat {venv}/lib.py && echo changed > {venv}/lib.py"
    result = run_bwrap(workspace, script, (under_tmp / "clone", venv))
    assert result.stdout == b"original\n", result.stderr
    assert result.returncode != 0
    assert (workspace / "out.txt").read_text() == "written\n"
    assert (venv / "lib.py").read_text() == "original\n"


def test_only_existing_paths_under_tmp_and_outside_every_root_are_bound(under_tmp: Path) -> None:
    workspace = under_tmp / "ws"
    (workspace / "inner").mkdir(parents=True)
    (under_tmp / "venv").mkdir()
    readable = (
        under_tmp / "venv",
        under_tmp / "venv",  # named twice, bound once
        workspace / "inner",  # under the workspace: already visible (and writable)
        under_tmp / "missing",
        Path("/usr"),  # outside /tmp: already visible, read-only
    )
    request = ConfineRequest(("true",), WW, workspace, readable_paths=readable)
    options = Bubblewrap.options(request, network=False)
    after_tmpfs = options[options.index("--tmpfs") + 2 :]
    venv = str(under_tmp / "venv")
    # One order, parents before children (then by name), for roots and readable paths alike.
    assert after_tmpfs == ["--ro-bind", venv, venv, "--bind", str(workspace), str(workspace)]
