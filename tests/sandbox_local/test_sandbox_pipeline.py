"""The acceptance runs, through the real pipeline: shell calls of a scripted agent session.

One test run covers the three machines the issue names: bubblewrap installed, bubblewrap absent
(Landlock only: ``backends = ["landlock"]``, or a ``bwrap_path`` that does not exist), and both
disabled (``backends = []``, or no sandbox-local in the profile at all), where every confined
call must end ``SANDBOX_UNAVAILABLE`` with no body started: no ``tool/dispatch`` record, and no
marker file from the command.
"""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path
from typing import Any

import attrs
import pytest

from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session
from tests.sandbox_local.conftest import working

SCENARIO = """\
[[turn]]
user = "Try the shell."
final = "Done."

[[turn.step]]
[[turn.step.call]]
id = "echo"
tool = "shell"
args = {{ command = "echo hello" }}

[[turn.step]]
[[turn.step.call]]
id = "inside"
tool = "shell"
args = {{ command = "printf marker > marker.txt" }}

[[turn.step]]
[[turn.step.call]]
id = "outside"
tool = "shell"
args = {{ argv = ["sh", "-c", "printf escaped > \\"$1\\"", "sh", "{outside}"] }}
"""


@attrs.frozen
class Run:
    """What a session did: each call's outcome and meta, and which calls were dispatched."""

    outcomes: dict[str, str]
    meta: dict[str, dict[str, Any]]
    dispatched: tuple[str, ...]
    workspace: Path
    outside: Path


def run_session(root: Path, plugins: str, mode: str = "workspace-write") -> Run:
    root.mkdir(parents=True)
    workspace, outside = root / "workspace", root / "outside" / "escaped.txt"
    workspace.mkdir()
    outside.parent.mkdir()
    (root / "scenario.toml").write_text(SCENARIO.format(outside=outside))
    profile = root / "profile.toml"
    profile.write_text(
        '[profile]\nname = "sandbox-test"\n'
        '[plugins.tools]\n[plugins.model-scripted]\nscenario = "scenario.toml"\n'
        + textwrap.dedent(plugins)
        + f'\n[sandbox]\nmode = "{mode}"\n'
    )
    bundle = build_bundle(resolve_profile(str(profile)))
    session = create_session(bundle, cwd=str(workspace))
    outcome = asyncio.run(Agent(bundle, session, workspace=workspace).run_turn("go"))
    assert outcome.reason == "completed", outcome
    outcomes: dict[str, str] = {}
    meta: dict[str, dict[str, Any]] = {}
    dispatched = []
    for record in session.records:
        data = json.loads(json.dumps(record.data, default=dict))
        if record.type == "tool/dispatch":
            dispatched.append(data["call_id"])
        if record.type == "tool/result":
            error = data.get("error")
            outcomes[data["call_id"]] = error["code"] if error else "ok"
            meta[data["call_id"]] = data.get("meta") or {}
    return Run(outcomes, meta, tuple(dispatched), workspace, outside)


def assert_confined(run: Run, backend: str, enforcement: str) -> None:
    assert run.outcomes == {"echo": "ok", "inside": "ok", "outside": "SANDBOX_DENIED"}
    assert (run.workspace / "marker.txt").read_text() == "marker"
    assert not run.outside.exists()
    for call in ("echo", "inside", "outside"):
        assert run.meta[call]["backend"] == backend
        assert run.meta[call]["enforcement"] == enforcement


def assert_nothing_ran(run: Run) -> None:
    assert run.outcomes == dict.fromkeys(("echo", "inside", "outside"), "SANDBOX_UNAVAILABLE")
    assert run.dispatched == ()
    assert not (run.workspace / "marker.txt").exists()
    assert not run.outside.exists()


def test_bubblewrap_installed(scratch: Path, tmp_path: Path) -> None:
    working("bwrap")
    run = run_session(scratch / tmp_path.name, "[plugins.sandbox-local]\n")
    assert_confined(run, "bwrap", "full")


def test_bubblewrap_absent_landlock_only(scratch: Path, tmp_path: Path) -> None:
    working("landlock")
    run = run_session(scratch / tmp_path.name, '[plugins.sandbox-local]\nbackends = ["landlock"]\n')
    assert_confined(run, "landlock", "partial")


def test_a_missing_bwrap_falls_back_to_landlock(scratch: Path, tmp_path: Path) -> None:
    working("landlock")
    missing = scratch / tmp_path.name / "no-such-bwrap"
    run = run_session(
        scratch / tmp_path.name, f'[plugins.sandbox-local]\nbwrap_path = "{missing}"\n'
    )
    assert_confined(run, "landlock", "partial")


def test_read_only_refuses_even_the_workspace(scratch: Path, tmp_path: Path) -> None:
    working("bwrap")
    run = run_session(scratch / tmp_path.name, "[plugins.sandbox-local]\n", mode="read-only")
    assert run.outcomes == {"echo": "ok", "inside": "SANDBOX_DENIED", "outside": "SANDBOX_DENIED"}
    assert not (run.workspace / "marker.txt").exists()
    assert not run.outside.exists()


@pytest.mark.parametrize(
    "plugins",
    [
        pytest.param("[plugins.sandbox-local]\nbackends = []\n", id="no-backend-enabled"),
        pytest.param(
            '[plugins.sandbox-local]\nbackends = ["bwrap"]\nbwrap_path = "/nonexistent/bwrap"\n',
            id="bwrap-only-and-absent",
        ),
        pytest.param("", id="no-sandbox-plugin"),
    ],
)
@pytest.mark.parametrize("mode", ["read-only", "workspace-write"])
def test_both_disabled_nothing_runs(scratch: Path, tmp_path: Path, plugins: str, mode: str) -> None:
    assert_nothing_ran(run_session(scratch / tmp_path.name, plugins, mode=mode))


def test_full_access_runs_unconfined_and_says_so(scratch: Path, tmp_path: Path) -> None:
    run = run_session(
        scratch / tmp_path.name,
        "[plugins.sandbox-local]\nbackends = []\n",
        mode="danger-full-access",
    )
    assert run.outcomes == dict.fromkeys(("echo", "inside", "outside"), "ok")
    assert run.outside.read_text() == "escaped"
    assert {m["backend"] for m in run.meta.values()} == {"none"}
    assert {m["enforcement"] for m in run.meta.values()} == {"none"}
