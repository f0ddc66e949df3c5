"""Fixtures for tools-a2a: a real A2A agent (the SDK's own server, in a child process, on
127.0.0.1) mounted through real profiles and bundles, called through a scripted session."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest

HERE = Path(__file__).parent
AGENT = [sys.executable, str(HERE / "agent_server.py")]
TOKEN = "open-sesame"
READY_S = 60.0  # how long the agent may take to listen (it imports the SDK first)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@attrs.define
class RemoteAgent:
    """The test agent's child process; `start` (again) after it died or to change its card."""

    root: Path
    port: int = attrs.field(factory=free_port)
    child: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.root / "agent.log"

    def start(self, card: str = "") -> None:
        self.stop()
        (self.root / "agent-state").mkdir(exist_ok=True)
        with self.log.open("ab") as log:
            self.child = subprocess.Popen(
                [*AGENT, str(self.port), str(self.root / "agent-state")],
                env={**os.environ, "AGENT_TOKEN": TOKEN, "AGENT_CARD": card},
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + READY_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.child.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the A2A agent never listened:\n{self.log.read_text()}")
                time.sleep(0.05)

    def working(self) -> bool:
        """Whether a task is working now, as the agent's task store says (it keeps neither the
        message nor who sent it, so tests that use this leave no task working)."""
        try:
            tasks = json.loads((self.root / "agent-state" / "tasks.json").read_text())
        except (OSError, ValueError):  # not written yet, or being rewritten
            return False
        return any(t.get("status", {}).get("state") == "TASK_STATE_WORKING" for t in tasks.values())

    def wait_dead(self) -> int | None:
        return None if self.child is None else self.child.wait(timeout=30)

    def stop(self) -> None:
        if self.child is not None and self.child.poll() is None:
            self.child.kill()
        if self.child is not None:
            self.child.wait()
        self.child = None


@pytest.fixture
def root() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="seamhost-a2a-tests-"))
    (path / "workspace").mkdir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def remote(root: Path) -> Iterator[RemoteAgent]:
    """An agent of the test's own, which it may stop, restart or change."""
    agent = RemoteAgent(root)
    agent.start()
    yield agent
    agent.stop()


@pytest.fixture(scope="module")
def shared() -> Iterator[RemoteAgent]:
    """One agent for a module's tests that leave it as it is (starting one takes seconds)."""
    path = Path(tempfile.mkdtemp(prefix="seamhost-a2a-agent-"))
    agent = RemoteAgent(path)
    agent.start()
    yield agent
    agent.stop()
    shutil.rmtree(path, ignore_errors=True)


def profile(root: Path, agents: str, scenario: str = "", extra: str = "") -> Path:
    """A profile mounting `agents` (TOML under [plugins.tools-a2a]) with a scripted model."""
    text = (
        '[profile]\nname = "a2a-test"\n[plugins.tools-a2a]\n'
        + textwrap.dedent(agents)
        + f'\n[plugins.persistence-jsonl]\nroot = "{root / "sessions"}"\n'
        + extra
    )
    if scenario:
        (root / "scenario.toml").write_text(scenario)
        text += '[plugins.model-scripted]\nscenario = "scenario.toml"\n'
    path = root / "profile.toml"
    path.write_text(text)
    return path


def agent_table(url: str, extra: str = "") -> str:
    return (
        "[plugins.tools-a2a.agents.echo]\n"
        f'url = "{url}"\n'
        'token = { "$env" = "ECHO_TOKEN" }\n' + extra
    )
