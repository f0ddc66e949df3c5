"""``seamhost session repair ID|--all [--dry-run] [--json]``: close the tail a crash left open.

It takes the writer's lock, so a session a live writer holds is refused, never repaired.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import click

from seamhost.cli.display import esc
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.failures import report
from seamhost.cli.lookup import resolve_session
from seamhost.cli.output import console, emit_json
from seamhost.cli.session.progress import progress
from seamhost.cli.session_store import open_store, store_options
from seamhost.errors import SeamhostError
from seamhost.session.live import Session
from seamhost.session.repair import RepairPlan, apply_repair, plan_repair
from seamhost.session.store import SessionStore


@click.command()
@click.argument("session_id", metavar="ID", required=False)
@click.option("--all", "every", is_flag=True, help="Repair every stored session that needs it.")
@click.option("--dry-run", is_flag=True, help="Show what repair would add; write nothing.")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print what was (or would be) added as JSON.")
@click.pass_context
def repair(
    ctx: click.Context,
    *,
    session_id: str | None,
    every: bool,
    dry_run: bool,
    root: Path | None,
    profile_ref: str,
    as_json: bool,
) -> None:
    """Close the crashed tail of session ID (or of --all sessions).

    For each call of the open step without a result: TOOL_OUTCOME_UNKNOWN when it was dispatched,
    TOOL_NOT_STARTED when it was not (every unfinished call is outcome-unknown in a session
    written without barriers); dangling approvals are closed as cancelled; the step and the turn
    are closed as interrupted. Nothing is re-run. A session held by a live writer is refused.
    Exits 0 when every session is closed (or already was), 1 when one could not be repaired.
    """
    if every == (session_id is not None):
        raise click.UsageError("give one session ID or --all")
    store = open_store(root, profile_ref)
    ids = list(store.ids()) if every else [resolve_session(store, session_id or "")]
    outcomes: list[dict[str, Any]] = []
    for sid in progress(ids, "repairing", enabled=len(ids) > 1 and not as_json):
        try:
            plan = _repair_one(store, sid, dry_run=dry_run)
        except SeamhostError as exc:
            if not every:
                raise
            outcomes.append({"session_id": sid, "error": str(exc)})
            continue
        outcomes.append(
            {
                "session_id": sid,
                "repaired": plan is not None and not dry_run,
                "plan": plan.to_json() if plan is not None else None,
            }
        )
    if as_json:
        emit_json(outcomes)
    else:
        out = console()
        for outcome in outcomes:
            out.print(_describe_repair(outcome, dry_run=dry_run), highlight=False)
        if every and not ids:
            out.print("no sessions stored")
    failed = [outcome["session_id"] for outcome in outcomes if "error" in outcome]
    if failed:
        report(ExitCode.FAILURE, f"session(s) not repaired: {', '.join(failed)}", as_json=False)
        ctx.exit(int(ExitCode.FAILURE))


def _repair_one(store: SessionStore, session_id: str, *, dry_run: bool) -> RepairPlan | None:
    """Repair one session (or only plan it); the store's lock refuses a live writer."""
    if dry_run:
        reader = store.read(session_id)
        return plan_repair(reader.header, list(reader.records()))
    writer = store.open(session_id)
    try:
        session = Session(writer)
        plan = apply_repair(session)
        asyncio.run(writer.flush())
    finally:
        writer.close()
    return plan


def _describe_repair(outcome: dict[str, Any], *, dry_run: bool) -> str:
    sid = esc(outcome["session_id"])
    if "error" in outcome:
        return f"[red]? {sid}[/red]: {esc(outcome['error'])}"
    plan = outcome["plan"]
    if plan is None:
        return (
            f"[green]✓ {sid}[/green]: nothing to repair (the last turn is closed, or parked on a "
            "deferred approval or a reconciliation)"
        )
    calls = ", ".join(f"{c['call_id']} {c['code']}" for c in plan["calls"]) or "no calls"
    verb = "would close" if dry_run else "closed"
    return (
        f"[yellow]{'~' if dry_run else '✓'} {sid}[/yellow]: {verb} turn {plan['turn']}: "
        f"{esc(calls)}; {len(plan['approvals'])} approval(s)"
    )
