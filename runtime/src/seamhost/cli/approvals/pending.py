"""``seamhost approvals``: the deferred approvals parked sessions wait on (design.md §11).

Each is listed with its state (pending, answered, expired) and how long it has waited; the
questions are answered with ``approve`` and ``reject`` (:mod:`seamhost.cli.approvals.decisions`).
"""

from __future__ import annotations

import time

import click

from seamhost.cli.options import profile_option
from seamhost.cli.output import console, emit_json
from seamhost.cli.session_store import open_store
from seamhost.cli.terminal import terminal_safe
from seamhost.errors import SeamhostError
from seamhost.run.deferred import pending_approvals


@click.command()
@profile_option("the one whose store holds the sessions")
@click.option("--json", "as_json", is_flag=True, help="One JSON array of the pending approvals.")
def approvals(profile_ref: str, as_json: bool) -> None:
    """List the deferred approvals every stored session waits on.

    A session that cannot be read is named on stderr (it may hide a waiting question), and
    `seamhost session verify` says what is wrong with it.
    """

    def unreadable(session_id: str, exc: SeamhostError) -> None:
        click.echo(
            terminal_safe(
                f"warning: session {session_id} could not be read, so its approvals are not "
                f"listed ({exc}); run `seamhost session verify {session_id}`"
            ),
            err=True,
        )

    found = list(pending_approvals(open_store(None, profile_ref), unreadable))
    if as_json:
        emit_json([p.to_json() for p in found])
        return
    out = console()
    if not found:
        out.print("no approval is waiting")
        return
    now = time.time() * 1000
    for p in found:
        expired = p.decision is None and p.expires is not None and p.expires <= now
        state = (
            f"answered: {p.decision}, resume to continue"
            if p.decision
            else "expired: resuming refuses it"
            if expired
            else "pending"
        )
        waited = age(now - p.deferred_at)
        expiry = (
            f", expires in {age(p.expires - now)}"
            if p.expires and p.decision is None and not expired
            else ""
        )
        out.print(
            f"[bold]{p.session_id}[/bold] {p.approval_id}  {p.tool} {p.arguments[:60]}  "
            f"({state}; waiting {waited}{expiry})\n    {p.reason}",
            highlight=False,
        )


def age(ms: float) -> str:
    """`ms` as the largest whole unit it holds: ``3d``, ``5h``, ``12m``, ``40s``."""
    seconds = max(0, int(ms / 1000))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"
