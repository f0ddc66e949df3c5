"""``seamhost session verify ID|--all [--json]``: check stored sessions and their snapshots.

It only reads: no writer's lock is taken, so a live or crashed session is checked alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import click

from seamhost.cli.columns import format_size
from seamhost.cli.display import esc
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.failures import report
from seamhost.cli.lookup import resolve_session
from seamhost.cli.output import console, emit_json
from seamhost.cli.session.progress import progress
from seamhost.cli.session.snapshots import snapshot_check
from seamhost.cli.session_store import open_store, store_options
from seamhost.errors import SeamhostError
from seamhost.session.store import SessionCheck


@click.command()
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


def check_json(check: SessionCheck) -> dict[str, Any]:
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
