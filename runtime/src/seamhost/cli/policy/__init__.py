"""``seamhost policy explain``: how the profile's policy judges calls (:mod:`.explain`)."""

from __future__ import annotations

import click

from seamhost.cli.lazy_group import Lazy, LazyGroup

_COMMANDS = {
    "explain": Lazy(
        "seamhost.cli.policy.explain:explain",
        "The decision a call would get: allow, ask or deny, each plugin's vote and why.",
    ),
}


@click.group(cls=LazyGroup, lazy=_COMMANDS)
def policy() -> None:
    """Show how the profile's policy judges calls."""
