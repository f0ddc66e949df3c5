"""``seamhost store migrate``: bring the profile's session store to what this seamhost writes.

A store with a schema (persistence-postgres) has its tables created or upgraded. A store of
files (persistence-jsonl) has each session's log published in the current layout beside its
older generation, which stays unless ``--remove-old`` (its ``migrate_layout``; the plugin's
``migration`` module says how the copy is checked and published).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.lookup import resolve_session
from seamhost.cli.output import console, emit_json
from seamhost.cli.session_store import open_store, store_options
from seamhost.errors import ConfigError


@click.command()
@click.argument("session_ids", metavar="[ID]...", nargs=-1)
@store_options
@click.option("--dry-run", is_flag=True, help="Say what would be migrated; change nothing.")
@click.option(
    "--remove-old",
    is_flag=True,
    help="Remove a session's older log once its new one is published (files stores).",
)
@click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def migrate(
    ctx: click.Context,
    *,
    session_ids: tuple[str, ...],
    root: Path | None,
    profile_ref: str,
    dry_run: bool,
    remove_old: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """Bring the store to what this seamhost writes: tables, or JSONL log layouts.

    A store with a schema (persistence-postgres) has its tables created, or brought to the
    version this seamhost uses. In a persistence-jsonl store, every session's log (or each
    ID's) is published in the current layout beside its older one. Idempotent.

    A schema newer than this seamhost is refused untouched (upgrade seamhost). A JSONL session
    being written (its lock held), or whose old log changed during the copy, is refused with
    nothing overwritten; the command then exits 1 after the other sessions.
    """
    session_store = open_store(root, profile_ref)
    migrate_layout = getattr(session_store, "migrate_layout", None)
    if callable(migrate_layout):
        ids = [resolve_session(session_store, sid) for sid in session_ids] or list(
            session_store.ids()
        )
        results: list[Any] = []
        for index, sid in enumerate(ids, 1):

            def copied(session_id: str, records: int, index: int = index) -> None:
                if not quiet:
                    print(
                        f"[{index}/{len(ids)}] {session_id}: {records} record(s) copied, "
                        "checking the source",
                        file=sys.stderr,
                        flush=True,
                    )

            results.append(
                migrate_layout(sid, dry_run=dry_run, remove_old=remove_old, on_copied=copied)
            )
        _report(session_store.name, results, dry_run=dry_run, as_json=as_json)
        if any(result.refused for result in results):
            ctx.exit(int(ExitCode.FAILURE))
        return
    if dry_run or remove_old or session_ids:
        raise click.UsageError(
            f"the session store {session_store.name} has a schema, not session files: "
            "ID, --dry-run and --remove-old apply to persistence-jsonl"
        )
    migrate_store = getattr(session_store, "migrate", None)
    if not callable(migrate_store):
        raise ConfigError(
            profile_ref,
            "plugins",
            f"the session store {session_store.name} has nothing to migrate",
        )
    before, now = migrate_store()
    if as_json:
        emit_json({"store": session_store.name, "before": before, "version": now})
        return
    was = "no tables" if before is None else f"version {before}"
    click.echo(f"{session_store.name}: {was} -> version {now}")


_SAID = {
    "migrated": "migrated from layout {from_layout}: {records} record(s)",
    "would-migrate": "would migrate from layout {from_layout}: {records} record(s)",
    "current": "already in the current layout",
    "migrated-before": "migrated before",
    "refused": "refused",
}


def _report(store: str, results: list[Any], *, dry_run: bool, as_json: bool) -> None:
    if as_json:
        emit_json({"store": store, "dry_run": dry_run, "sessions": [r.to_json() for r in results]})
        return
    out = console()
    for result in results:
        text = f"{result.session_id}: " + _SAID[result.outcome].format(**result.to_json())
        if result.removed_old:
            text += "; old log removed"
        if result.reason:
            text += f" ({result.reason})"
        out.print(text, highlight=False, markup=False, soft_wrap=True)
    if not results:
        out.print("no sessions stored", highlight=False)
    counts: dict[str, int] = {}
    for result in results:
        counts[result.outcome] = counts.get(result.outcome, 0) + 1
    if results:
        summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
        out.print(f"{len(results)} session(s): {summary}", highlight=False)
