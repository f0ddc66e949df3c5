"""The run queue the ``submit``, ``runs`` and ``worker`` commands reach (docs/design.md §14).

It is the queue of the profile's session store (``store.runs``, :mod:`seamhost.run.queue`); a
store without one is a configuration error (exit 2).
"""

from __future__ import annotations

from typing import Any

import click

from seamhost.cli.session_store import open_store
from seamhost.run.queue import Run, RunQueue, run_queue

PROFILE_HELP = "The profile whose session store keeps the run queue (e.g. postgres)."

queue_profile_option = click.option(
    "--profile", "profile_ref", default="default", show_default=True, help=PROFILE_HELP
)


def open_queue(profile_ref: str) -> RunQueue:
    """The run queue of the session store of profile `profile_ref`."""
    return run_queue(open_store(None, profile_ref), profile_ref)


def run_json(run: Run) -> dict[str, Any]:
    def when(value: Any) -> str | None:
        return value.isoformat() if value is not None else None

    return {
        "id": run.id,
        "session_id": run.session_id,
        "state": run.state,
        "source": run.scenario_name if run.scenario is not None else "prompt",
        "claims": run.claims,
        "worker": run.worker,
        "progress": run.progress,
        "outcome": run.outcome,
        "submitted": when(run.submitted),
        "started": when(run.started),
        "finished": when(run.finished),
        "workspace": run.workspace,
    }
