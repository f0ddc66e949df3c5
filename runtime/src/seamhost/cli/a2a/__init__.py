"""``seamhost a2a``: the Agent2Agent protocol (docs/design.md §13, "Serve A2A").

Each subcommand lives in its own module, imported only when invoked: ``serve``
(:mod:`seamhost.cli.a2a.serve`) offers the profile's agent to A2A clients, each task a durable,
governed session; ``pins`` (:mod:`seamhost.cli.a2a.pins`) prints the Agent Card digests to pin
the remote agents the profile delegates to.
"""

from __future__ import annotations

import click

from seamhost.cli.lazy_group import Lazy, LazyGroup

_COMMANDS = {
    "pins": Lazy(
        "seamhost.cli.a2a.pins:pins",
        "Fetch the Agent Cards of PROFILE's A2A agents and print their pins, to paste.",
    ),
    "serve": Lazy(
        "seamhost.cli.a2a.serve:serve",
        "Serve the profile's agent over A2A; each task is a governed, durable session.",
    ),
}


@click.group(cls=LazyGroup, lazy=_COMMANDS)
def a2a() -> None:
    """The Agent2Agent protocol: serve the profile's agent; pin the agents it delegates to."""
