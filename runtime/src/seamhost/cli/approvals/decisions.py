"""``seamhost approve`` and ``reject``: answer a deferred approval (design.md §11).

Each answers one question once (it takes the session's writer, so a live writer refuses it),
then names the command that continues the turn, by the session's model
(:mod:`seamhost.cli.next_steps`). A question that is unknown, already answered or expired is
refused with exit 2 and nothing is written.
"""

from __future__ import annotations

import getpass

import click

from seamhost.cli import fail
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.lookup import resolve_session
from seamhost.cli.next_steps import continue_command, model_of
from seamhost.cli.options import profile_option
from seamhost.cli.output import console
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.deferred import ApprovalNotOpen, decide


def _decide(
    session_id: str,
    approval_id: str,
    *,
    allow: bool,
    reason: str | None,
    decider: str | None,
    profile_ref: str,
) -> None:
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


approve = _command(allow=True)
reject = _command(allow=False)
