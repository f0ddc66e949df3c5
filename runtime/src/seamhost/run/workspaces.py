"""Where a claimed run works: the workspace it was submitted with, or one of the worker's own.

A run's workspace is part of the run (design.md §14), so that whoever owns it next finds the
files the last owner left. ``seamhost submit --workspace DIR`` records DIR with the run, and
every owner works there: a worker on a host where DIR is not a directory refuses the run
(:class:`~seamhost.errors.RunWorkspaceMissing`) and hands it back, so a run spread over many
hosts needs DIR on storage they all mount. A run submitted without one works in
``<state root>/runs/<run id>``, made by whoever claims it first on a host and found there by a
takeover on the same host. The state root is the worker's ``--state-dir``, else
``$SEAMHOST_HOME/worker``, else ``$XDG_STATE_HOME/seamhost/worker`` (``~/.local/state`` when
unset or relative).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from seamhost.errors import RunWorkspaceMissing

if TYPE_CHECKING:
    from seamhost.run.queue import Run


@attrs.frozen
class RunWorkspace:
    """The directory a run works in; `own` when it is the worker's to remove once the run ends."""

    path: Path
    own: bool


def default_state_root(environ: Mapping[str, str] | None = None) -> Path:
    """The worker's state root when `--state-dir` is not given (see the module docstring)."""
    env = os.environ if environ is None else environ
    if env.get("SEAMHOST_HOME"):
        return Path(env["SEAMHOST_HOME"]).expanduser() / "worker"
    state = env.get("XDG_STATE_HOME", "")
    base = Path(state) if state and os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "seamhost" / "worker"


def run_workspace(run: Run, state_root: Path) -> RunWorkspace:
    """The run's workspace on this host, made when it is the worker's own and missing."""
    if run.workspace is not None:
        recorded = Path(run.workspace)
        # Never made here: an absent directory means this host does not see the run's files,
        # and working in an empty stand-in would lose what the run did so far.
        if not recorded.is_dir():
            raise RunWorkspaceMissing(run.id, run.workspace)
        return RunWorkspace(recorded, own=False)
    path = state_root / "runs" / str(run.id)
    path.mkdir(parents=True, exist_ok=True)
    return RunWorkspace(path, own=True)


__all__ = ["RunWorkspace", "default_state_root", "run_workspace"]
