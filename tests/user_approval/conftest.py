"""Fixtures for user-approval: real pseudo-terminals, and the real CLI run at one.

A :class:`Terminal` is a pseudo-terminal the test holds the master side of: whatever is written
to the slave (a prompt) is collected, and the test types keys into it. :func:`run_at_terminal`
runs ``seamhost`` in a child process whose controlling terminal is such a slave (through
``on_terminal.py``), so the ``tty`` answerer opens ``/dev/tty`` exactly as it does for a person.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import orjson
import pytest
from seamhost_user_approval import UserApproval
from seamhost_user_approval.prompt import KEYS, QUESTION

from seamhost.jsonvalue import FrozenDict
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.llm.adapter import ToolCallProposal
from seamhost.run.pipeline import ToolPipeline
from seamhost.run.sessions import bind_session, create_session
from seamhost.session.events import TurnStart
from seamhost.session.live import Session
from seamhost.session.store import SessionWriter
from seamhost.testing.approval import fallback_answerer
from seamhost.testing.sites import PluginSite
from seamhost.tool.result import ToolResult

ROOT = Path(__file__).resolve().parents[2]
ON_TERMINAL = Path(__file__).with_name("on_terminal.py")
# The prompt's whole last line: once its final space is out, the answerer reads keys.
ASKED = f"{QUESTION} {KEYS} ".encode()
WAIT = 60.0  # seconds a test waits for a prompt or an exit before it fails


class Terminal:
    """A pseudo-terminal: the slave for the program under test, the master for the test."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        self.path = os.ttyname(self.slave)
        self._output = bytearray()
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: every slave descriptor is closed
                chunk = b""
            with self._changed:
                if not chunk:
                    self._changed.notify_all()
                    return
                self._output += chunk
                self._changed.notify_all()

    @property
    def output(self) -> str:
        with self._changed:
            return self._output.decode("utf-8", "replace")

    def questions(self) -> int:
        """How many times the approval question was written to the terminal so far."""
        with self._changed:
            return self._output.count(ASKED)

    def wait_for_question(self, count: int, timeout: float = WAIT) -> bool:
        """Wait until the question has been asked `count` times in all."""
        with self._changed:
            return self._changed.wait_for(lambda: self._output.count(ASKED) >= count, timeout)

    def output_after(self, text: str, timeout: float = WAIT) -> str:
        """The output once `text` has been written (the reader runs behind the writer)."""
        wanted = text.encode()
        with self._changed:
            self._changed.wait_for(lambda: wanted in self._output, timeout)
            return self._output.decode("utf-8", "replace")

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    @contextlib.contextmanager
    def answering(self, keys: bytes | None) -> Iterator[None]:
        """Type `keys` as soon as the next question appears (``None``: type nothing)."""
        target = self.questions() + 1
        stop = threading.Event()

        def typist() -> None:
            with self._changed:
                asked = self._changed.wait_for(
                    lambda: stop.is_set() or self._output.count(ASKED) >= target, WAIT
                )
            if asked and not stop.is_set() and keys is not None:
                self.type(keys)

        thread = threading.Thread(target=typist, daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            with self._changed:
                self._changed.notify_all()
            thread.join()

    def close(self) -> None:
        os.close(self.slave)
        self._reader.join(timeout=WAIT)
        os.close(self.master)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal()
    yield term
    term.close()


def cli_environment(home: Path) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    environ["SEAMHOST_HOME"] = str(home)
    return environ


@attrs.frozen
class Finished:
    """A CLI run at a terminal: its exit status and everything it wrote to the terminal."""

    returncode: int
    output: str


def run_at_terminal(args: list[str], *, home: Path, answers: list[bytes], cwd: Path) -> Finished:
    """Run ``seamhost ARGS`` at a fresh terminal; type ``answers[n]`` at the n-th question."""
    term = Terminal()
    try:
        child = subprocess.Popen(
            [sys.executable, str(ON_TERMINAL), sys.executable, "-m", "seamhost", *args],
            stdin=term.slave,
            stdout=term.slave,
            stderr=term.slave,
            start_new_session=True,
            env=cli_environment(home),
            cwd=cwd,
        )
        try:
            for count, keys in enumerate(answers, start=1):
                assert term.wait_for_question(count), term.output
                term.type(keys)
            returncode = child.wait(timeout=WAIT)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    finally:
        term.close()
    return Finished(returncode, term.output)


def run_headless(args: list[str], *, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``seamhost ARGS`` with no terminal at all: a new session, input from /dev/null."""
    return subprocess.run(
        [sys.executable, "-m", "seamhost", *args],
        check=False,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        env=cli_environment(home),
        cwd=cwd,
        timeout=WAIT,
    )


# --------------------------------------------------------------------------------------------
# bundles with user-approval, a probe tool that is always asked about, and a later answerer
# --------------------------------------------------------------------------------------------

PROBE_PLUGIN = """
from seamhost import ApprovalOutcome, Decision, PluginDescriptor, ToolOutput, ToolSpec, hookimpl

SCHEMA = {"type": "object", "additionalProperties": True}


class Probe:
    def __init__(self, ctx):
        self.runs = []

    async def body(self, ctx):
        self.runs.append((ctx.call_id, str(ctx.sandbox_mode)))
        return ToolOutput("probed")

    @hookimpl
    def tools_register(self, register):
        register(ToolSpec("probe", "records its runs", SCHEMA, {}, "read-only",
                          False, self.body))

    @hookimpl
    def tools_pre_execute(self, call):
        return Decision.ask("every probe call is asked about")


descriptor = PluginDescriptor(name="ua-probe", factory=Probe)
"""


@attrs.frozen
class Bench:
    """A bundle with user-approval, and a session to run probe calls in."""

    bundle: Bundle
    session: Session
    workspace: Path

    @property
    def plugin(self) -> UserApproval:
        plugin = self.bundle.pm.get_plugin("user-approval")
        assert isinstance(plugin, UserApproval)
        return plugin

    @property
    def runs(self) -> list[tuple[str, str]]:
        probe: Any = self.bundle.pm.get_plugin("ua-probe")
        return list(probe.runs)

    @property
    def fallback_asked(self) -> list[str]:
        fallback: Any = self.bundle.pm.get_plugin("ua-fallback")
        return list(fallback.asked)

    def records(self, type_: str) -> list[FrozenDict]:
        return [r.data for r in self.session.records if r.type == type_]

    def run(self, *proposals: ToolCallProposal, step: int = 1) -> list[ToolResult]:
        service = self.bundle.seams.approval_service()
        assert service is not None
        pipeline = ToolPipeline(self.bundle, self.session, self.workspace, service)
        return asyncio.run(pipeline.run_step(1, step, list(proposals), asyncio.Event()))


def probe(
    call_id: str = "c1",
    escalation: tuple[str | None, str | None] = (None, None),
    **arguments: Any,
) -> ToolCallProposal:
    """A call of the probe tool with `arguments`, and an escalation request when given."""
    return ToolCallProposal(call_id, "probe", orjson.dumps(arguments).decode(), *escalation)


BenchMaker = Callable[..., Bench]


@pytest.fixture
def make_bench(plugin_site: PluginSite, tmp_path: Path) -> Iterator[BenchMaker]:
    """``make_bench("answerers = [...]", fallback=False)``: a bench with that user-approval table.

    The table text goes under ``[plugins.user-approval]``; `session` may wrap the session's
    writer (``session=lambda writer: ...``).
    """
    plugin_site.add("ua-probe", PROBE_PLUGIN)
    plugin_site.add("ua-fallback", fallback_answerer("ua-fallback"))
    sessions: list[Session] = []

    def make(
        table: str = "",
        *,
        fallback: bool = False,
        writer: Callable[[SessionWriter], SessionWriter] | None = None,
    ) -> Bench:
        text = '[profile]\nname = "ua"\n[plugins.ua-probe]\n'
        text += "[plugins.user-approval]\n" + textwrap.dedent(table) + "\n"
        text += "[plugins.ua-fallback]\n" if fallback else ""
        text += '[sandbox]\nmode = "workspace-write"\n'
        path = plugin_site.profile(f"ua-{len(sessions)}.toml", text)
        bundle = build_bundle(resolve_profile(str(path)))
        session = create_session(bundle, session_id=f"ua-{len(sessions)}")
        if writer is not None:
            session = bind_session(bundle, writer(session.writer))
        sessions.append(session)
        session.append(TurnStart(turn=1))
        workspace = tmp_path / "workspace"
        workspace.mkdir(exist_ok=True)
        return Bench(bundle, session, workspace)

    yield make
    for session in sessions:
        session.close()
