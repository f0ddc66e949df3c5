"""``seamhost a2a serve``: the profile's agent, governed, for any A2A client (docs/design.md §13).

It builds the bundle, arms the scripted model with ``--scenario`` when given, and hands both to
:mod:`seamhost.a2a`, which serves the A2A JSON-RPC binding over HTTP behind the MCP gateway's
door and limits. Everything it says goes to standard error, one line each.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import click

from seamhost.approval.service import ApprovalService
from seamhost.cli import started
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.options import directory_option
from seamhost.cli.serving import bearer_token, door_options, http_limits
from seamhost.gateway.http import Door, parse_bind
from seamhost.gateway.limits import HttpLimits, speak_as
from seamhost.gateway.logs import one_line_logging
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile

if TYPE_CHECKING:
    from seamhost.a2a.tasks import Tasks

DEFAULT_BIND = "127.0.0.1:8766"
INVALID_REQUEST = -32600  # what the door and the limits answer with (JSON-RPC Invalid Request)


@click.command("serve")
@click.option(
    "--profile",
    "profile_ref",
    default="default",
    show_default=True,
    help="A shipped profile name or a path to a .toml file.",
)
@click.option(
    "--scenario",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A scenario the profile's scripted model replays: each task starts from its turn 1.",
)
@directory_option(
    "--workspace", "The directory the tasks' tools work in (default: the current directory)."
)
@click.option(
    "--http",
    "http",
    default=DEFAULT_BIND,
    show_default=True,
    metavar="HOST:PORT",
    help="Serve A2A (JSON-RPC over HTTP, path /) on HOST:PORT; port 0 picks one.",
)
@door_options(
    scope="",
    token_note="required for any non-loopback bind; the Agent Card declares it",
    max_sessions_help="At most N tasks running at once; one more is rejected, nothing recorded "
    "(default 64).",
    idle_timeout_help="Forget the SDK's state of a task waiting for input after SECONDS (its "
    "session stays stored, parked; default 600).",
)
def serve(
    *,
    profile_ref: str,
    scenario: Path | None,
    workspace: Path | None,
    http: str,
    token_env: str | None,
    origins: tuple[str, ...],
    max_sessions: int | None,
    idle_timeout: float | None,
    request_timeout: float | None,
) -> None:
    """Serve the profile's agent over A2A; each task is a governed, durable session.

    Each task's session id is its task id (`seamhost session show TASK`). A deferred approval
    makes the task input-required: the operator answers it with `seamhost approve` or
    `seamhost reject`, and a follow-up message on the task continues it.
    """
    limits = http_limits(max_sessions, idle_timeout, request_timeout)
    host, port = parse_bind(http)
    token = bearer_token(token_env)
    # The options are good: the SDK's import (seconds of CPU) is worth paying now.
    from seamhost.a2a.server import CARD_PATH
    from seamhost.a2a.tasks import Tasks

    door = Door(host, port, token, frozenset(origins), frozenset({CARD_PATH}))
    door.check()
    root = (workspace or Path.cwd()).resolve()
    root.mkdir(parents=True, exist_ok=True)
    bundle = build_bundle(resolve_profile(profile_ref), workspace=root)
    if scenario is not None:
        # Armed before any session is created, so that each header records the scenario;
        # session turn 1 is scripted turn 1 in every task (model-scripted's `first_turn`).
        script = bundle.seams.llm_replay(scenario.resolve(), 1)
        for name, content in script.workspace.items():
            target = root / name
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(content, encoding="utf-8")
    # No terminal answerer: a server's questions are answered by the profile's rules, or
    # deferred for `seamhost approve`; whoever watches its terminal is not asked.
    approvals = attrs.evolve(bundle.seams.approval_service() or ApprovalService(), terminal=False)
    tasks = Tasks(bundle, root, approvals, limits.max_sessions)
    started()
    asyncio.run(_serve(tasks, door, limits))


async def _serve(tasks: Tasks, door: Door, limits: HttpLimits) -> None:
    """Serve until SIGTERM or SIGINT, then let the running turns settle and end."""
    from seamhost.a2a.server import serve as serve_a2a

    speak_as("seamhost a2a serve", INVALID_REQUEST)
    one_line_logging()
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []  # holds the task while it runs

    def stop(signum: int) -> None:
        stopping.append(loop.create_task(_stop(tasks, signum)))

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop, signum)
    await serve_a2a(tasks, door, limits)


async def _stop(tasks: Tasks, signum: int) -> None:
    """Cancel the running turns by the run's cancel path, wait for them, then end."""
    try:
        running = list(tasks.running.values())
        for run in running:
            run.cancel()
        for run in running:
            await run.done.wait()
        await asyncio.sleep(0.25)  # the last updates are written by the server's own tasks
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(ExitCode.INTERRUPTED if signum == signal.SIGINT else ExitCode.OK)
