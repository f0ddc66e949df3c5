"""``seamhost session show ID [--json]``: a session's timeline, or its records as stored.

It only reads: no writer's lock is taken, so a live or crashed session shows alike. The timeline
ends with the session's token and cost totals, whole and per turn (:mod:`seamhost.run.usage`),
priced by ``--profile``'s ``[pricing]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from seamhost.cli.lookup import resolve_session
from seamhost.cli.output import console
from seamhost.cli.session_store import open_store, store_options
from seamhost.cli.timeline import Timeline
from seamhost.kernel.profile.pricing import pricing_of
from seamhost.session.repair import plan_repair


@click.command()
@click.argument("session_id", metavar="ID")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print the records exactly as stored.")
def show(session_id: str, root: Path | None, profile_ref: str, as_json: bool) -> None:
    """Show the timeline of session ID: turns, steps, calls, results, approvals.

    The timeline ends with the tokens used and their cost, whole and per turn, priced by the
    [pricing] of --profile. With --json, print its records exactly as stored: one envelope per
    line.
    """
    store = open_store(root, profile_ref)
    reader = store.read(resolve_session(store, session_id))
    if as_json:
        out = sys.stdout.buffer
        for record in reader.records():
            out.write(record.envelope() + b"\n")
        out.flush()
        return
    from seamhost.run.usage import session_usage  # only the timeline needs it

    records = list(reader.records())
    plan = plan_repair(reader.header, records)
    out = console()
    Timeline(out).render(reader.header, records, repair=plan)
    for line in session_usage(records, pricing_of(profile_ref)).lines():
        out.print(line, markup=False, highlight=False)
