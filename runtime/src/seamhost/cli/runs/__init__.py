"""``seamhost runs ls|show``: the runs of a run queue (docs/design.md §14).

``submit`` (:mod:`~seamhost.cli.runs.submit`) queues runs, ``worker``
(:mod:`~seamhost.cli.runs.worker`) drives them; all reach the queue as
:mod:`~seamhost.cli.runs.queue` says.
"""

from __future__ import annotations

import click

from seamhost.cli.lazy_group import Lazy, LazyGroup

_COMMANDS = {
    "ls": Lazy(
        "seamhost.cli.runs.listing:list_runs",
        "List the runs, oldest first, with their state, worker and progress.",
    ),
    "show": Lazy(
        "seamhost.cli.runs.show:show_run",
        "Show one run, REF its number or (a unique prefix of) its session id: its times, each "
        "claim (who, when, how it ended) and each takeover of its session (who, when, epoch).",
    ),
}


@click.group(cls=LazyGroup, lazy=_COMMANDS)
def runs() -> None:
    """The runs of a run queue: what is queued, running and done."""
