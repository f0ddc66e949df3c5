"""``seamhost store migrate``: the schema or the file layout of a profile's session store."""

from __future__ import annotations

import click

from seamhost.cli.lazy_group import Lazy, LazyGroup

_COMMANDS = {
    "migrate": Lazy(
        "seamhost.cli.store.migrate:migrate",
        "Bring the store to what this seamhost writes: tables, or JSONL log layouts.",
    ),
}


@click.group(cls=LazyGroup, lazy=_COMMANDS)
def store() -> None:
    """The session store of a profile: its schema, or its files' layout."""
