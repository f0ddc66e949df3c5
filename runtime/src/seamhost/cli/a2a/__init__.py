"""``seamhost a2a``: the Agent2Agent protocol (docs/design.md §13, "Serve A2A").

``serve`` (:mod:`seamhost.cli.a2a.serve`), imported only when invoked, offers the profile's
agent to A2A clients: each task a durable, governed session.
"""

from __future__ import annotations

import click

from seamhost.cli.lazy_group import Lazy, LazyGroup

_COMMANDS = {
    "serve": Lazy(
        "seamhost.cli.a2a.serve:serve",
        "Serve the profile's agent over A2A; each task is a governed, durable session.",
    ),
}


@click.group(cls=LazyGroup, lazy=_COMMANDS)
def a2a() -> None:
    """The Agent2Agent protocol: serve the profile's agent to other agents."""
