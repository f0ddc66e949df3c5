"""``seamhost run``: drive an agent session through the governed pipeline, live and durable."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from seamhost.cli.limits import limit_option, with_limits
from seamhost.cli.lookup import resolve_session
from seamhost.cli.profile_option import profile_option

if TYPE_CHECKING:
    from seamhost.cli.timeline import Timeline
    from seamhost.kernel.bundle import Bundle
    from seamhost.llm.replay import Script
    from seamhost.run.agent import Agent, TurnOutcome
    from seamhost.session.live import Session
    from seamhost.session.record import Record

# Workspaces `run` makes for itself; one is removed when the run (or the resume that finishes
# its session) ends, unless --keep-workspace, and kept while its session is parked.
WORKSPACE_PREFIX = "seamhost-workspace-"


def is_temporary_workspace(path: Path) -> bool:
    """`path` is a workspace `run` made in the temporary directory (by its name and place)."""
    return (
        path.name.startswith(WORKSPACE_PREFIX)
        and path.parent == Path(tempfile.gettempdir()).resolve()
    )


@click.command()
@click.argument(
    "scenario_path",
    metavar="[SCENARIO]",
    required=False,
    type=click.Path(dir_okay=False, path_type=Path),
)
@profile_option()
@click.option("--session", "session_id", help="Session id to create (default: a new unique id).")
@click.option(
    "--resume",
    "resume_id",
    metavar="ID",
    help="Open the stored session ID instead of creating one: repair its crashed tail (shown), "
    "or continue the turn it parked on a deferred approval once that was answered; then run "
    "SCENARIO's remaining turns. Without SCENARIO, only repair, or continue with the model the "
    "profile configures (the scripted model needs the SCENARIO again).",
)
@click.option(
    "--workspace",
    type=click.Path(file_okay=False, path_type=Path),
    help="The workspace the tools work in (default: a new temporary directory; with --resume, "
    "the session's own).",
)
@click.option(
    "--keep-workspace",
    is_flag=True,
    help="Keep the temporary workspace a run without --workspace creates (it is removed when "
    "the run ends, unless the run parks on a deferred approval).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print each committed event as one envelope per line instead of a transcript.",
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
    limits: tuple[str, ...] = (),
) -> None:
    """Run SCENARIO (a scripted conversation, TOML or JSON) as an agent session.

    Every call goes through the governed pipeline; the session is durable in the profile's store.
    Exit 0 when the session ran to its end (refused calls are normal outcomes), 1 when a turn
    failed or --check found a mismatch, 2 for usage and configuration errors, 4 when the run
    stopped at a deferred approval (answer it with `seamhost approve` or `reject`, then resume).
    """

    from seamhost.cli import started
    from seamhost.cli.output import console
    from seamhost.cli.run_outcome import mismatches_of, report_run
    from seamhost.cli.timeline import Timeline
    from seamhost.kernel.bundle import build_bundle
    from seamhost.kernel.profile.resolve import resolve_profile
    from seamhost.run.agent import Agent
    from seamhost.run.sessions import create_session

    if scenario_path is None and resume_id is None:
        raise click.UsageError("give a SCENARIO to run, or --resume ID")
    if resume_id is not None and session_id is not None:
        raise click.UsageError("--session names a new session; --resume an existing one")
    profile = with_limits(resolve_profile(profile_ref), limits)
    bundle = build_bundle(profile)
    started()  # a session allocates garbage: collect it again
    scenario = _replay(bundle, scenario_path) if scenario_path is not None else None
    out = console()
    transcript = Timeline(out)
    if resume_id is not None:
        resume_id = resolve_session(bundle.store, resume_id)
        session, root = _resume(bundle, resume_id, workspace, transcript, quiet=as_json)
        if scenario_path is not None:
            scenario = _replay_after(bundle, scenario_path, session) or scenario
    else:
        root = (workspace or Path(tempfile.mkdtemp(prefix=WORKSPACE_PREFIX))).resolve()
        session = create_session(bundle, session_id=session_id, cwd=str(root))
        if not as_json:
            out.print(
                f"[bold]session[/bold] {session.id}  profile {profile.name}  "
                f"store {bundle.store.name}  workspace {root}"
            )
    _seed(root, scenario)
    session.listen(_print_envelope if as_json else transcript)
    if approval_policy is not None:
        from seamhost.approval.service import set_policy

        set_policy(session, approval_policy, "command line")
    agent = Agent(bundle, session, workspace=root)
    outcomes: list[TurnOutcome] = []
    try:
        outcomes = asyncio.run(_drive(agent, scenario, resume=resume_id is not None))
    finally:
        session.close()
        temporary = workspace is None and is_temporary_workspace(root)
        parked = bool(outcomes) and outcomes[-1].reason == "suspended"
        if temporary and (keep_workspace or parked):
            console(stderr=True).print(f"workspace kept: {root}", highlight=False)
        elif temporary:
            shutil.rmtree(root, ignore_errors=True)
    mismatches = mismatches_of(scenario, session, profile.name, agent) if check and scenario else []
    ended = report_run(
        out, session.id, outcomes, mismatches, interrupted=agent.cancelled.is_set(), quiet=as_json
    )
    sys.exit(int(ended))


def _replay_after(bundle: Bundle, path: Path, session: Session) -> Script | None:
    """Re-arm the replay for a session resumed after a crash; ``None`` for a parked one.

    After a crash the scenario's turns run as new turns, so its first answers the next one; a
    parked turn continues the scenario where it stopped (its first turn answers turn 1).
    """
    from seamhost.session.suspension import find_suspension

    if find_suspension(session.records) is not None:
        return None
    last = session.last("turn/start")  # turns are numbered 1, 2, ... as the agent starts them
    return _replay(bundle, path, int(last.data["turn"]) + 1 if last is not None else 1)


def _replay(bundle: Bundle, path: Path, first_turn: int = 1) -> Script:
    """The script of `path`, loaded by the plugin that replays scenarios (``llm/replay``)."""
    from seamhost.errors import ConfigError

    if not bundle.seams.has("llm/replay"):
        raise ConfigError(
            str(bundle.profile.path),
            "plugins",
            "no plugin replays a scenario (none provides llm/replay); "
            "add one that does, such as [plugins.model-scripted]",
        )
    return bundle.seams.llm_replay(path.resolve(), first_turn)


def _resume(
    bundle: Bundle, session_id: str, workspace: Path | None, transcript: Timeline, *, quiet: bool
) -> tuple[Session, Path]:
    """Open (and repair) a stored session, showing what repair closed."""
    from seamhost.run.sessions import open_session

    session, plan = open_session(bundle, session_id)
    # Results of the resumed turn show their tools' names; its calls are at or after the resume
    # snapshot's window (docs/design.md, "Resume snapshots"), so no more of the log is read.
    start = session.resumed.window_start if session.resumed is not None else 0
    for record in session.records[start:]:
        if record.type == "tool/call":
            transcript.calls[str(record.data["call_id"])] = str(record.data["name"])
    root = (workspace or Path(session.header.cwd)).resolve()
    if not quiet:
        out = transcript.out
        out.print(
            f"[bold]resumed[/bold] {session.id}  profile {bundle.profile.name}  workspace {root}"
        )
        if plan is None:
            from seamhost.session.suspension import find_suspension

            parked = find_suspension(session.records)
            out.print(
                f"  the last turn is parked on approval {parked.approval_id}"
                if parked is not None
                else "  nothing to repair: the last turn was closed"
            )
        else:
            for record in session.records[len(session.records) - len(plan.events) :]:
                transcript(record)
    changes = _identity_changes(session.header.bundle, bundle.snapshot.to_json())
    if changes:
        transcript.out.print(
            f"[yellow]note[/yellow]: the session continues with other plugins or tools than "
            f"wrote it: {'; '.join(changes)}",
            highlight=False,
        )
    return session, root


def _identity_changes(then: Any, now: Any) -> list[str]:
    """Plugins (name, distribution, version) and tool descriptors that differ between bundles."""

    def plugins(snapshot: Any) -> set[str]:
        return {
            f"{p['name']} {p['version']} ({p['distribution']})" for p in snapshot.get("plugins", ())
        }

    def tools(snapshot: Any) -> set[str]:
        return {f"tool {t['name']} {t['digest'][:19]}" for t in snapshot.get("tools", ())}

    changes = []
    for kind in (plugins, tools):
        gone, new = kind(then) - kind(now), kind(now) - kind(then)
        changes += [f"-{item}" for item in sorted(gone)] + [f"+{item}" for item in sorted(new)]
    return changes


def _seed(root: Path, scenario: Script | None) -> None:
    """Create the workspace and the scenario's files that are not there yet."""
    root.mkdir(parents=True, exist_ok=True)
    for name, content in scenario.workspace.items() if scenario is not None else ():
        target = root / name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")


def _print_envelope(record: Record) -> None:
    sys.stdout.write(record.envelope().decode() + "\n")


async def _drive(agent: Agent, scenario: Script | None, *, resume: bool) -> list[TurnOutcome]:
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.cancel)
    outcomes: list[TurnOutcome] = []
    messages = list(scenario.user_messages) if scenario is not None else []
    try:
        if resume:  # design.md §10: what the tools can tell is known before the next step
            from seamhost.run.probing import probe_unknowns

            await probe_unknowns(
                agent.bundle, agent.session, agent.workspace, cancelled=agent.cancelled
            )
        resumed = await agent.resume() if resume else None
        if resumed is not None:  # the parked turn came first; the scenario's later turns follow
            outcomes.append(resumed)
            messages = messages[resumed.turn :]
        for message in messages:
            if outcomes and outcomes[-1].reason == "suspended":
                break
            outcome = await agent.run_turn(message)
            outcomes.append(outcome)
            if agent.cancelled.is_set():
                break
        await _final_flush(agent.session)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    return outcomes


async def _final_flush(session: Session) -> None:
    from seamhost.errors import SeamUnavailable

    with contextlib.suppress(SeamUnavailable):  # memory-only sessions have nothing to flush
        await session.flush()
