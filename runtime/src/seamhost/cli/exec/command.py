"""``seamhost exec``: one headless turn; the answer on stdout, the transcript on stderr.

Headless means nobody is asked at the terminal: standard input is read for the prompt (``-``)
or not at all, and is then replaced by ``/dev/null``, so the ``tty`` answerer finds no
terminal (it asks only when standard input is one). Approvals are answered by the profile's
rules, or deferred (the turn parks, exit 4), or end ``unavailable``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from seamhost.cli import started
from seamhost.cli.conversation import announce, flush, new_session, require_model
from seamhost.cli.exec.outcome import print_envelope, report_exec
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
from seamhost.cli.summary import emit_summary
from seamhost.cli.timeline import Timeline
from seamhost.kernel.bundle import build_bundle
from seamhost.run.agent import Agent

if TYPE_CHECKING:
    from seamhost.run.agent import TurnOutcome
    from seamhost.session.continuation import ContinuationPlan


@click.command("exec")
@click.argument("prompt", metavar="[PROMPT]", required=False)
@profile_option()
@resume_option(
    "Continue the stored session ID (a unique prefix will do) under the profile it "
    "recorded: its open turn goes on where a crash left it, or where it parked; then PROMPT, "
    "if given, is a new turn. Without an open turn and without PROMPT, nothing is done.",
)
@accept_changes_option
@directory_option(
    "--workspace",
    "The directory the tools work in (default: the current directory).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON Lines on stdout instead of the answer and a transcript: each committed "
    'event as one envelope, then one summary {"outcome", "exit_code", "session", "final", ...}.',
)
@limit_option
def exec_(
    *,
    prompt: str | None,
    profile_ref: str,
    resume_id: str | None,
    workspace: Path | None,
    as_json: bool,
    accept_changes: bool = False,
    limits: tuple[str, ...] = (),
) -> None:
    """Run one turn for PROMPT (`-` reads it from stdin) without asking anyone at the terminal.

    With --resume ID, first finish the open turn of that session (design.md §6).
    The final answer goes to stdout, the transcript to stderr. Exit 0 when the turn completed,
    1 when it did not (the model or a checkpoint failed, a limit was reached), 2 for usage and
    configuration errors, 4 when it parked (on a deferred approval or a reconciliation), 130
    when interrupted (Ctrl-C).
    """
    if prompt is None and resume_id is None:
        raise click.UsageError("give a PROMPT, or --resume ID")
    if accept_changes and resume_id is None:
        raise click.UsageError("--accept-changes goes with --resume ID")
    text = sys.stdin.read() if prompt == "-" else prompt
    if text is not None and not text.strip():
        raise click.UsageError(
            "the PROMPT is empty: give the message for the model, or `-` and pipe it in"
        )
    _detach_stdin()
    plan = None

    profile, resume_id, where = conversation_profile(profile_ref, resume_id, workspace)
    bundle = build_bundle(with_limits(profile, limits), workspace=where)
    started()  # a session allocates garbage: collect it again
    require_model(bundle)
    transcript = Timeline(console(stderr=True))
    if resume_id is not None:
        session, root, plan = reopen(
            bundle, resume_id, workspace, transcript, accept_changes=accept_changes, quiet=as_json
        )
    else:
        session, root = new_session(bundle, workspace)
        if not as_json:
            announce(transcript.out, "session", session, bundle, root)
    session.listen(print_envelope if as_json else transcript)
    agent = Agent(bundle, session, workspace=root)
    try:
        outcome = asyncio.run(_one_turn(agent, text, resume=resume_id is not None, plan=plan))
    finally:
        session.close()
    if outcome is None:  # resumed, nothing open, no prompt: said so, nothing done
        if as_json:  # a stream ends in its summary all the same
            emit_summary(ExitCode.OK, session.id, None, {"final": None, "reason": None})
        sys.exit(int(ExitCode.OK))
    interrupted = agent.cancelled.is_set()
    pricing = bundle.profile.pricing
    ended = report_exec(session, outcome, interrupted=interrupted, as_json=as_json, pricing=pricing)
    sys.exit(int(ended))


def _detach_stdin() -> None:
    """Replace standard input by ``/dev/null``: nothing after the prompt reads the terminal."""
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)


async def _one_turn(
    agent: Agent, text: str | None, *, resume: bool, plan: ContinuationPlan | None
) -> TurnOutcome | None:
    """The open turn continued (with `resume`), then `text` as a new turn unless that parked."""
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.cancel)
    try:
        outcome = await agent.continue_turn(plan) if resume else None
        parked = outcome is not None and outcome.reason in ("suspended", "parked")
        if text is not None and not parked and not agent.cancelled.is_set():
            outcome = await agent.run_turn(text)
        await flush(agent.session)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    return outcome
