"""``seamhost run``: drive an agent session through the governed pipeline, live and durable."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from seamhost.exitcodes import ExitCode

if TYPE_CHECKING:
    from seamhost.agent import Agent, TurnOutcome
    from seamhost.scenario import Scenario
    from seamhost.session.record import Record
    from seamhost.session.session import Session

SCRIPTED_MODEL = "model-scripted"


@click.command()
@click.argument(
    "scenario_path", metavar="SCENARIO", type=click.Path(dir_okay=False, path_type=Path)
)
@click.option(
    "--profile",
    "profile_ref",
    default="default",
    show_default=True,
    help="A shipped profile name or a path to a .toml file.",
)
@click.option("--session", "session_id", help="Session id to create (default: a new unique id).")
@click.option(
    "--workspace",
    type=click.Path(file_okay=False, path_type=Path),
    help="The workspace the tools work in (default: a new temporary directory).",
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
def run(
    *,
    scenario_path: Path,
    profile_ref: str,
    session_id: str | None,
    workspace: Path | None,
    as_json: bool,
    approval_policy: str | None,
    check: bool,
) -> None:
    """Run SCENARIO (a scripted conversation, TOML or JSON) as an agent session.

    Every call goes through the governed pipeline; the session is durable in the profile's store.
    Exit 0 when the session ran to its end (refused calls are normal outcomes), 1 when a turn
    failed or --check found a mismatch, 2 for usage and configuration errors.
    """
    from seamhost.agent import Agent
    from seamhost.bundle import build_bundle
    from seamhost.cli.output import console
    from seamhost.cli.transcript import Transcript
    from seamhost.errors import ConfigError
    from seamhost.profile import resolve_profile
    from seamhost.scenario import load_scenario
    from seamhost.sessions import create_session

    scenario = load_scenario(scenario_path)
    profile = resolve_profile(
        profile_ref, overrides={SCRIPTED_MODEL: {"scenario": str(scenario_path.resolve())}}
    )
    bundle = build_bundle(profile)
    if not bundle.seams.has("llm/adapter"):
        raise ConfigError(
            str(profile.path),
            "plugins",
            f"no plugin provides llm/adapter; add [plugins.{SCRIPTED_MODEL}]",
        )
    root = (workspace or Path(tempfile.mkdtemp(prefix="seamhost-workspace-"))).resolve()
    root.mkdir(parents=True, exist_ok=True)
    for name, content in scenario.workspace.items():
        target = root / name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
    session = create_session(bundle, session_id=session_id, cwd=str(root))
    out = console()
    err = console(stderr=True)
    if as_json:
        session.listen(_print_envelope)
    else:
        out.print(
            f"[bold]session[/bold] {session.id}  profile {profile.name}  "
            f"store {bundle.store.name}  workspace {root}"
        )
        session.listen(Transcript(out))
    if approval_policy is not None:
        from seamhost.approvals import set_policy

        set_policy(session, approval_policy, "command line")
    agent = Agent(bundle, session, workspace=root)
    try:
        outcomes = asyncio.run(_drive(agent, scenario))
    finally:
        session.close()
    failed = [o for o in outcomes if o.reason != "completed"]
    mismatches = _mismatches(scenario, session, profile.name, agent) if check else []
    for line in mismatches:
        err.print(f"[red]expectation not met[/red]: {line}")
    if not as_json:
        out.print(
            f"session {session.id}: {len(outcomes)} turn(s), "
            f"{'all completed' if not failed else f'{len(failed)} did not complete'}"
        )
        out.print(f"show it with: seamhost session show {session.id}")
    if failed or mismatches:
        sys.exit(int(ExitCode.FAILURE))


def _print_envelope(record: Record) -> None:
    sys.stdout.write(record.envelope().decode() + "\n")


async def _drive(agent: Agent, scenario: Scenario) -> list[TurnOutcome]:
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.cancel)
    outcomes: list[TurnOutcome] = []
    try:
        for turn in scenario.turns:
            outcome = await agent.run_turn(turn.user)
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


def _mismatches(scenario: Scenario, session: Session, profile: str, agent: Agent) -> list[str]:
    """Each scripted call whose outcome differs from what the scenario expects under `profile`."""
    outcomes = {
        r.data["call_id"]: (r.data.get("error") or {}).get("code", "ok")
        for r in session.records
        if r.type == "tool/result"
    }
    first_turn = agent.turn - len(scenario.turns) + 1
    problems = []
    for t, turn in enumerate(scenario.turns):
        for s, step in enumerate(turn.steps, start=1):
            for n, call in enumerate(step.calls, start=1):
                expected = call.expected(profile)
                if expected is None:
                    continue
                call_id = call.call_id(first_turn + t, s, n)
                got = outcomes.get(call_id, "not run")
                if got != expected:
                    problems.append(f"{call_id} ({call.tool}): expected {expected}, got {got}")
    return problems
