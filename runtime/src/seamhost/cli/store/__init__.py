"""``seamhost store migrate``: the schema of a profile's session store (:mod:`.migrate`)."""

from __future__ import annotations

import click

from seamhost.cli.lazy_group import Lazy, LazyGroup

_COMMANDS = {
    "migrate": Lazy(
        "seamhost.cli.store.migrate:migrate",
        "Create the store's tables, or bring them to the version this seamhost uses.",
    ),
}


@click.group(cls=LazyGroup, lazy=_COMMANDS)
def store() -> None:
    """The session store of a profile: its schema."""
