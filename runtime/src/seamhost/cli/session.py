"""``seamhost session ls|show|verify|repair``: list, render, check and repair stored sessions.

The store is the ``session/store`` provider of a profile's bundle (``--profile``, default
``default``), or a persistence-jsonl root given directly (``--root``). ``ls``, ``show`` and
``verify`` only read: they never take a writer's lock, so they work on a live or crashed session
alike. ``repair`` takes the lock, so a session a live writer holds is refused, never repaired.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.failures import report
from seamhost.cli.output import console, emit_json
from seamhost.cli.reconcile import reconcile as reconcile_command
from seamhost.cli.reconcile import unknowns as reconcile_unknowns
from seamhost.cli.timeline import Timeline, esc, format_time, header_json
from seamhost.errors import ConfigError, PluginLoadError, PluginNotInstalled, SeamhostError

if TYPE_CHECKING:
    from seamhost.session.repair import RepairPlan
    from seamhost.session.store import SessionCheck, SessionStore

JSONL_PLUGIN = "persistence-jsonl"
JSONL_DISTRIBUTION = "seamhost-persistence-jsonl"
F = TypeVar("F", bound=Callable[..., Any])


# --------------------------------------------------------------------------------------------
# finding the store
# --------------------------------------------------------------------------------------------


def store_options(command: F) -> F:
    """The ``--root`` and ``--profile`` options every session command takes."""
    command = click.option(
        "--profile",
        "profile_ref",
        default="default",
        show_default=True,
        help="The profile whose session/store provider holds the sessions.",
    )(command)
    command = click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        help="A persistence-jsonl root to read directly (instead of --profile).",
    )(command)
    return command


def open_store(root: Path | None, profile_ref: str) -> SessionStore:
    """The store `--root` names, else the `session/store` provider of the profile's bundle."""
    if root is not None:
        return jsonl_store(root)
    from seamhost.kernel.bundle import build_bundle
    from seamhost.kernel.profile.resolve import resolve_profile

    bundle = build_bundle(resolve_profile(profile_ref))
    store = bundle.seams.session_store()
    if store is None:
        raise ConfigError(
            str(bundle.profile.path),
            "plugins",
            "no plugin provides session/store, so no session is stored; add one (such as "
            f"[plugins.{JSONL_PLUGIN}]) or pass --root DIR",
        )
    return store


def jsonl_store(root: Path) -> SessionStore:
    """The store of a persistence-jsonl root, made by the installed plugin through its seam."""
    from seamhost.jsonvalue import freeze
    from seamhost.kernel.bundle import build_bundle
    from seamhost.kernel.plugins import discover
    from seamhost.kernel.profile.resolve import PluginEntry, Profile
    from seamhost.sandbox.policy import SandboxPolicy

    installed = discover().get(JSONL_PLUGIN)
    if installed is None:
        raise PluginNotInstalled(JSONL_PLUGIN, JSONL_DISTRIBUTION, "--root")
    config = freeze({"root": str(root.resolve())})
    entry = PluginEntry(JSONL_PLUGIN, installed, installed.load(), config, config, "--root")
    profile = Profile(
        name="--root",
        path=Path.cwd() / "--root",
        description="",
        files=(),
        plugins=(entry,),
        sandbox=SandboxPolicy(),
        require_seams=(),
        require_plugins=freeze({}),
    )
    store = build_bundle(profile).seams.session_store()
    if store is None:
        raise PluginLoadError(JSONL_PLUGIN, "factory", "the plugin provides no session/store")
    return store


# --------------------------------------------------------------------------------------------
# commands
# --------------------------------------------------------------------------------------------


@click.group()
def session() -> None:
    """List, show, verify and repair stored sessions."""


@session.command("ls")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print the sessions as JSON.")
def list_sessions(root: Path | None, profile_ref: str, as_json: bool) -> None:
    """List the stored sessions, oldest first (from their headers only)."""
    store = open_store(root, profile_ref)
    rows: list[dict[str, Any]] = []
    for session_id in store.ids():
        try:
            stat = store.stat(session_id)
        except SeamhostError as exc:
            rows.append({"session_id": session_id, "error": str(exc)})
            continue
        rows.append({**header_json(stat.header), "size": stat.size, "location": stat.location})
    rows.sort(key=lambda row: (row.get("created", sys.maxsize), row["session_id"]))
    if as_json:
        emit_json(rows)
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table("session", "created", "size", "profile", "barriers", "cwd", box=None)
    unreadable = []
    for row in rows:
        if "error" in row:
            unreadable.append(row)
            continue
        table.add_row(
            escape(row["session_id"]),
            format_time(row["created"]),
            format_size(row["size"]),
            escape(str(row["profile"] or "-")),
            "on" if row["barriers"] else "off",
            escape(row["cwd"]),
        )
    out = console()
    if table.row_count:
        out.print(table)
    for row in unreadable:
        out.print(f"[red]? {escape(row['session_id'])}[/red]: {escape(row['error'])}")
    if not rows:
        out.print("no sessions stored")


@session.command()
@click.argument("session_id", metavar="ID")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print the records exactly as stored.")
def show(session_id: str, root: Path | None, profile_ref: str, as_json: bool) -> None:
    """Show the timeline of session ID: turns, steps, calls, results, approvals.

    With --json, print its records exactly as stored: one envelope per line.
    """
    reader = open_store(root, profile_ref).read(session_id)
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
    is not damage), 3 when one is corrupted, 1 when one cannot be read by this seamhost.
    """
    if every == (session_id is not None):
        raise click.UsageError("give one session ID or --all")
    store = open_store(root, profile_ref)
    ids = list(store.ids()) if every else [session_id or ""]
    checks: list[SessionCheck] = []
    failures: list[tuple[str, str]] = []
    for sid in progress(ids, "verifying", enabled=len(ids) > 1 and not as_json):
        try:
            checks.append(store.verify(sid))
        except SeamhostError as exc:
            if not every:
                raise
            failures.append((sid, str(exc)))
    if as_json:
        emit_json(
            [{**check_json(c)} for c in checks]
            + [{"session_id": sid, "error": error} for sid, error in failures]
        )
    else:
        out = console()
        for check in checks:
            out.print(describe_check(check), highlight=False)
        for sid, error in failures:
            out.print(f"[red]? {esc(sid)}[/red]: {esc(error)}")
        if every and not ids:
            out.print("no sessions stored")
    corrupted = [c.session_id for c in checks if not c.intact]
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
    if check.torn_bytes:
        text += (
            f"; torn tail of {check.torn_bytes} byte(s) from an interrupted write "
            f"({check.torn_records} record(s) recovered from it), cut by the next writer"
        )
    return text


def format_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    value, unit = size / 1024, 0
    while value >= 1024 and unit < 2:
        value, unit = value / 1024, unit + 1
    return f"{value:.1f} {('KiB', 'MiB', 'GiB')[unit]}"


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
    ids = list(store.ids()) if every else [session_id or ""]
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
            "deferred approval)"
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
