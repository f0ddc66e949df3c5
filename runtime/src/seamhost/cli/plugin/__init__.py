"""``seamhost plugin new``: start a plugin distribution from a template (:mod:`.new`).

Not ``seamhost plugins``, which lists the installed ones: this group writes a new one.
"""

from __future__ import annotations

import click

from seamhost.cli.lazy_group import Lazy, LazyGroup

_COMMANDS = {
    "new": Lazy(
        "seamhost.cli.plugin.new:new",
        "Write a plugin distribution of one kind that installs, lists and passes its tests.",
    ),
}


@click.group(cls=LazyGroup, lazy=_COMMANDS)
def plugin() -> None:
    """Start a plugin distribution from a template."""
