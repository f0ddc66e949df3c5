"""What each backend promises beyond the contract: privileges, network, /tmp, parent death.

Each test runs real confined processes, through the plugin, with each backend that works here.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from seamhost_sandbox_local.plugin import SandboxLocal

from seamhost.sandbox.confinement import ConfinedCommand, ConfineRequest
from seamhost.sandbox.policy import SandboxMode
from seamhost.testing.sandbox_escapes import INTERPRETER, processes_mentioning
from tests.sandbox_local.conftest import make_plugin, working

RO, WW = SandboxMode.READ_ONLY, SandboxMode.WORKSPACE_WRITE
BACKENDS = ["bwrap", "landlock"]


def confine(plugin: SandboxLocal, request: ConfineRequest) -> ConfinedCommand:
    return asyncio.run(plugin.sandbox_confine(request))


def run(
    confined: ConfinedCommand, cwd: Path, timeout: float = 30
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        confined.argv,
        env=dict(confined.env),
        cwd=cwd,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    working(name)
    return name


@pytest.fixture
def workspace(scratch: Path, tmp_path: Path) -> Path:
    path = scratch / tmp_path.name / "workspace"
    path.mkdir(parents=True)
    return path


@pytest.mark.parametrize("mode", [RO, WW], ids=str)
def test_no_privilege_is_left(backend: str, workspace: Path, mode: SandboxMode) -> None:
    request = ConfineRequest(("cat", "/proc/self/status"), mode, workspace, env=dict(os.environ))
    done = run(confine(make_plugin(backends=[backend]), request), workspace)
    fields = dict(
        line.split(":\t", 1) for line in done.stdout.decode().splitlines() if ":\t" in line
    )
    assert fields["NoNewPrivs"].strip() == "1"
    for capabilities in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(fields[capabilities], 16) == 0, capabilities


def test_a_private_tmp_or_none_writable(backend: str, workspace: Path) -> None:
    target = Path("/tmp") / f"seamhost-sandbox-{os.getpid()}-{backend}"
    request = ConfineRequest(
        ("sh", "-c", 'printf x > "$1"', "sh", str(target)), RO, workspace, env=dict(os.environ)
    )
    done = run(confine(make_plugin(backends=[backend]), request), workspace)
    assert not target.exists()
    if backend == "bwrap":  # the write lands in the sandbox's own /tmp, gone with it
        assert done.returncode == 0, done.stderr
    else:  # Landlock has no private /tmp: the host's is read-only like everything else
        assert b"Permission denied" in done.stderr


@pytest.mark.parametrize(
    ("configured", "requested", "reachable"),
    [(False, False, False), (False, True, False), (True, False, False), (True, True, True)],
)
def test_network_needs_both_the_plugin_and_the_request(
    backend: str, workspace: Path, configured: bool, requested: bool, reachable: bool
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        script = (
            "import socket, sys\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=5).close()\n"
            "except OSError as exc:\n"
            "    sys.exit(f'unreachable: {exc}')\n"
        )
        request = ConfineRequest(
            (INTERPRETER, "-I", "-c", script),
            WW,
            workspace,
            network=requested,
            env=dict(os.environ),
        )
        plugin = make_plugin(backends=[backend], network=configured)
        done = run(confine(plugin, request), workspace)
    assert (done.returncode == 0) is reachable, done.stderr


def test_signals_do_not_reach_the_host(backend: str, workspace: Path) -> None:
    report = working(backend)
    if backend == "landlock" and any("signal" in note for note in report.notes):
        pytest.skip("this kernel's Landlock ABI does not scope signals")
    with subprocess.Popen(["sleep", "30"]) as victim:
        try:
            request = ConfineRequest(
                ("kill", "-TERM", str(victim.pid)), WW, workspace, env=dict(os.environ)
            )
            done = run(confine(make_plugin(backends=[backend]), request), workspace)
            assert done.returncode != 0
            assert victim.poll() is None
        finally:
            victim.kill()


def test_the_command_dies_with_the_process_that_started_it(backend: str, workspace: Path) -> None:
    """The process that started the confined command is SIGKILLed: the command must not survive.

    The kill waits until the command runs: before that, the backend is still setting itself up
    (bubblewrap and the launcher both arm the parent-death signal in their first milliseconds).
    """
    token = str(workspace / "orphan-token")
    ready = workspace / "ready"
    script = "import pathlib, time; pathlib.Path('ready').touch(); time.sleep(60)"
    request = ConfineRequest(
        (INTERPRETER, "-I", "-c", script, token), WW, workspace, env=dict(os.environ)
    )
    confined = confine(make_plugin(backends=[backend]), request)
    parent = textwrap.dedent(
        f"""
        import subprocess, time
        subprocess.Popen({list(confined.argv)!r}, cwd={str(workspace)!r})
        time.sleep(60)
        """
    )
    with subprocess.Popen([sys.executable, "-c", parent], env=dict(confined.env)) as starter:
        assert wait_until(ready.exists, 10), "the command never started"
        assert mentioning(token)
        starter.send_signal(signal.SIGKILL)
    assert wait_until(lambda: not mentioning(token), 10), "the command outlived its parent"


def mentioning(token: str) -> list[int]:
    return processes_mentioning(token.encode())


def wait_until(condition: Callable[[], object], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return bool(condition())
