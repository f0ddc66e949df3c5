"""Fixtures for tools-mcp: real MCP servers, mounted through real profiles and bundles.

The servers are real processes: ``mcp-server-time`` from PyPI (installed by the ``test``
dependency group), the tests' own SDK server (:mod:`tests.tools_mcp.loopback_server`), a
hand-written protocol breaker (:mod:`tests.tools_mcp.hostile_server`) and, in
:mod:`tests.tools_mcp.test_everything`, ``@modelcontextprotocol/server-everything`` from npm.
Calls go through the real pipeline of a scripted agent session; stdio servers are confined by
sandbox-local (bubblewrap when it works here, else Landlock).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session, open_session
from seamhost.session.live import Session

HERE = Path(__file__).parent
PYTHON = sys.executable
TIME_SERVER = str(Path(sys.executable).with_name("mcp-server-time"))
LOOPBACK = [PYTHON, str(HERE / "loopback_server.py")]
HOSTILE = [PYTHON, str(HERE / "hostile_server.py")]
# Not under /tmp: bubblewrap gives the server a private /tmp, so a write aimed there would fail
# for the wrong reason (out of sight, not refused).
SCRATCH_PARENT = Path("/var/tmp")


@attrs.frozen
class Area:
    """A test's directories: the workspace, a place outside it, the loopback's state, logs."""

    root: Path

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def outside(self) -> Path:
        return self.root / "outside"

    @property
    def state(self) -> Path:
        return self.root / "state"

    def profile(
        self,
        servers: str,
        *,
        scenario: str = "",
        mode: str = "workspace-write",
        name: str = "profile.toml",
        plugins: str = "[plugins.sandbox-local]\n",
    ) -> Path:
        """Write a profile mounting `servers` (TOML under [plugins.tools-mcp]) and return it."""
        text = (
            '[profile]\nname = "mcp-test"\n'
            '[plugins.tools-mcp]\nlog_dir = "logs"\nstartup_timeout_s = 20\n'
            + textwrap.dedent(servers)
            + "\n"
            + plugins
            + f'[plugins.persistence-jsonl]\nroot = "{self.root / "sessions"}"\n'
            + f'[sandbox]\nmode = "{mode}"\n'
        )
        if scenario:
            (self.root / f"{name}.scenario.toml").write_text(textwrap.dedent(scenario))
            text += f'[plugins.model-scripted]\nscenario = "{name}.scenario.toml"\n'
        path = self.root / name
        path.write_text(text)
        return path


@pytest.fixture(scope="session")
def scratch() -> Iterator[Path]:
    parent = SCRATCH_PARENT if SCRATCH_PARENT.is_dir() else None
    root = Path(tempfile.mkdtemp(prefix="seamhost-mcp-tests-", dir=parent))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def area(scratch: Path, request: pytest.FixtureRequest) -> Iterator[Area]:
    root = scratch / request.node.name.replace("/", "_")[:80]
    for sub in ("workspace", "outside", "state"):
        (root / sub).mkdir(parents=True)
    yield Area(root)
    shutil.rmtree(root, ignore_errors=True)


def loopback(area: Area, extra: str = "") -> str:
    """The TOML of a loopback server table named ``loop``."""
    return (
        "[plugins.tools-mcp.servers.loop]\n"
        f"command = {json.dumps(LOOPBACK)}\n"
        f'env = {{ LOOPBACK_STATE = "{area.state}" }}\n' + textwrap.dedent(extra)
    )


@attrs.frozen
class Run:
    """What one turn did: each call's code (``ok`` or the error code), content and value."""

    bundle: Bundle
    session: Session
    codes: dict[str, str]
    contents: dict[str, str]
    values: dict[str, Any]
    dispatched: tuple[str, ...]
    metas: dict[str, dict[str, Any]] = attrs.field(factory=dict)


def records_of(session: Session) -> list[tuple[str, dict[str, Any]]]:
    return [(r.type, json.loads(json.dumps(r.data, default=dict))) for r in session.records]


def run_turn(
    profile: Path | Bundle,
    area: Area,
    *,
    resume: str | None = None,
    during: Callable[[Agent], Any] | None = None,
    **agent: Any,
) -> Run:
    """Build the bundle of `profile` (or take the one given) and run one scripted turn in a new
    (or resumed) session."""
    bundle = profile if isinstance(profile, Bundle) else build_bundle(resolve_profile(str(profile)))
    if resume is None:
        session = create_session(bundle, cwd=str(area.workspace))
    else:
        session, _ = open_session(bundle, resume)
    runner = Agent(bundle, session, workspace=area.workspace, **agent)

    async def turn() -> None:
        work = asyncio.ensure_future(runner.run_turn("go"))
        if during is not None:
            await during(runner)
        outcome = await work
        assert outcome.reason in ("completed", "aborted"), outcome

    try:
        asyncio.run(turn())
    finally:
        session.close()
    codes, contents, values, metas, dispatched = {}, {}, {}, {}, []
    for kind, data in records_of(session):
        if kind == "tool/dispatch":
            dispatched.append(data["call_id"])
        if kind == "tool/result":
            error = data.get("error")
            codes[data["call_id"]] = error["code"] if error else "ok"
            contents[data["call_id"]] = data["content"]
            values[data["call_id"]] = data.get("value")
            metas[data["call_id"]] = data.get("meta") or {}
    return Run(bundle, session, codes, contents, values, tuple(dispatched), metas)


def one_call(tool: str, args: dict[str, Any], call_id: str = "c1") -> str:
    """A scenario of one turn making one call."""
    return (
        '[[turn]]\nuser = "go"\nfinal = "done"\n[[turn.step]]\n[[turn.step.call]]\n'
        f'id = "{call_id}"\ntool = "{tool}"\nargs = {inline(args)}\n'
    )


def inline(args: dict[str, Any]) -> str:
    """`args` as a TOML inline table (strings, numbers and booleans)."""
    return "{ " + ", ".join(f"{key} = {json.dumps(value)}" for key, value in args.items()) + " }"
