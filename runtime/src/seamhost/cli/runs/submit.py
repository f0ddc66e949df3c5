"""``seamhost submit``: queue a run of a scenario or a prompt for a worker to drive (§14)."""

from __future__ import annotations

from pathlib import Path

import click

from seamhost.cli.output import emit_json
from seamhost.cli.runs.queue import open_queue, queue_profile_option
from seamhost.run.sessions import new_session_id


@click.command()
@click.argument(
    "scenario_path",
    metavar="[SCENARIO]",
    required=False,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
)
@click.option("--prompt", help="A user message to run with the profile's model instead.")
@queue_profile_option
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
        emit_json({"id": run_id, "session_id": session_id, "state": "queued", "workspace": where})
        return
    click.echo(
        f"run {run_id} queued: session {session_id}" + (f", workspace {where}" * bool(where))
    )
