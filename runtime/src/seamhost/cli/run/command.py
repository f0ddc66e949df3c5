"""``seamhost run``: drive an agent session through the governed pipeline, live and durable."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from seamhost.approval.service import set_policy
from seamhost.cli import started
from seamhost.cli.limits import limit_option, with_limits
from seamhost.cli.options import (
    accept_changes_option,
    directory_option,
    keep_option,
    profile_option,
    resume_option,
)
from seamhost.cli.output import console
from seamhost.cli.run.outcome import mismatches_of, report_run
from seamhost.cli.run.resuming import profile_given, reopen, resume_profile
from seamhost.cli.timeline import Timeline
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from seamhost.run.scripts import (
    discard_workspace,
    is_temporary_workspace,
    replay,
    seed,
    temporary_workspace,
)
from seamhost.run.sessions import create_session
from seamhost.run.turns import PARKED, drive

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.llm.replay import Script
    from seamhost.run.agent import TurnOutcome
    from seamhost.session.continuation import ContinuationPlan
    from seamhost.session.record import Record


@click.command()
@click.argument(
    "scenario_path",
    metavar="[SCENARIO]",
    required=False,
    type=click.Path(dir_okay=False, path_type=Path),
)
@profile_option()
@click.option("--session", "session_id", help="Session id to create (default: a new unique id).")
@resume_option(
    "Continue the stored session ID (a unique prefix will do) under the profile it "
    "recorded: its open turn goes on where a crash left it (calls never started are governed "
    "and dispatched once, calls in flight are reported unknown), or where it parked; session "
    "turn k is SCENARIO's turn k, and SCENARIO's later turns run after. Without SCENARIO, the "
    "open turn continues with the profile's model; a finished session is left as it is.",
)
@accept_changes_option
@directory_option(
    "--workspace",
    "The workspace the tools work in (default: a new temporary directory; with --resume, "
    "the session's own).",
)
@keep_option(
    "--keep-workspace",
    "Keep the temporary workspace a run without --workspace creates (it is removed when "
    "the run ends, unless the run parks on a deferred approval).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON Lines instead of a transcript: each committed event as one envelope, "
    'then one summary {"outcome", "exit_code", "session", "turns", ...}.',
)
@click.option(
    "--approval-policy",
    type=click.Choice(["ask", "never"]),
    help="Record this approval policy for the session (source: command line); "
    "`never` refuses every call that would ask, before any answerer runs.",
)
@click.option(
    "--check",
    is_flag=True,
    help="Compare each call's outcome with the scenario's `expect` for this profile; "
    "exit 1 on any mismatch.",
)
@limit_option
def run(
    *,
    scenario_path: Path | None,
    profile_ref: str,
    session_id: str | None,
    resume_id: str | None,
    workspace: Path | None,
    keep_workspace: bool,
    as_json: bool,
    approval_policy: str | None,
    check: bool,
    accept_changes: bool = False,
    limits: tuple[str, ...] = (),
) -> None:
    """Run SCENARIO (a scripted conversation, TOML or JSON) as an agent session.

    Every call goes through the governed pipeline; the session is durable in the profile's store.
    Exit 0 when the session ran to its end (refused calls are normal outcomes), 1 when a turn
    failed or --check found a mismatch, 2 for usage and configuration errors, 4 when the run
    stopped at a deferred approval (answer it with `seamhost approve` or `reject`, then resume).
    """

    if scenario_path is None and resume_id is None:
        raise click.UsageError("give a SCENARIO to run, or --resume ID")
    if resume_id is not None and session_id is not None:
        raise click.UsageError("--session names a new session; --resume an existing one")
    if accept_changes and resume_id is None:
        raise click.UsageError("--accept-changes goes with --resume ID")
    bundle, resume_id, root = _bundle(profile_ref, resume_id, limits, workspace)
    profile = bundle.profile
    try:
        # Session turn k is scripted turn k, on a resume too (the model's identity names it).
        scenario = replay(bundle, scenario_path) if scenario_path is not None else None
    except BaseException:
        _discard(root, workspace, resume_id)
        raise
    out = console()
    transcript = Timeline(out)
    plan = None
    if resume_id is not None:
        session, root, plan = reopen(
            bundle, resume_id, root, transcript, accept_changes=accept_changes, quiet=as_json
        )
    else:
        session = create_session(bundle, session_id=session_id, cwd=str(root))
        if not as_json:
            out.print(
                f"[bold]session[/bold] {session.id}  profile {profile.name}  "
                f"store {bundle.store.name}  workspace {root}"
            )
    seed(root, scenario)
    session.listen(_print_envelope if as_json else transcript)
    if approval_policy is not None:
        set_policy(session, approval_policy, "command line")
    agent = Agent(bundle, session, workspace=root)
    outcomes: list[TurnOutcome] = []
    try:
        outcomes = asyncio.run(_drive(agent, scenario, resume=resume_id is not None, plan=plan))
    finally:
        session.close()
        temporary = workspace is None and is_temporary_workspace(root)
        parked = bool(outcomes) and outcomes[-1].reason in PARKED
        if temporary and (keep_workspace or parked):
            console(stderr=True).print(f"workspace kept: {root}", highlight=False)
        elif temporary:
            discard_workspace(root)
    mismatches = mismatches_of(scenario, session, profile.name, agent) if check and scenario else []
    ended = report_run(
        out,
        session,
        outcomes,
        mismatches,
        interrupted=agent.cancelled.is_set(),
        quiet=as_json,
        pricing=profile.pricing,
    )
    sys.exit(int(ended))


def _bundle(
    profile_ref: str, resume_id: str | None, limits: tuple[str, ...], workspace: Path | None
) -> tuple[Bundle, str | None, Path]:
    """The bundle to run with, the full id of the session to resume (if any), and the workspace.

    A resume runs under the profile its session recorded unless --profile is given
    (:mod:`seamhost.cli.run.resuming`), in `workspace` or the session's own. A new session runs in
    `workspace`, else in a new temporary directory, made before the bundle is built: the bundle
    is built for it (mounted MCP servers are listed there), and it is removed again when the
    build fails.
    """
    if resume_id is not None:
        resolved, resume_id, root = resume_profile(
            profile_ref, resume_id, explicit=profile_given(), workspace=workspace
        )
    else:
        resolved = resolve_profile(profile_ref)
        root = workspace.resolve() if workspace is not None else temporary_workspace()
    root.mkdir(parents=True, exist_ok=True)  # made anyway when seeded; the bundle needs it now
    try:
        bundle = build_bundle(with_limits(resolved, limits), workspace=root)
    except BaseException:
        _discard(root, workspace, resume_id)
        raise
    started()  # a session allocates garbage: collect it again
    return bundle, resume_id, root


def _discard(root: Path, workspace: Path | None, resume_id: str | None) -> None:
    """Remove the temporary workspace made for a new session that never started."""
    if workspace is None and resume_id is None:
        discard_workspace(root)


def _print_envelope(record: Record) -> None:
    sys.stdout.write(record.envelope().decode() + "\n")


async def _drive(
    agent: Agent, scenario: Script | None, *, resume: bool, plan: ContinuationPlan | None
) -> list[TurnOutcome]:
    """The session's turns (:func:`seamhost.run.turns.drive`), Ctrl-C cancelling the running one."""
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.cancel)
    # Session turn k is the scenario's turn k: only turns after the session's last one are new.
    messages = list(scenario.user_messages)[agent.turn :] if scenario is not None else []
    try:
        return await drive(agent, messages, resume=resume, plan=plan)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
