"""``seamhost store migrate``: create or upgrade the tables of the profile's session store."""

from __future__ import annotations

import click

from seamhost.cli.output import emit_json
from seamhost.cli.session_store import open_store
from seamhost.errors import ConfigError


@click.command()
@click.option(
    "--profile",
    "profile_ref",
    default="default",
    show_default=True,
    help="The profile whose session/store provider to migrate (e.g. postgres).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the versions as JSON.")
def migrate(*, profile_ref: str, as_json: bool) -> None:
    """Create the store's tables, or bring them to the version this seamhost uses.

    Idempotent; a store newer than this seamhost is refused untouched (upgrade seamhost). A
    store that has no schema to migrate (persistence-jsonl) says so.
    """
    session_store = open_store(None, profile_ref)
    migrate_store = getattr(session_store, "migrate", None)
    if not callable(migrate_store):
        raise ConfigError(
            profile_ref,
            "plugins",
            f"the session store {session_store.name} has no schema to migrate",
        )
    before, now = migrate_store()
    if as_json:
        emit_json({"store": session_store.name, "before": before, "version": now})
        return
    was = "no tables" if before is None else f"version {before}"
    click.echo(f"{session_store.name}: {was} -> version {now}")
