"""``seamhost runs ls``: every run of the queue, oldest first, with its state and worker."""

from __future__ import annotations

import click

from seamhost.cli.columns import Column, print_table
from seamhost.cli.output import console, emit_json
from seamhost.cli.runs.queue import open_queue, queue_profile_option, run_json


@click.command("ls")
@queue_profile_option
@click.option("--json", "as_json", is_flag=True, help="Print the runs as JSON.")
def list_runs(*, profile_ref: str, as_json: bool) -> None:
    """List the runs, oldest first, with their state, worker and progress."""
    rows = [run_json(run) for run in open_queue(profile_ref).all()]
    if as_json:
        emit_json(rows)
        return
    out = console()
    if not rows:
        out.print("no runs queued")
        return
    columns = [
        Column("run", keep=True),
        Column("state", keep=True),
        Column("session", keep=True),
        Column("claims"),
        Column("progress"),
        Column("worker"),
        Column("outcome", wrap=True),
    ]
    cells = [
        [
            str(r["id"]),
            r["state"],
            r["session_id"],
            str(r["claims"]),
            r["progress"] or "-",
            r["worker"] or "-",
            r["outcome"] or "-",
        ]
        for r in rows
    ]
    print_table(out, columns, cells, what="runs")
