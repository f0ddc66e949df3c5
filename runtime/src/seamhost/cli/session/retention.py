"""``seamhost session rm`` and ``prune``: remove stored sessions, never work that is not over.

A session is removed through its store's ``delete``, which takes the session as a writer would:
a session a live writer holds (a lock, or a PostgreSQL lease that has not lapsed) is kept, and a
store may keep one for its own reason (PostgreSQL: a queued or running run drives it). With the
session held, a check reads it: a session holding an unresolved ``TOOL_OUTCOME_UNKNOWN`` (a call
that may have had its effect, a payment say) is kept until it is reconciled, one parked on a
deferred approval (pending, or answered and not yet resumed) until it is resumed, and one that
cannot be read, since whether it waits on either cannot be told. ``prune`` also keeps what the
profile's ``[retention]`` says to keep (:mod:`seamhost.kernel.profile.retention`). Only
``--force`` naming a session removes it anyway; a live writer's session, never. Every session
kept is named with the reason and what to do.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
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
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.unknowns import unknowns
from seamhost.session.suspension import find_suspension

if TYPE_CHECKING:
    from seamhost.kernel.profile.retention import Retention
    from seamhost.session.record import Record
    from seamhost.session.store import SessionStore

DAY_MS = 86_400_000
RECONCILE = "--result FILE|--error CODE --message TEXT --source TEXT"


def removal_check(
    store: SessionStore,
    session_id: str,
    *,
    force: bool,
    keep: Collection[str] = (),
    anyway: str = "`seamhost session rm --force ID`",
) -> Callable[[], None]:
    """What must hold for `session_id` to be removed; raises `SessionKept` when it does not.

    `keep` adds the kinds of session the profile keeps (``failed``); `anyway` is the command
    that removes a kept session all the same, for the reason to name.
    """

    def check() -> None:
        if force:
            return
        try:
            stored = store.read(session_id)
            header, records = stored.header, list(stored.records())
        except SeamhostError as exc:
            raise SessionKept(
                session_id,
                "it cannot be read, so whether it waits on an approval cannot be told, nor "
                f"whether it holds an unknown outcome ({exc}); {anyway} removes it anyway",
            ) from exc
        reason = kept_reason(session_id, model_of(header), records, keep=keep)
        if reason is not None:
            raise SessionKept(session_id, f"{reason}; {anyway} removes it anyway")

    return check


def kept_reason(
    session_id: str,
    model: Mapping[str, Any] | None,
    records: Sequence[Record],
    *,
    keep: Collection[str],
) -> str | None:
    """Why a readable session must stay, with what to do about it; None when it may go."""
    pending = unknowns(session_id, records, in_flight=True)
    if pending:
        first = pending[0]
        if first.unrepaired:
            return (
                f"its call {first.call_id} ({first.tool}) was dispatched and has no result, so "
                f"its outcome is unknown; `seamhost session repair {session_id}`, then reconcile "
                f"it: `seamhost session reconcile {session_id} {first.call_id} {RECONCILE}`"
            )
        more = f" (and {len(pending) - 1} more)" if len(pending) > 1 else ""
        return (
            f"it holds an unresolved unknown outcome: call {first.call_id} ({first.tool}, "
            f"attempt {first.attempt}){more}; reconcile it: `seamhost session reconcile "
            f"{session_id} {first.call_id} {RECONCILE}`"
        )
    parked = find_suspension(records)
    if parked is not None:
        state = (
            "pending"
            if parked.decision is None
            else f"answered {parked.decision['outcome']}, not yet resumed"
        )
        return (
            f"it waits on approval {parked.approval_id} ({state}); answer it and "
            f"`{continue_command(session_id, model)}`, then remove it"
        )
    if "failed" in keep:
        end = next((r for r in reversed(records) if r.type == "turn/end"), None)
        if end is not None and end.data.get("reason") == "error":
            return (
                f"its turn {end.data['turn']} ended with an error, and the profile's "
                '[retention] keep lists "failed"'
            )
    return None


def remove_one(store: SessionStore, session_id: str, check: Callable[[], None]) -> str | None:
    """Remove a session; the reason it was kept, or None once it is gone."""
    try:
        store.delete(session_id, check=check)
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
    "--force",
    is_flag=True,
    help="Also remove sessions that hold an unknown outcome, wait on an approval, or cannot be "
    "read.",
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

    A session a live writer holds is kept; so is one holding an unresolved unknown outcome,
    parked on a deferred approval, or that cannot be read, unless --force. Every id is resolved
    before anything is removed. Exits 0 when every session was removed, 1 when one was kept.
    """
    store = open_store(root, profile_ref)
    removed: list[str] = []
    kept: list[dict[str, str]] = []
    for session_id in resolve_sessions(store, list(session_ids)):
        reason = remove_one(store, session_id, removal_check(store, session_id, force=force))
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
    type=Moment(),
    help="Remove the sessions last written before then: an age (30m, 12h, 30d, 2w) or a date "
    "(default: the profile's [retention] keep_days).",
)
@click.option(
    "--keep",
    type=click.IntRange(min=0),
    help="Keep the N most recently written sessions whatever their age (default: the "
    "profile's [retention] keep_sessions, else 0).",
)
@click.option(
    "--force",
    "forced",
    metavar="ID",
    multiple=True,
    help="Remove this session even if it holds an unknown outcome, waits on an approval, "
    "cannot be read or is one the profile keeps (repeatable).",
)
@click.option("--dry-run", is_flag=True, help="Say what would be removed; remove nothing.")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print what was removed and kept as JSON.")
def prune(
    *,
    cutoff: int | None,
    keep: int | None,
    forced: tuple[str, ...],
    dry_run: bool,
    root: Path | None,
    profile_ref: str,
    as_json: bool,
) -> None:
    """Remove the sessions not written since --older-than, except the --keep newest.

    Sessions a live writer holds, holding an unresolved unknown outcome, parked on a deferred
    approval, that cannot be read, or of a kind the profile's [retention] keep lists are kept
    and named with the reason, unless --force names them. --dry-run reads (it cannot see a
    live writer, which takes the lock it would need). Exits 0 whatever was kept.
    """
    store = open_store(root, profile_ref)
    retention = resolve_profile(profile_ref).retention
    cutoff = cutoff_of(cutoff, retention)
    force = frozenset(resolve_sessions(store, list(forced)))
    keep_newest = retention.keep_sessions if keep is None else keep
    candidates, kept = prune_candidates(
        stored_rows(store), cutoff=cutoff, keep=keep_newest, force=force
    )
    removed: list[str] = []
    for session_id in candidates:
        check = removal_check(
            store,
            session_id,
            force=session_id in force,
            keep=retention.keep,
            anyway=f"`seamhost session prune --force {session_id}`",
        )
        reason = dry_run_reason(check) if dry_run else remove_one(store, session_id, check)
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


