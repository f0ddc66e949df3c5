"""``seamhost mcp serve``: the bundle's tools, governed, for any MCP client (docs/design.md).

Standard output carries the protocol on stdio, so everything this command says goes to
standard error. It builds the bundle, opens (or names) the session, and hands both to
:mod:`seamhost.gateway`; ``--http`` serves streamable HTTP instead of stdio.
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
from seamhost.cli.lookup import resolve_session
from seamhost.cli.options import directory_option
from seamhost.cli.serving import bearer_token, door_options, http_limits
from seamhost.gateway.http import Door, parse_bind, serve_http
from seamhost.gateway.limits import HttpLimits
from seamhost.gateway.logs import one_line_logging
from seamhost.gateway.server import Gateway, serve_stdio
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.sessions import create_session, open_session

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.session.live import Session


@click.command("serve")
@click.option(
    "--profile",
    "profile_ref",
    default="default",
    show_default=True,
    help="A shipped profile name or a path to a .toml file.",
)
@directory_option(
    "--workspace",
    "The directory the tools work in (default: the current directory, or the session's).",
)
@click.option(
    "--session",
    "session_ref",
    help="Serve every call into this stored session (a unique prefix will do): repaired first, "
    "shared by every connection. Default: a new session per connection.",
)
@click.option(
    "--http",
    "http",
    metavar="HOST:PORT",
    help="Serve streamable HTTP on HOST:PORT (path /mcp) instead of stdio; port 0 picks one.",
)
@door_options(
    scope="HTTP: ",
    token_note="HTTP; required for any non-loopback bind",
    max_sessions_help="at most N MCP sessions at once; a client that would open one more gets "
    "503 with Retry-After (default 64).",
    idle_timeout_help="end an MCP session after SECONDS without a request in flight or an open "
    "stream, and close a seamhost session after SECONDS without a call (default 600).",
)
def serve(
    *,
    profile_ref: str,
    workspace: Path | None,
    session_ref: str | None,
    http: str | None,
    token_env: str | None,
    origins: tuple[str, ...],
    max_sessions: int | None,
    idle_timeout: float | None,
    request_timeout: float | None,
) -> None:
    """Serve the profile's tools over MCP; every call is governed and recorded in a session.

    Over stdio (the default) the MCP client starts this command and talks on its standard
    input and output. Approvals are asked of the client's user (MCP elicitation) when the
    client supports it, else of the profile's answerers (never the terminal on stdio).
    """
    door = None
    if http is None and (max_sessions, idle_timeout, request_timeout) != (None, None, None):
        raise click.UsageError(
            "--max-sessions, --idle-timeout and --request-timeout apply to --http only"
        )
    limits = http_limits(max_sessions, idle_timeout, request_timeout)
    if http is not None:
        host, port = parse_bind(http)
        token = bearer_token(token_env)
        door = Door(host, port, token, frozenset(origins))
        door.check()
    elif token_env is not None or origins:
        raise click.UsageError("--token-env and --allow-origin apply to --http only")
    if workspace is not None:  # the bundle is built for it: mounted MCP servers list there
        workspace = workspace.resolve()
        workspace.mkdir(parents=True, exist_ok=True)
    bundle = build_bundle(resolve_profile(profile_ref), workspace=workspace)
    started()
    gateway, instructions = _gateway(bundle, workspace, session_ref, stdio=door is None)
    asyncio.run(_serve(gateway, instructions, door, limits))


def _gateway(
    bundle: Bundle, workspace: Path | None, session_ref: str | None, *, stdio: bool
) -> tuple[Gateway, str]:
    approvals = bundle.seams.approval_service() or ApprovalService()
    if stdio:  # standard input carries the protocol: no terminal answerer may read it
        approvals = attrs.evolve(approvals, terminal=False)
    named: Session | None = None
    if session_ref is not None:
        named, _ = open_session(bundle, resolve_session(bundle.store, session_ref))
        root = (workspace or Path(named.header.cwd)).resolve()
    else:
        root = (workspace or Path.cwd()).resolve()
        root.mkdir(parents=True, exist_ok=True)
    if named is not None or stdio:
        session = named if named is not None else create_session(bundle, cwd=str(root))
        gateway = Gateway(bundle, root, approvals, lambda: session, shared=True)
        instructions = (
            f"seamhost governs every call to these tools: the operator's policy decides, "
            f"approvals are asked when needed, and each call is recorded in session "
            f"{session.id} (see `seamhost session show {session.id}`)."
        )
        return gateway, instructions

    gateway = Gateway(
        bundle, root, approvals, lambda: create_session(bundle, cwd=str(root)), shared=False
    )
    instructions = (
        "seamhost governs every call to these tools: the operator's policy decides, approvals "
        "are asked when needed, and each connection's calls are recorded in a session of its "
        "own, whose id every result carries in _meta (seamhost/session)."
    )
    return gateway, instructions


async def _serve(gateway: Gateway, instructions: str, door: object, limits: HttpLimits) -> None:
    """Serve until the client leaves, or until SIGTERM or SIGINT (:func:`_stop`)."""
    one_line_logging()
    await gateway.start()
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Task[None]] = []  # holds the task while it runs

    def stop(signum: int) -> None:
        stopping.append(loop.create_task(_stop(gateway, signum, http=isinstance(door, Door))))

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop, signum)
    if isinstance(door, Door):
        await serve_http(gateway, instructions, door, limits)
    else:
        await serve_stdio(gateway, instructions)


async def _stop(gateway: Gateway, signum: int, *, http: bool = False) -> None:
    """Settle the running calls, flush and close the sessions, then end the process.

    Not by cancelling the server: the SDK's stdin reader is a thread blocked in ``read()``,
    which nothing interrupts, so a cancelled stdio server would wait for the client's next line.
    """
    try:
        await gateway.close()
        if http:
            # The settled calls' answers are written by the HTTP server's own tasks: give them
            # a moment on the loop, so a client is not left with a dropped connection instead.
            await asyncio.sleep(0.25)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(ExitCode.INTERRUPTED if signum == signal.SIGINT else ExitCode.OK)
