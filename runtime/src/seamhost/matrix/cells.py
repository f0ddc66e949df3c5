"""One cell of the matrix: a scenario run under a profile in a fresh session and store.

:func:`run_cell` is the one way a cell runs (the CLI, its worker processes and the pytest items
all call it), through the embedding API: a host (:func:`seamhost.embed.open_host`) on the
cell's profile whose workspace and persistence-jsonl store are in the cell's directory, whatever
store the profile names (``store=Path``, :mod:`seamhost.embed.profiles`). Nothing is asked at the
terminal: standard input is ``/dev/null`` while a cell runs, so approvals are answered by the
profile's rules, or end unavailable, as in CI.

A cell that crashes (anything but Ctrl-C raised while it runs) is a failed cell with its error,
never a lost matrix.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.embed.host import open_host
from seamhost.embed.reports import CallReport
from seamhost.errors import ConfigError, describe
from seamhost.matrix.expect import expectations_of, unmet

if TYPE_CHECKING:
    from seamhost.embed.reports import RunReport
    from seamhost.kernel.bundle import Bundle
    from seamhost.kernel.profile.resolve import Profile
    from seamhost.llm.replay import Script

ERROR = "error"  # the outcome of a cell that crashed


@attrs.frozen
class CellResult:
    """What a cell came to; `unmet` and `error` empty means it passed."""

    profile: str  # the profile's name
    scenario: str  # the scenario's name (its file name without the extension)
    outcome: str  # completed | parked | failed | interrupted (the run's), or error (it crashed)
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
    `store_dir`, and hold it to the scenario's expectations.

    The cell is a host of the embedding API (:func:`seamhost.embed.open_host`) with a store of
    its own: the matrix runs scenarios the way an application embedding seamhost would.
    """
    started = time.perf_counter()
    name = scenario.stem
    try:
        script, report = _drive(profile, scenario, store_dir)
    except Exception as exc:  # a crashed cell is a failed cell; Ctrl-C stops the matrix
        return CellResult(
            profile.name,
            name,
            ERROR,
            getattr(exc, "session_id", None),
            error=describe(exc),
            seconds=time.perf_counter() - started,
        )
    problems = unmet(expectations_of(script, profile.name), report.outcome, report.calls)
    seconds = time.perf_counter() - started
    return CellResult(
        profile.name,
        name,
        report.outcome,
        report.session_id,
        report.calls,
        tuple(problems),
        None,
        seconds,
    )


def _drive(profile: Profile, scenario: Path, store_dir: Path) -> tuple[Script, RunReport]:
    workspace = store_dir / "workspace"
    # The store is where SEAMHOST_HOME=`store_dir`/home puts one, so `session show` finds it.
    store = store_dir / "home" / "sessions"
    with open_host(profile, workspace=workspace, store=store, keep_workspace=True) as host:
        script = replay(host.bundle, scenario)  # what the cell is held to; the run seeds its files
        with _headless():
            return script, host.run(scenario=scenario)


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


__all__ = ["ERROR", "CellResult", "replay", "run_cell"]
