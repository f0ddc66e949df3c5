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

from seamhost.cli.limits import limit_option
from seamhost.cli.profile_option import profile_option

if TYPE_CHECKING:
    from seamhost.run.agent import Agent, TurnOutcome


@click.command("exec")
@click.argument("prompt", metavar="PROMPT")
@profile_option()
@click.option(
    "--workspace",
    type=click.Path(file_okay=False, path_type=Path),
    help="The directory the tools work in (default: the current directory).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print each committed event as one envelope per line on stdout, then one line "
    '{"final": ..., "session_id": ..., "reason": ...}, instead of the answer and a transcript.',
)
@limit_option
def exec_(
    *,
    prompt: str,
    profile_ref: str,
    workspace: Path | None,
    as_json: bool,
    limits: tuple[str, ...] = (),
) -> None:
    """Run one turn for PROMPT (`-` reads it from stdin) without asking anyone at the terminal.

    The final answer goes to stdout, the transcript to stderr. Exit 0 when the turn completed,
    1 when it did not (the model or a checkpoint failed, a limit was reached), 2 for usage and
    configuration errors, 4 when it awaits a deferred approval, 130 when interrupted (Ctrl-C).
    """
    from seamhost.cli import started
    from seamhost.cli.conversation import announce, new_session, require_model
    from seamhost.cli.exec_outcome import print_envelope, report_exec
    from seamhost.cli.limits import with_limits
    from seamhost.cli.output import console
    from seamhost.cli.timeline import Timeline
    from seamhost.kernel.bundle import build_bundle
    from seamhost.kernel.profile.resolve import resolve_profile
    from seamhost.run.agent import Agent

    text = sys.stdin.read() if prompt == "-" else prompt
    if not text.strip():
        raise click.UsageError(
            "the PROMPT is empty: give the message for the model, or `-` and pipe it in"
        )
    _detach_stdin()
    bundle = build_bundle(with_limits(resolve_profile(profile_ref), limits))
    started()  # a session allocates garbage: collect it again
    require_model(bundle)
    session, root = new_session(bundle, workspace)
    if as_json:
        session.listen(print_envelope)
    else:
        transcript = Timeline(console(stderr=True))
        announce(transcript.out, "session", session, bundle, root)
        session.listen(transcript)
    agent = Agent(bundle, session, workspace=root)
    try:
        outcome = asyncio.run(_one_turn(agent, text))
    finally:
        session.close()
    sys.exit(
        int(report_exec(session, outcome, interrupted=agent.cancelled.is_set(), as_json=as_json))
    )


def _detach_stdin() -> None:
    """Replace standard input by ``/dev/null``: nothing after the prompt reads the terminal."""
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)


async def _one_turn(agent: Agent, text: str) -> TurnOutcome:
    from seamhost.cli.conversation import flush

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.cancel)
    try:
        outcome = await agent.run_turn(text)
        await flush(agent.session)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    return outcome
