"""``seamhost session ls``: the stored sessions, filtered, fitted to the terminal.

Listing reads each session's header only (the store's ``stat``), so it stays fast however long
the sessions are; only ``--state`` (:mod:`seamhost.cli.session.states`) and ``--tokens`` read
each session whole. Tokens are only in the log (the header is written before any is used), so
their columns are asked for rather than shown always: ``--tokens`` adds the session's input,
cached and output tokens and their cost, priced by ``--profile``'s ``[pricing]``
(:mod:`seamhost.run.usage`), and ``--json --tokens`` each row's ``usage``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from seamhost.cli.columns import Column, format_size, print_table
from seamhost.cli.display import esc, format_time, header_json
from seamhost.cli.output import console, emit_json
from seamhost.cli.session.moments import Moment
from seamhost.cli.session.states import STATES, session_state
from seamhost.cli.session_store import open_store, store_options
from seamhost.errors import SeamhostError

if TYPE_CHECKING:
    from seamhost.kernel.profile.pricing import Pricing
    from seamhost.run.usage import SessionUsage
    from seamhost.session.store import SessionStore


def stored_rows(store: SessionStore) -> list[dict[str, Any]]:
    """One row per stored session, from its header: oldest first, unreadable ones last."""

    rows: list[dict[str, Any]] = []
    for session_id in store.ids():
        try:
            stat = store.stat(session_id)
        except SeamhostError as exc:
            rows.append({"session_id": session_id, "error": str(exc)})
            continue
        rows.append(
            {
                **header_json(stat.header),
                "size": stat.size,
                "modified": stat.modified,
                "location": stat.location,
            }
        )
    rows.sort(key=lambda row: (row.get("created", sys.maxsize), row["session_id"]))
    return rows


def select(
    store: SessionStore,
    rows: list[dict[str, Any]],
    *,
    since: int | None,
    created_with: str | None,
    states: tuple[str, ...],
    limit: int | None,
) -> list[dict[str, Any]]:
    """The rows the filters keep; with `states`, each kept row gains its ``state``."""
    if since is not None:
        rows = [r for r in rows if r.get("created", -1) >= since]
    if created_with is not None:
        rows = [r for r in rows if r.get("profile") == created_with]
    if states:
        for row in rows:
            row["state"] = (
                "unreadable" if "error" in row else session_state(store, row["session_id"])
            )
        rows = [r for r in rows if r["state"] in states]
    return rows[-limit:] if limit is not None else rows


def session_usages(
    store: SessionStore, rows: list[dict[str, Any]], pricing: Pricing
) -> dict[str, SessionUsage | None]:
    """The usage of each readable row's session, by id (None when its log cannot be read)."""
    from seamhost.run.usage import session_usage  # only --tokens reads the logs

    usages: dict[str, SessionUsage | None] = {}
    for row in rows:
        if "error" in row:
            continue
        try:
            records = list(store.read(row["session_id"]).records())
        except SeamhostError:
            usages[row["session_id"]] = None
            continue
        usages[row["session_id"]] = session_usage(records, pricing)
    return usages


@click.command("ls")
@store_options
@click.option("--limit", type=click.IntRange(min=1), help="Only the N most recent sessions.")
@click.option(
    "--since",
    type=Moment(),
    help="Only sessions created since then: an age (30m, 2h, 3d, 1w) or an ISO date.",
)
@click.option(
    "--created-with",
    metavar="NAME",
    help="Only sessions created with the profile NAME (as their header records it).",
)
@click.option(
    "--state",
    "states",
    type=click.Choice(STATES),
    multiple=True,
    help="Only sessions in this state (repeatable); reads each session whole.",
)
@click.option(
    "--tokens",
    is_flag=True,
    help="Add the tokens each session used and their cost ([pricing] of --profile); reads "
    "each session whole.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the sessions as JSON.")
def list_sessions(
    *,
    root: Path | None,
    profile_ref: str,
    limit: int | None,
    since: int | None,
    created_with: str | None,
    states: tuple[str, ...],
    tokens: bool,
    as_json: bool,
) -> None:
    """List the stored sessions, oldest first (from their headers only).

    Session ids are always shown whole; columns that do not fit the terminal are dropped.
    """
    store = open_store(root, profile_ref)
    stored = stored_rows(store)
    rows = select(store, stored, since=since, created_with=created_with, states=states, limit=limit)
    usages = None
    if tokens:
        from seamhost.kernel.profile.pricing import pricing_of

        usages = session_usages(store, rows, pricing_of(profile_ref))
    if as_json:
        for row in rows:
            if usages is not None and row["session_id"] in usages:
                usage = usages[row["session_id"]]
                row["usage"] = usage.to_json() if usage is not None else None
        emit_json(rows)
        return
    empty = "no sessions stored" if not stored else None
    print_rows(rows, states=bool(states), usages=usages, empty=empty)


def print_rows(
    rows: list[dict[str, Any]],
    *,
    states: bool,
    usages: dict[str, SessionUsage | None] | None,
    empty: str | None,
) -> None:
    """The table; with `usages` (``--tokens``), each session's token and cost columns."""
    out = console()
    if not rows:
        out.print(empty or "no session matches")
        return
    readable = [r for r in rows if "error" not in r]
    columns = [
        Column("session", keep=True),
        Column("created"),
        *([Column("state")] if states else []),
        *(TOKEN_COLUMNS if usages is not None else []),  # asked for: before what always is
        Column("profile"),
        Column("size"),
        Column("barriers"),
        Column("cwd", wrap=True),
    ]
    cells = [
        [
            row["session_id"],
            format_time(row["created"]),
            *([row["state"]] if states else []),
            *(usage_cells(usages[row["session_id"]]) if usages is not None else []),
            str(row["profile"] or "-"),
            format_size(row["size"]),
            "on" if row["barriers"] else "off",
            row["cwd"],
        ]
        for row in readable
    ]
    if cells:
        print_table(out, columns, cells, what="sessions")
    for row in rows:
        if "error" in row:
            out.print(f"[red]? {esc(row['session_id'])}[/red]: {esc(row['error'])}")


TOKEN_COLUMNS = [Column("in"), Column("out"), Column("cost"), Column("cached")]


def usage_cells(usage: SessionUsage | None) -> list[str]:
    """The token columns of one row: ``?`` throughout when its log could not be read."""
    if usage is None:
        return ["?"] * len(TOKEN_COLUMNS)
    from seamhost.run.usage import format_cost

    totals = usage.session
    return [
        f"{totals.input_tokens:,}",
        f"{totals.output_tokens:,}",
        format_cost(totals.cost, usage.currency),
        f"{totals.cached_input_tokens:,}",
    ]
