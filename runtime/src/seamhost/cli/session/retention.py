"""``seamhost session rm`` and ``prune``: remove stored sessions, never work that is not over.

A session is removed through its store's ``delete``, which takes the session as a writer would:
a session a live writer holds is kept. With the session held, a check reads it: a session parked
on a deferred approval (pending, or answered and not yet resumed) is kept, and so is one that
cannot be read, since whether it waits on an approval cannot be told (``rm --force`` removes that
one anyway). Every session kept is named with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from seamhost.cli.display import esc
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.lookup import resolve_sessions
from seamhost.cli.next_steps import continue_command, model_of
from seamhost.cli.output import console, emit_json
from seamhost.cli.session.listing import stored_rows
from seamhost.cli.session.moments import Moment
from seamhost.cli.session_store import open_store, store_options
from seamhost.errors import SeamhostError, SessionKept
from seamhost.session.suspension import find_suspension

if TYPE_CHECKING:
    from seamhost.session.store import SessionStore


def removal_check(store: SessionStore, session_id: str, *, force: bool) -> Callable[[], None]:
    """What must hold for `session_id` to be removed; raises `SessionKept` when it does not."""

    def check() -> None:
        try:
            stored = store.read(session_id)
            header, records = stored.header, list(stored.records())
        except SeamhostError as exc:
            if force:
                return
            raise SessionKept(
                session_id,
                f"it cannot be read, so whether it waits on an approval cannot be told ({exc}); "
                "`seamhost session rm --force ID` removes it anyway",
            ) from exc
        parked = find_suspension(records)
        if parked is not None:
            state = (
                "pending"
                if parked.decision is None
                else f"answered {parked.decision['outcome']}, not yet resumed"
            )
            raise SessionKept(
                session_id,
                f"it waits on approval {parked.approval_id} ({state}); answer it and "
                f"`{continue_command(session_id, model_of(header))}`, then remove it",
            )

    return check


def remove_one(store: SessionStore, session_id: str, *, force: bool) -> str | None:
    """Remove a session; the reason it was kept, or None once it is gone."""
    try:
        store.delete(session_id, check=removal_check(store, session_id, force=force))
    except SessionKept as exc:
        return exc.reason
    except SeamhostError as exc:  # a live writer, above all
        return str(exc)
    return None


def report(kept: list[dict[str, str]], removed: list[str], *, verb: str) -> None:
    out = console()
    for session_id in removed:
        out.print(f"{verb} {esc(session_id)}")
    for entry in kept:
        out.print(f"[yellow]kept {esc(entry['session_id'])}[/yellow]: {esc(entry['reason'])}")


@click.command("rm")
@click.argument("session_ids", metavar="ID...", nargs=-1, required=True)
@click.option(
    "--force", is_flag=True, help="Also remove sessions that cannot be read (damaged, newer)."
)
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print what was removed and kept as JSON.")
@click.pass_context
def remove(
    ctx: click.Context,
    *,
    session_ids: tuple[str, ...],
    force: bool,
    root: Path | None,
    profile_ref: str,
    as_json: bool,
) -> None:
    """Remove sessions for good; each ID may be a unique prefix of a session id.

    A session a live writer holds, or parked on a deferred approval, is kept, and so is one that
    cannot be read unless --force. Every id is resolved before anything is removed. Exits 0 when
    every session was removed, 1 when one was kept.
    """
    store = open_store(root, profile_ref)
    removed: list[str] = []
    kept: list[dict[str, str]] = []
    for session_id in resolve_sessions(store, list(session_ids)):
        reason = remove_one(store, session_id, force=force)
        if reason is None:
            removed.append(session_id)
        else:
            kept.append({"session_id": session_id, "reason": reason})
    if as_json:
        emit_json({"removed": removed, "kept": kept})
    else:
        report(kept, removed, verb="removed")
    if kept:
        ctx.exit(int(ExitCode.FAILURE))


@click.command("prune")
@click.option(
    "--older-than",
    "cutoff",
    required=True,
    type=Moment(),
    help="Remove the sessions last written before then: an age (30m, 12h, 30d, 2w) or a date.",
)
@click.option(
    "--keep",
    type=click.IntRange(min=0),
    default=0,
    help="Keep the N most recently written sessions whatever their age.",
)
@click.option("--dry-run", is_flag=True, help="Say what would be removed; remove nothing.")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print what was removed and kept as JSON.")
def prune(
    *,
    cutoff: int,
    keep: int,
    dry_run: bool,
    root: Path | None,
    profile_ref: str,
    as_json: bool,
) -> None:
    """Remove the sessions not written since --older-than, except the --keep newest.

    Sessions a live writer holds, parked on a deferred approval, or that cannot be read are kept
    and named with the reason. --dry-run reads (it cannot see a live writer, which takes the
    lock it would need). Exits 0 whatever was kept.
    """
    store = open_store(root, profile_ref)
    candidates, kept = prune_candidates(stored_rows(store), cutoff=cutoff, keep=keep)
    removed: list[str] = []
    for session_id in candidates:
        if dry_run:
            reason = dry_run_reason(store, session_id)
        else:
            reason = remove_one(store, session_id, force=False)
        if reason is None:
            removed.append(session_id)
        else:
            kept.append({"session_id": session_id, "reason": reason})
    if as_json:
        emit_json(
            {"dry_run": dry_run, "would_remove" if dry_run else "removed": removed, "kept": kept}
        )
    else:
        report(kept, removed, verb="would remove" if dry_run else "removed")
        if not removed and not kept:
            console().print("nothing to prune")


def prune_candidates(
    rows: list[dict[str, Any]], *, cutoff: int, keep: int
) -> tuple[list[str], list[dict[str, str]]]:
    """The ids old enough to remove (oldest first), and the unreadable ones, kept."""

    def last_written(row: dict[str, Any]) -> int:
        return int(row["modified"] if row.get("modified") is not None else row["created"])

    readable = sorted((r for r in rows if "error" not in r), key=last_written)
    old = readable[: max(len(readable) - keep, 0)]
    kept = [
        {"session_id": r["session_id"], "reason": f"it cannot be read ({r['error']})"}
        for r in rows
        if "error" in r
    ]
    return [r["session_id"] for r in old if last_written(r) < cutoff], kept


def dry_run_reason(store: SessionStore, session_id: str) -> str | None:
    try:
        removal_check(store, session_id, force=False)()
    except SessionKept as exc:
        return exc.reason
    return None
