"""``seamhost session``: list, render, check, repair and remove stored sessions.

The store is found as :mod:`seamhost.cli.lookup` says, and every session id may be given as a
unique prefix. ``ls`` (:mod:`seamhost.cli.listing`), ``show`` and ``verify`` only read: they never
take a writer's lock, so they work on a live or crashed session alike. ``repair``, ``rm`` and
``prune`` (:mod:`seamhost.cli.retention`) take the lock, so a session a live writer holds is
refused, never repaired or removed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from seamhost.cli.columns import format_size
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.failures import report
from seamhost.cli.listing import list_sessions
from seamhost.cli.lookup import resolve_session
from seamhost.cli.output import console, emit_json
from seamhost.cli.reconcile import reconcile as reconcile_command
from seamhost.cli.reconcile import unknowns as reconcile_unknowns
from seamhost.cli.retention import prune, remove
from seamhost.cli.stores import open_store, store_options
from seamhost.cli.timeline import Timeline, esc
from seamhost.errors import SeamhostError

if TYPE_CHECKING:
    from seamhost.session.repair import RepairPlan
    from seamhost.session.store import SessionCheck, SessionStore


# --------------------------------------------------------------------------------------------
# commands
# --------------------------------------------------------------------------------------------


@click.group()
def session() -> None:
    """List, show, verify, repair and remove stored sessions."""


session.add_command(list_sessions)
session.add_command(remove)
session.add_command(prune)


@session.command()
@click.argument("session_id", metavar="ID")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print the records exactly as stored.")
def show(session_id: str, root: Path | None, profile_ref: str, as_json: bool) -> None:
    """Show the timeline of session ID: turns, steps, calls, results, approvals.

    With --json, print its records exactly as stored: one envelope per line.
    """
    store = open_store(root, profile_ref)
    reader = store.read(resolve_session(store, session_id))
    if as_json:
        out = sys.stdout.buffer
        for record in reader.records():
            out.write(record.envelope() + b"\n")
        out.flush()
        return
    from seamhost.session.repair import plan_repair

    records = list(reader.records())
    plan = plan_repair(reader.header, records)
    Timeline(console()).render(reader.header, records, repair=plan)


@session.command()
@click.argument("session_id", metavar="ID", required=False)
@click.option("--all", "every", is_flag=True, help="Verify every stored session.")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@click.pass_context
def verify(
    ctx: click.Context,
    *,
    session_id: str | None,
    every: bool,
    root: Path | None,
    profile_ref: str,
    as_json: bool,
) -> None:
    """Check the integrity of session ID (or of --all sessions).

    Exits 0 when every session is intact (a torn tail, the trace of a crash, is reported but
    is not damage), 3 when one is corrupted, 1 when one cannot be read by this seamhost. A
    resume snapshot is replayed and compared: one that differs from its log is damage.
    """
    if every == (session_id is not None):
        raise click.UsageError("give one session ID or --all")
    store = open_store(root, profile_ref)
    ids = list(store.ids()) if every else [resolve_session(store, session_id or "")]
    from seamhost.cli.snapshot_check import snapshot_check

    checks: list[SessionCheck] = []
    failures: list[tuple[str, str]] = []
    snapshots: dict[str, dict[str, Any]] = {}  # the resume snapshot of each intact session
    for sid in progress(ids, "verifying", enabled=len(ids) > 1 and not as_json):
        try:
            checks.append(store.verify(sid))
            found = snapshot_check(store, sid) if checks[-1].intact else None
            if found is not None:
                snapshots[sid] = found
        except SeamhostError as exc:
            if not every:
                raise
            failures.append((sid, str(exc)))
    if as_json:
        emit_json(
            [{**check_json(c), "snapshot": snapshots.get(c.session_id)} for c in checks]
            + [{"session_id": sid, "error": error} for sid, error in failures]
        )
    else:
        out = console()
        for check in checks:
            text = describe_check(check)
            if check.session_id in snapshots:
                found = snapshots[check.session_id]
                text += f"; resume snapshot at seq {found['seq']}: {esc(found['message'])}"
                if found.get("pieces") == "ignored":
                    text += " (its pieces do not check out: the conversation is read from the log)"
            out.print(text, highlight=False)
        for sid, error in failures:
            out.print(f"[red]? {esc(sid)}[/red]: {esc(error)}")
        if every and not ids:
            out.print("no sessions stored")
    corrupted = [c.session_id for c in checks if not c.intact]
    corrupted += [sid for sid, found in snapshots.items() if found["status"] == "differs"]
    if corrupted or failures:  # the checks above say what; stderr says that it failed
        code = ExitCode.CORRUPT if corrupted else ExitCode.FAILURE
        bad = corrupted or [sid for sid, _ in failures]
        what = "corrupted" if corrupted else "unreadable"
        report(code, f"{what} session(s): {', '.join(bad)}", as_json=False)
        ctx.exit(int(code))


# --------------------------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------------------------


def check_json(check: SessionCheck) -> dict[str, Any]:
    import attrs

    return {**attrs.asdict(check), "intact": check.intact}


def describe_check(check: SessionCheck) -> str:
    sid = esc(check.session_id)
    if not check.intact:
        where = f" at byte {check.offset}" if check.offset is not None else ""
        return (
            f"[red]✗ {sid}[/red]: corrupted{where} of {esc(check.location)}: "
            f"{esc(check.problem or '')}; {check.records} record(s) before it are intact"
        )
    text = f"[green]✓ {sid}[/green]: {check.records} record(s), {format_size(check.size)}"
    if check.binding is not None:
        text += f", {esc(check.binding)}"
    if check.torn_bytes:
        text += (
            f"; torn tail of {check.torn_bytes} byte(s) from an interrupted write "
            f"({check.torn_records} record(s) recovered from it), cut by the next writer"
        )
    return text


def progress(items: list[str], label: str, *, enabled: bool) -> Iterable[str]:
    """`items`, with a progress bar on a terminal's stderr when `enabled`."""
    err = console(stderr=True)
    if not enabled or not err.is_terminal:
        yield from items
        return
    from rich.progress import track

    yield from track(items, description=label, console=err, transient=True)


@session.command()
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
    import asyncio

    from seamhost.session.live import Session
    from seamhost.session.repair import apply_repair, plan_repair

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


# The reconciliation commands (design.md §10) live in their own module.
session.add_command(reconcile_unknowns)
session.add_command(reconcile_command)
