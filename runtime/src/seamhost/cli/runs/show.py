"""``seamhost runs show REF``: one run, its claims, the takeovers of its session and the tokens
it used, with their cost priced by ``--profile``'s ``[pricing]`` (:mod:`seamhost.run.usage`)."""

from __future__ import annotations

from typing import Any

import click

from seamhost.cli.display import format_time
from seamhost.cli.output import emit_json
from seamhost.cli.runs.queue import queue_profile_option, run_json
from seamhost.cli.session_store import open_store
from seamhost.cli.terminal import terminal_safe
from seamhost.errors import AmbiguousSessionId, SessionMissing, UnknownSession
from seamhost.kernel.profile.pricing import pricing_of
from seamhost.run.queue import RunAttempt, run_queue
from seamhost.run.usage import session_usage
from seamhost.session.record import Record
from seamhost.session.store import SessionStore


@click.command("show")
@click.argument("ref")
@queue_profile_option
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON.")
def show_run(*, ref: str, profile_ref: str, as_json: bool) -> None:
    """Show one run, REF its number or (a unique prefix of) its session id: its times, each
    claim (who, when, how it ended) and each takeover of its session (who, when, epoch).

    Then the tokens its session used and their cost ([pricing] of --profile), whole and per
    turn."""
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
    records = session_records(store, run.session_id)
    row["takeovers"] = session_takeovers(records)
    usage = session_usage(records, pricing_of(profile_ref))
    row["usage"] = usage.to_json()
    if as_json:
        emit_json(row)
        return
    for key, value in row.items():
        if key not in ("attempts", "takeovers", "usage"):
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
    click.echo(terminal_safe(f"     usage  {usage.text()}"))
    for turn, totals in usage.turns.items():
        click.echo(terminal_safe(f"    turn {turn}  {totals.text(usage.currency)}"))


def attempt_json(attempt: RunAttempt) -> dict[str, Any]:
    return {
        "claim": attempt.claim,
        "worker": attempt.worker,
        "claimed": attempt.claimed.isoformat(),
        "ended": attempt.ended.isoformat() if attempt.ended is not None else None,
        "how": attempt.how,
    }


def session_records(store: SessionStore, session_id: str) -> list[Record]:
    """The records of the run's session (none before it is stored)."""
    try:
        return list(store.read(session_id).records())
    except SessionMissing:
        return []


def session_takeovers(records: list[Record]) -> list[dict[str, Any]]:
    """The ``session/takeover`` records of the run's session."""
    return [
        {"seq": record.seq, "time": record.time, **record.data}
        for record in records
        if record.type == "session/takeover"
    ]


def takeover_line(takeover: dict[str, Any]) -> str:
    """One takeover as a line: epoch, owner, when, and what it found open."""
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
