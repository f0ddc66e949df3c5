"""No process a call starts outlives it: the real CLI, under bubblewrap, Landlock and no sandbox.

A shell call leaves two writers behind: a disowned subshell and a process in a session of its
own (``setsid``), each waiting a second before it writes into the workspace. Once ``seamhost
run`` has recorded the call's result and ended, no process mentions the run's token any more,
and two seconds later neither file exists. On main before issue 12 both writers lived on under
Landlock and without a sandbox, and wrote.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path

import pytest

from seamhost.kernel.bundle import make_plugin_manager
from seamhost.kernel.seams import Seams
from seamhost.sandbox.policy import SandboxMode
from seamhost.sandbox.runner import SandboxRunner
from seamhost.testing.sandbox_escapes import processes_mentioning
from tests.conftest import run_cli
from tests.sandbox_local.conftest import working

COMMAND = (
    "(sleep 1; echo late > f-{token}) & disown; "
    "setsid sh -c 'sleep 1; echo late2 > g-{token}' < /dev/null > /dev/null 2>&1 & "
    "echo started"
)
SCENARIO = """\
[[turn]]
user = "Leave something running."
final = "Done."

[[turn.step]]
[[turn.step.call]]
id = "leave"
tool = "shell"
args = {{ command = "{command}" }}
"""
FULL = SandboxMode.DANGER_FULL_ACCESS
BACKENDS = {
    "bwrap": ('[plugins.sandbox-local]\nbackends = ["bwrap"]\n', "workspace-write"),
    "landlock": ('[plugins.sandbox-local]\nbackends = ["landlock"]\n', "workspace-write"),
    "none": ("", "danger-full-access"),
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_background_writers_end_with_the_call(scratch: Path, tmp_path: Path, backend: str) -> None:
    if backend != "none":
        working(backend)
    plugins, mode = BACKENDS[backend]
    token = uuid.uuid4().hex
    root = scratch / tmp_path.name
    workspace = root / "workspace"
    workspace.mkdir(parents=True)
    scenario = root / "scenario.toml"
    scenario.write_text(SCENARIO.format(command=COMMAND.format(token=token)))
    profile = root / "profile.toml"
    profile.write_text(
        f'[plugins.tools]\n[plugins.model-scripted]\n{plugins}\n[sandbox]\nmode = "{mode}"\n'
    )
    done = run_cli(
        "run",
        "--json",
        "--profile",
        str(profile),
        "--workspace",
        str(workspace),
        str(scenario),
        env={"SEAMHOST_HOME": str(root / "home")},
    )
    assert done.returncode == 0, done.stderr
    results = [
        envelope["data"]
        for envelope in map(json.loads, done.stdout.splitlines()[:-1])  # the summary last
        if envelope["type"] == "tool/result"
    ]
    assert [(r["call_id"], r.get("error")) for r in results] == [("leave", None)]
    assert results[0]["value"]["stdout"] == "started\n"
    assert results[0]["meta"]["backend"] == backend
    assert not processes_mentioning(token.encode()), "a writer outlived the recorded result"
    time.sleep(2)
    assert sorted(p.name for p in workspace.iterdir()) == []


def full_access(workspace: Path) -> SandboxRunner:
    return SandboxRunner(Seams(make_plugin_manager()).confine, FULL, workspace)


def test_unconfined_a_program_that_cannot_start_is_a_runner_failure(tmp_path: Path) -> None:
    result = asyncio.run(full_access(tmp_path).run((str(tmp_path / "no-such-program"),)))
    assert (result.returncode, result.verdict) == (127, "runner-failure")
    assert result.stderr.startswith(b"seamhost-reaper: cannot run ")


def test_unconfined_a_death_by_signal_is_reported_as_such(tmp_path: Path) -> None:
    result = asyncio.run(full_access(tmp_path).run(("sh", "-c", "kill -KILL $$")))
    assert (result.returncode, result.verdict) == (-9, "ok")


def test_a_timeout_ends_what_left_the_session_too(tmp_path: Path) -> None:
    token = uuid.uuid4().hex
    script = f"setsid sh -c 'sleep 30; echo {token}' < /dev/null > /dev/null 2>&1 & sleep 30"
    result = asyncio.run(full_access(tmp_path).run(("sh", "-c", script), timeout=0.5))
    assert result.timed_out
    assert not processes_mentioning(token.encode())
