"""``seamhost chat``: an interactive session with the profile's model, durable as any other.

Each line the person types is a turn; the assistant's text streams as it arrives and the
timeline shows each call, decision and result as it is committed. Approvals are asked at the
terminal by the profile's answerers. Ctrl-C during a turn cancels it safely: calls not yet
dispatched are aborted, started bodies are awaited, the turn ends ``aborted`` and the prompt
returns. At the prompt, ``/exit``, Ctrl-D or a second Ctrl-C leaves; the session id and how to
resume it are printed on the way out.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from seamhost.cli import started
from seamhost.cli.chat.loop import Conversation
from seamhost.cli.chat.view import ChatView
from seamhost.cli.conversation import announce, new_session, require_model
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.limits import limit_option, with_limits
from seamhost.cli.options import (
    accept_changes_option,
    directory_option,
    profile_option,
    resume_option,
)
from seamhost.cli.output import console
from seamhost.cli.run.resuming import conversation_profile, reopen
from seamhost.kernel.bundle import build_bundle
from seamhost.run.agent import Agent
from seamhost.run.usage import session_usage


@click.command()
@profile_option()
@resume_option(
    "Continue the stored session ID (a unique prefix will do) under the profile it "
    "recorded: finish the turn a crash left open (or the turn it parked), then chat on.",
)
@accept_changes_option
@directory_option(
    "--workspace",
    "The directory the tools work in (default: the current directory; with --resume, "
    "the session's own).",
)
@limit_option
def chat(
    *,
    profile_ref: str,
    resume_id: str | None,
    workspace: Path | None,
    accept_changes: bool = False,
    limits: tuple[str, ...] = (),
) -> None:
    """Talk with the profile's model in a durable session; /help lists the commands.

    Exit 0 when left (/exit, Ctrl-D, a second Ctrl-C at the prompt), 2 for usage and
    configuration errors, 4 when a turn parked on a deferred approval.
    """
    if accept_changes and resume_id is None:
        raise click.UsageError("--accept-changes goes with --resume ID")

    profile, resume_id, where = conversation_profile(profile_ref, resume_id, workspace)
    bundle = build_bundle(with_limits(profile, limits), workspace=where)
    started()  # a session allocates garbage: collect it again
    require_model(bundle)
    view = ChatView(console())
    plan = None
    if resume_id is not None:
        session, root, plan = reopen(
            bundle, resume_id, workspace, view, accept_changes=accept_changes
        )
    else:
        session, root = new_session(bundle, workspace)
        announce(view.out, "session", session, bundle, root)
    view.out.print("type a message, or /help; /exit or Ctrl-D leaves")
    session.listen(view)
    agent = Agent(bundle, session, workspace=root)
    agent.on_text = view.text
    conversation = Conversation(agent, view, plan)
    try:
        code = conversation.run(resumed=resume_id is not None)
    finally:
        conversation.close()
        session.close()
    if code is ExitCode.OK and not session.records:
        view.out.print("no message was sent, so no session was stored")
    elif code is ExitCode.OK:
        usage = session_usage(session.records, bundle.profile.pricing)
        for line in usage.lines() if usage.reported else ():  # a scripted model reports none
            view.out.print(line, markup=False, highlight=False)
        view.out.print(
            f"session {session.id}: resume it with `seamhost chat --resume {session.id}`"
        )
    sys.exit(int(code))