def cutoff_of(given: int | None, retention: Retention) -> int:
    """The moment (ms) before which a session's last write makes it old: --older-than's, else
    the profile's keep_days before now."""
    if given is not None:
        return given
    if retention.keep_days is None:
        raise click.UsageError(
            "give --older-than, or set keep_days in the profile's [retention] table"
        )
    return int(time.time() * 1000 - retention.keep_days * DAY_MS)


def prune_candidates(
    rows: list[dict[str, Any]], *, cutoff: int, keep: int, force: Collection[str] = ()
) -> tuple[list[str], list[dict[str, str]]]:
    """The ids old enough to remove (oldest first, an unreadable one `force` names among
    them), and the other unreadable ones, kept."""

    def last_written(row: dict[str, Any]) -> int:
        return int(row["modified"] if row.get("modified") is not None else row["created"])

    readable = sorted((r for r in rows if "error" not in r), key=last_written)
    old = readable[: max(len(readable) - keep, 0)]
    unreadable = [r for r in rows if "error" in r]
    kept = [
        {
            "session_id": r["session_id"],
            "reason": f"it cannot be read ({r['error']}); `seamhost session prune --force "
            f"{r['session_id']}` removes it anyway",
        }
        for r in unreadable
        if r["session_id"] not in force
    ]
    forced = [r["session_id"] for r in unreadable if r["session_id"] in force]
    return [r["session_id"] for r in old if last_written(r) < cutoff] + forced, kept


def dry_run_reason(check: Callable[[], None]) -> str | None:
    try:
        check()
    except SessionKept as exc:
        return exc.reason
    return None
