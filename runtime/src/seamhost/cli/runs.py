"""``seamhost submit`` and ``seamhost runs ls|show``: queue runs and see where they are (§14).

Both reach the run queue of the profile's session store (``store.runs``,
:mod:`seamhost.run.queue`); a store without one is a configuration error (exit 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from seamhost.run.queue import Run, RunAttempt, RunQueue
    from seamhost.session.store import SessionStore

PROFILE_HELP = "The profile whose session store keeps the run queue (e.g. postgres)."


def open_queue(profile_ref: str) -> RunQueue:
    from seamhost.cli.stores import open_store
    from seamhost.run.queue import run_queue

    return run_queue(open_store(None, profile_ref), profile_ref)


def run_json(run: Run) -> dict[str, Any]:
    def when(value: Any) -> str | None:
        return value.isoformat() if value is not None else None

    return {
        "id": run.id,
        "session_id": run.session_id,
        "state": run.state,
        "source": run.scenario_name if run.scenario is not None else "prompt",
        "claims": run.claims,
        "worker": run.worker,
        "progress": run.progress,
        "outcome": run.outcome,
        "submitted": when(run.submitted),
        "started": when(run.started),
        "finished": when(run.finished),
        "workspace": run.workspace,
    }


@click.command()
@click.argument(
    "scenario_path",
    metavar="[SCENARIO]",
    required=False,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
)
@click.option("--prompt", help="A user message to run with the profile's model instead.")
@click.option("--profile", "profile_ref", default="default", show_default=True, help=PROFILE_HELP)
@click.option("--session", "session_id", help="The id of the session the run creates.")
@click.option(
    "--workspace",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="The directory the run works in, on every worker that owns it (on many hosts: "
    "shared storage). Default: a directory of each worker's own, named by the run's id.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the queued run as JSON.")
def submit(
    *,
    scenario_path: Path | None,
    prompt: str | None,
    profile_ref: str,
    session_id: str | None,
    workspace: Path | None,
    as_json: bool,
) -> None:
    """Queue a run of SCENARIO (or of --prompt TEXT) for `seamhost worker` to drive."""
    from seamhost.run.sessions import new_session_id

    if (scenario_path is None) == (prompt is None):
        raise click.UsageError("give a SCENARIO or --prompt TEXT (one of them)")
    queue = open_queue(profile_ref)
    session_id = session_id or new_session_id()
    scenario = scenario_path.read_bytes() if scenario_path is not None else None
    name = scenario_path.name if scenario_path is not None else None
    where = str(workspace.resolve()) if workspace is not None else None
    run_id = queue.submit(
        session_id, scenario=scenario, scenario_name=name, prompt=prompt, workspace=where
    )
    if as_json:
        from seamhost.cli.output import emit_json

        emit_json({"id": run_id, "session_id": session_id, "state": "queued", "workspace": where})
        return
    click.echo(
        f"run {run_id} queued: session {session_id}" + (f", workspace {where}" * bool(where))
    )


@click.group()
def runs() -> None:
    """The runs of a run queue: what is queued, running and done."""


@runs.command("ls")
@click.option("--profile", "profile_ref", default="default", show_default=True, help=PROFILE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the runs as JSON.")
def list_runs(*, profile_ref: str, as_json: bool) -> None:
    """List the runs, oldest first, with their state, worker and progress."""
    from seamhost.cli.columns import Column, print_table
    from seamhost.cli.output import console, emit_json

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


@runs.command("show")
@click.argument("ref")
@click.option("--profile", "profile_ref", default="default", show_default=True, help=PROFILE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON.")
def show_run(*, ref: str, profile_ref: str, as_json: bool) -> None:
    """Show one run, REF its number or (a unique prefix of) its session id: its times, each
    claim (who, when, how it ended) and each takeover of its session (who, when, epoch)."""
    from seamhost.cli.output import emit_json
    from seamhost.cli.stores import open_store
    from seamhost.cli.terminal_text import terminal_safe
    from seamhost.errors import AmbiguousSessionId, UnknownSession
    from seamhost.run.queue import run_queue

    store = open_store(None, profile_ref)
    queue = run_queue(store, profile_ref)
    found = queue.find(ref)
    exact = [run for run in found if str(run.id) == ref]
    if not found:
        raise UnknownSession(ref, f"the run queue ({queue.where})")
    if len(found) > 1 and not exact:
        raise AmbiguousSessionId(ref, tuple(run.session_id for run in found))
    run = (exact or found)[0]
    row = run_json(run)
    row["attempts"] = [attempt_json(attempt) for attempt in queue.attempts(run)]
    row["takeovers"] = session_takeovers(store, run.session_id)
    if as_json:
        emit_json(row)
        return
    for key, value in row.items():
        if key not in ("attempts", "takeovers"):
            click.echo(terminal_safe(f"{key:>10}  {value if value is not None else '-'}"))
    click.echo("  attempts  " + ("" if row["attempts"] else "none yet"))
    for attempt in row["attempts"]:
        ended = attempt["how"] or "no end recorded: the worker died or stalled, its claim lapsed"
        click.echo(
            terminal_safe(
                f"    claim {attempt['claim']}  {attempt['worker']}  claimed {attempt['claimed']}"
                f"  ended {attempt['ended'] or '-'}  {ended}"
            )
        )
    click.echo(" takeovers  " + ("" if row["takeovers"] else "none"))
    for takeover in row["takeovers"]:
        click.echo(terminal_safe(f"    {takeover_line(takeover)}"))


def attempt_json(attempt: RunAttempt) -> dict[str, Any]:
    return {
        "claim": attempt.claim,
        "worker": attempt.worker,
        "claimed": attempt.claimed.isoformat(),
        "ended": attempt.ended.isoformat() if attempt.ended is not None else None,
        "how": attempt.how,
    }


def session_takeovers(store: SessionStore, session_id: str) -> list[dict[str, Any]]:
    """The ``session/takeover`` records of the run's session (none before it is stored)."""
    from seamhost.errors import SessionMissing

    try:
        records = list(store.read(session_id).records())
    except SessionMissing:
        return []
    return [
        {"seq": record.seq, "time": record.time, **record.data}
        for record in records
        if record.type == "session/takeover"
    ]


def takeover_line(takeover: dict[str, Any]) -> str:
    """One takeover as a line: epoch, owner, when, and what it found open."""
    from seamhost.cli.timeline import format_time

    epoch = takeover.get("epoch")
    found = [f"turn {takeover.get('turn')}"]
    if takeover.get("step") is not None:
        found.append(f"step {takeover['step']}")
    calls = takeover.get("calls") or ()
    states = ", ".join(f"{c['call_id']} {c['state']}" for c in calls)
    return (
        f"epoch {epoch if epoch is not None else '-'}  by {takeover.get('owner')}  at "
        f"{format_time(int(takeover['time']))}  continued {' '.join(found)}"
        + (f" ({states})" if states else "")
    )
