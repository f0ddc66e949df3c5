"""Probing backends: once per process, by really running a confined command.

A backend first says what it can tell without running anything (:class:`Inspection`: found or
not, version or ABI, how fully it enforces each mode). Then :func:`probe` runs a confined
``sh`` in ``workspace-write`` that writes one file inside a throwaway workspace and one next
to it: the backend is available only when the command ran, the first write landed and the
second did not reach the host. A backend that runs commands without confining them is
therefore reported unusable, never used.

Reports are cached for the life of the process, keyed by what identifies the backend's
installation (the bubblewrap executable, the Landlock ABI and the interpreter running the
launcher); the first confined call of a process pays for the probe, the others do not.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import attrs

from seamhost import ConfineRequest, SandboxMode
from seamhost_sandbox_local.report import BackendReport, ModeEnforcement

if TYPE_CHECKING:
    from seamhost import ConfinedCommand

PROBE_TIMEOUT_SECONDS = 10.0
NOT_CONFINING = "a write outside the workspace was not refused: the backend does not confine"
# Writes one file in the workspace and one beside it; the exit status ignores the second,
# which the host checks instead (a private /tmp may absorb it without an error). The subshell
# keeps a failed redirection from ending the script (it would, on a special built-in).
_PROBE_SCRIPT = ': > "$1" && { (: > "$2") 2> /dev/null; exit 0; }'


@attrs.frozen
class Inspection:
    """What a backend can tell about itself without running a command.

    A non-empty `problem` means it cannot work here; `modes` and `notes` are as in
    :class:`~seamhost_sandbox_local.report.BackendReport`.
    """

    detail: str
    problem: str = ""
    modes: tuple[ModeEnforcement, ...] = ()
    notes: tuple[str, ...] = ()


class Backend(Protocol):
    """A way of confining a command (bubblewrap, Landlock)."""

    @property
    def name(self) -> str:
        """The name profiles use in ``backends``."""

    @property
    def key(self) -> tuple[str, ...]:
        """What identifies this installation of the backend, for the probe cache."""

    def inspect(self) -> Inspection:
        """What can be told without running a confined command."""

    def command(self, request: ConfineRequest, *, network: bool) -> ConfinedCommand:
        """The confined form of `request` (call only once the backend probed available)."""


_reports: dict[tuple[str, ...], BackendReport] = {}
_lock = threading.Lock()


def cached_report(backend: Backend) -> BackendReport | None:
    """The report of an earlier probe of `backend` in this process, if any."""
    return _reports.get(backend.key)


def report_of(backend: Backend) -> BackendReport:
    """The report on `backend`, probing it first when this process has not yet done so."""
    with _lock:
        report = _reports.get(backend.key)
        if report is None:
            report = _reports[backend.key] = probe(backend)
        return report


def probe(backend: Backend) -> BackendReport:
    """Inspect `backend` and, when nothing rules it out, run the confined trial command."""
    found = backend.inspect()
    problem = found.problem or trial(backend)
    return BackendReport(
        name=backend.name,
        available=not problem,
        detail=found.detail,
        reason=problem,
        modes=found.modes,
        notes=found.notes,
    )


def trial(backend: Backend) -> str:
    """Why a confined command does not work or is not confined; empty when it is."""
    with tempfile.TemporaryDirectory(prefix="seamhost-sandbox-probe-") as scratch:
        root = Path(scratch)
        workspace = root / "workspace"
        workspace.mkdir()
        inside, outside = workspace / "inside", root / "outside"
        request = ConfineRequest(
            ("sh", "-c", _PROBE_SCRIPT, "sh", str(inside), str(outside)),
            SandboxMode.WORKSPACE_WRITE,
            workspace,
            env=dict(os.environ),
        )
        confined = backend.command(request, network=False)
        try:
            done = subprocess.run(
                confined.argv,
                env=dict(confined.env),
                cwd=workspace,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=PROBE_TIMEOUT_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"a confined command did not finish within {PROBE_TIMEOUT_SECONDS:g} s"
        except OSError as exc:
            return f"a confined command could not be started: {exc.strerror or exc}"
        if done.returncode != 0:
            said = done.stderr.decode(errors="replace").strip().splitlines()
            why = said[-1] if said else "nothing on stderr"
            return f"a confined command failed (exit {done.returncode}): {why}"
        if not inside.exists():
            return "a write inside the workspace did not reach it"
        if outside.exists():
            return NOT_CONFINING
    return ""
