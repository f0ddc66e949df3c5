"""``seamhost approvals``, ``approve`` and ``reject``: answer deferred approvals (design.md §11).

``approvals`` lists what parked sessions wait on; ``approve``/``reject`` answer one question
once (they take the session's writer, so a live writer refuses them), then name the command
that continues the turn, by the session's model (:mod:`seamhost.cli.next_steps`). A question
that is unknown, already answered or expired is refused with exit 2 and nothing is written.
"""

from __future__ import annotations

import getpass
import time

import click

from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.profile_option import profile_option


@click.command()
@profile_option("the one whose store holds the sessions")
@click.option("--json", "as_json", is_flag=True, help="One JSON array of the pending approvals.")
def approvals(profile_ref: str, as_json: bool) -> None:
    """List the deferred approvals every stored session waits on.

    A session that cannot be read is named on stderr (it may hide a waiting question), and
    `seamhost session verify` says what is wrong with it.
    """
    from seamhost.cli.output import console, emit_json
    from seamhost.cli.stores import open_store
    from seamhost.cli.terminal_text import terminal_safe
    from seamhost.errors import SeamhostError
    from seamhost.run.deferred import pending_approvals

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
        age = _age(now - p.deferred_at)
        expiry = (
            f", expires in {_age(p.expires - now)}"
            if p.expires and p.decision is None and not expired
            else ""
        )
        out.print(
            f"[bold]{p.session_id}[/bold] {p.approval_id}  {p.tool} {p.arguments[:60]}  "
            f"({state}; waiting {age}{expiry})\n    {p.reason}",
            highlight=False,
        )


def _decide(
    session_id: str,
    approval_id: str,
    *,
    allow: bool,
    reason: str | None,
    decider: str | None,
    profile_ref: str,
) -> None:
    from seamhost.cli import fail
    from seamhost.cli.lookup import resolve_session
    from seamhost.cli.next_steps import continue_command, model_of
    from seamhost.cli.output import console
    from seamhost.kernel.bundle import build_bundle
    from seamhost.kernel.profile.resolve import resolve_profile
    from seamhost.run.deferred import ApprovalNotOpen, decide

    bundle = build_bundle(resolve_profile(profile_ref))
    session_id = resolve_session(bundle.store, session_id)
    who = decider or getpass.getuser()
    try:
        decide(bundle, session_id, approval_id, allow=allow, decider=who, reason=reason)
    except ApprovalNotOpen as exc:
        fail(exc, ExitCode.USAGE)
    verb = "allowed once" if allow else "rejected"
    # The turn still waits until it is continued, by the command its model needs.
    then = continue_command(session_id, model_of(bundle.store.read(session_id).header))
    console().print(f"{approval_id} {verb} by {who}; continue with `{then}`", highlight=False)


def _options(command: click.Command) -> click.Command:
    for option in (
        profile_option("the one whose store holds the session"),
        click.option("--as", "decider", help="Who decides (default: the current user)."),
        click.option("--reason", help="Why; recorded in the decision."),
        # click lists arguments in the order they are applied: SESSION, then APPROVAL.
        click.argument("session_id", metavar="SESSION"),  # a unique prefix will do
        click.argument("approval_id", metavar="APPROVAL"),
    ):
        command = option(command)
    return command


def _command(allow: bool) -> click.Command:
    def answer(
        session_id: str, approval_id: str, reason: str | None, decider: str | None, profile_ref: str
    ) -> None:
        _decide(
            session_id,
            approval_id,
            allow=allow,
            reason=reason,
            decider=decider,
            profile_ref=profile_ref,
        )

    answer.__doc__ = (
        "Allow a deferred call once, with the exact arguments it was asked for."
        if allow
        else "Reject a deferred call: it ends APPROVAL_REJECTED when the session resumes."
    )
    return _options(click.command(name="approve" if allow else "reject")(answer))


def _age(ms: float) -> str:
    seconds = max(0, int(ms / 1000))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


approve = _command(allow=True)
reject = _command(allow=False)
