"""What the two HTTP servers (``mcp serve --http`` and ``a2a serve``) share: the door's options,
spelled once, and their reading into a bearer token and :class:`HttpLimits` (design.md §13).

Each server says in its help what a session and an idle one are for it (an MCP session, an A2A
task); the names, types and checks are the same everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import attrs
import click

from seamhost.gateway.limits import HttpLimits

F = TypeVar("F", bound=Callable[..., Any])


def door_options(
    *, scope: str, token_note: str, max_sessions_help: str, idle_timeout_help: str
) -> Callable[[F], F]:
    """``--token-env``, ``--allow-origin``, ``--max-sessions``, ``--idle-timeout`` and
    ``--request-timeout``. `scope` begins the limits' help (``"HTTP: "`` where the server may
    also speak stdio), `token_note` ends ``--token-env``'s."""
    repeatable = "HTTP; repeatable" if scope else "repeatable"
    options = [
        click.option(
            "--token-env",
            metavar="NAME",
            help="Require `Authorization: Bearer <token>` with the token from environment "
            f"variable NAME ({token_note}).",
        ),
        click.option(
            "--allow-origin",
            "origins",
            multiple=True,
            metavar="ORIGIN",
            help=f"Accept browser requests from ORIGIN too ({repeatable}). Loopback origins are "
            "always accepted; any other Origin is refused.",
        ),
        click.option(
            "--max-sessions",
            type=click.IntRange(min=1),
            metavar="N",
            help=f"{scope}{max_sessions_help} Connections are capped at 2N+16.",
        ),
        click.option(
            "--idle-timeout",
            type=click.FloatRange(min=0, min_open=True),
            metavar="SECONDS",
            help=f"{scope}{idle_timeout_help}",
        ),
        click.option(
            "--request-timeout",
            type=click.FloatRange(min=0, min_open=True),
            metavar="SECONDS",
            help=f"{scope}{'a' if scope else 'A'} request's headers, then its body, must each "
            "arrive within SECONDS, or it gets 408 and the connection is closed (default 30).",
        ),
    ]

    def apply(command: F) -> F:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


def http_limits(
    max_sessions: int | None, idle_timeout: float | None, request_timeout: float | None
) -> HttpLimits:
    """The defaults, with what the command line changed."""
    limits = HttpLimits()
    if max_sessions is not None:
        limits = attrs.evolve(limits, max_sessions=max_sessions)
    if idle_timeout is not None:
        limits = attrs.evolve(limits, idle_timeout=idle_timeout)
    if request_timeout is not None:
        limits = attrs.evolve(limits, request_timeout=request_timeout)
    return limits


def bearer_token(token_env: str | None) -> str | None:
    """The token ``--token-env NAME`` names, or ``None`` without the option; a usage error when
    the variable is unset or empty (an open door is never the result of a typo)."""
    if token_env is None:
        return None
    token = os.environ.get(token_env)
    if not token:
        raise click.UsageError(f"--token-env {token_env}: the variable is unset or empty")
    return token
