"""One cell of the matrix: a scenario run under a profile in a fresh session and store.

:func:`run_cell` is the one way a cell runs (the CLI, its worker processes and the pytest items
all call it). The cell's directory holds its workspace and, through ``SEAMHOST_HOME``, its
session store (a profile that names its store's root explicitly keeps that root; each cell still
has its own session). Nothing is asked at the terminal: standard input is ``/dev/null`` while a
cell runs, so approvals are answered by the profile's rules, or end unavailable, as in CI.

A cell that crashes (anything but Ctrl-C raised while it runs) is a failed cell with its error,
never a lost matrix.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.errors import ConfigError, SeamUnavailable, describe
from seamhost.kernel.bundle import build_bundle
from seamhost.matrix.expect import expectations_of, unmet
from seamhost.matrix.reports import CallReport, call_reports
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.kernel.profile.resolve import Profile
    from seamhost.llm.replay import Script
    from seamhost.run.turn_outcome import TurnOutcome
    from seamhost.session.record import Record

ERROR = "error"  # the outcome of a cell that crashed


@attrs.frozen
class CellResult:
    """What a cell came to; `unmet` and `error` empty means it passed."""

    profile: str  # the profile's name
    scenario: str  # the scenario's name (its file name without the extension)
    outcome: str  # completed | parked | failed (the session's), or error (the cell crashed)
    session_id: str | None = None
    calls: tuple[CallReport, ...] = ()
    unmet: tuple[str, ...] = ()  # each expectation not met, in words
    error: str | None = None  # why the cell crashed
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None and not self.unmet

    @property
    def denied(self) -> int:
        return sum(call.decision == "deny" for call in self.calls)

    @property
    def asked(self) -> int:
        return sum(call.decision == "ask" for call in self.calls)

    @property
    def reason(self) -> str:
        """Why it failed (empty when it passed), with the session to look at."""
        if self.ok:
            return ""
        why = f"crashed: {self.error}" if self.error is not None else "; ".join(self.unmet)
        return f"{why} (session {self.session_id})" if self.session_id else why

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "scenario": self.scenario,
            "ok": self.ok,
            "outcome": self.outcome,
            "session": self.session_id,
            "calls": [attrs.asdict(call) for call in self.calls],
            "denied": self.denied,
            "asked": self.asked,
            "unmet": list(self.unmet),
            "error": self.error,
            "seconds": round(self.seconds, 4),
        }


def run_cell(profile: Profile, scenario: Path, store_dir: Path) -> CellResult:
    """Run `scenario` under `profile` in a new session whose store and workspace are in
    `store_dir`, and hold it to the scenario's expectations."""
    started = time.perf_counter()
    name = scenario.stem
    ran = _Ran()
    try:
        _drive(profile, scenario, store_dir, ran)
    except Exception as exc:  # a crashed cell is a failed cell; Ctrl-C stops the matrix
        return CellResult(
            profile.name,
            name,
            ERROR,
            ran.session_id,
            error=describe(exc),
            seconds=time.perf_counter() - started,
        )
    assert ran.script is not None
    calls = call_reports(ran.records)
    outcome = session_outcome(ran.turns)
    problems = unmet(expectations_of(ran.script, profile.name), outcome, calls)
    seconds = time.perf_counter() - started
    return CellResult(
        profile.name, name, outcome, ran.session_id, calls, tuple(problems), None, seconds
    )


@attrs.define
class _Ran:
    """What a cell's run left, as far as it got."""

    session_id: str | None = None
    script: Script | None = None
    turns: list[TurnOutcome] = attrs.field(factory=list)
    records: tuple[Record, ...] = ()


def _drive(profile: Profile, scenario: Path, store_dir: Path, ran: _Ran) -> None:
    workspace = store_dir / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    environ = {**os.environ, "SEAMHOST_HOME": str(store_dir / "home")}
    bundle = build_bundle(profile, environ=environ, workspace=workspace)
    script = ran.script = replay(bundle, scenario)
    for relative, content in script.workspace.items():
        target = workspace / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    session = create_session(bundle, cwd=str(workspace))
    ran.session_id = session.id
    agent = Agent(bundle, session, workspace=workspace)
    try:
        with _headless():
            asyncio.run(_turns(agent, script, ran.turns))
    finally:
        session.close()
        ran.records = tuple(session.records)


def replay(bundle: Bundle, scenario: Path) -> Script:
    """The script of `scenario`, loaded by the bundle's ``llm/replay`` plugin."""
    if not bundle.seams.has("llm/replay"):
        raise ConfigError(
            str(bundle.profile.path),
            "plugins",
            "no plugin replays a scenario (none provides llm/replay), so this profile cannot run "
            "a matrix; add one that does, such as [plugins.model-scripted]",
        )
    return bundle.seams.llm_replay(scenario.resolve(), 1)


async def _turns(agent: Agent, script: Script, turns: list[TurnOutcome]) -> None:
    for message in script.user_messages:
        turns.append(await agent.run_turn(message))
        if turns[-1].reason in ("suspended", "parked"):
            break
    with contextlib.suppress(SeamUnavailable):  # a memory-only session has nothing to flush
        await agent.session.flush()


@contextlib.contextmanager
def _headless() -> Iterator[None]:
    """Standard input is ``/dev/null`` inside: no answerer asks at a terminal."""
    if not os.isatty(0):
        yield
        return
    saved = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        yield
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(null)


def session_outcome(turns: Sequence[TurnOutcome]) -> str:
    """completed, parked or failed: how `seamhost run --json` would name the session's end."""
    if turns and turns[-1].reason in ("suspended", "parked"):
        return "parked"
    return "completed" if all(t.reason == "completed" for t in turns) else "failed"


__all__ = ["ERROR", "CellResult", "replay", "run_cell"]
