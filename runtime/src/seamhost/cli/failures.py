"""How a ``seamhost`` command fails: one line on stderr, a documented exit code, JSON when asked.

Every command that ends with a status other than 0 prints exactly one line on stderr,
``seamhost: error: <message>``, without a traceback, and exits with the
:class:`~seamhost.cli.exitcodes.ExitCode` that says why. When its command line holds ``--json``
it also prints one JSON object, on one line of stdout, after whatever the command printed before
it stopped, shaped as the summary that ends a stream (:mod:`seamhost.cli.summary`)::

    {"outcome": "error", "exit_code": 3, "session": "s1",
     "error": {"code": "corrupt", "exit_code": 3, "message": "...",
               "type": "SessionCorrupted", "details": {"session_id": "s1", ...}}}

``session`` is there when the failure names one. ``code`` is the exit code's name in lower
case, ``exit_code`` its number and ``message`` the line on stderr without its prefix;
``type`` (the class of the error that stopped the command) and ``details`` (its structured
fields, or what the command adds, such as ``run --check``'s mismatches) are there when known.
Click's own usage errors (an unknown option or command, a missing argument, a bad choice or
type) end the same way, naming the command's ``--help``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

import click

from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.terminal import terminal_safe
from seamhost.errors import (
    AmbiguousSessionId,
    BundleChanged,
    ConfigError,
    MissingSeams,
    PluginConflict,
    PluginLoadError,
    PluginNotInstalled,
    ProfileCycle,
    ProfileNotFound,
    SeamContractError,
    SeamhostError,
    SessionDamaged,
    SessionMissing,
    StoreRootMissing,
    UnknownSession,
    describe,
)

JSON_FLAG = "seamhost.json"  # key of click's shared ctx.meta: the command line holds --json

# Nothing was done: the arguments, the profile or its plugins are wrong, or name no session.
USAGE_ERRORS = (
    AmbiguousSessionId,
    BundleChanged,
    ConfigError,
    MissingSeams,
    PluginConflict,
    PluginLoadError,
    PluginNotInstalled,
    ProfileCycle,
    ProfileNotFound,
    SeamContractError,
    SessionMissing,
    StoreRootMissing,
    UnknownSession,
    click.UsageError,
)


def wants_json(args: Sequence[str]) -> bool:
    """Whether a command line asks for JSON: it holds ``--json`` before any ``--``."""
    args = list(args)
    return "--json" in (args[: args.index("--")] if "--" in args else args)


def exit_code_for(exc: BaseException) -> ExitCode:
    """The exit code a command that stopped on `exc` ends with."""
    if isinstance(exc, SessionDamaged):
        return ExitCode.CORRUPT
    if isinstance(exc, USAGE_ERRORS):
        return ExitCode.USAGE
    if isinstance(exc, KeyboardInterrupt):
        return ExitCode.INTERRUPTED
    return ExitCode.FAILURE


def report(
    code: ExitCode,
    message: str,
    *,
    as_json: bool | None = None,
    kind: str | None = None,
    details: Mapping[str, Any] | None = None,
) -> None:
    """Print a failure: its line on stderr, and its JSON object on stdout when JSON was asked.

    `as_json` defaults to whether the command line holds ``--json``.
    """
    # Imported here, not at the top: every command imports this module, and only a failing
    # one should pay for compiling the secret patterns.
    from seamhost.redaction import redact

    # A message may quote what a session holds (a model's error, a tool's output), which may
    # quote a secret: redacted (both outputs), and escaped for the terminal.
    line = redact(" ".join(message.splitlines()))
    click.echo(f"seamhost: error: {terminal_safe(line)}", err=True)
    if as_json is None:
        ctx = click.get_current_context(silent=True)
        as_json = bool(ctx is not None and ctx.meta.get(JSON_FLAG))
    if not as_json:
        return

    error: dict[str, Any] = {"code": code.name.lower(), "exit_code": int(code), "message": line}
    if kind is not None:
        error["type"] = kind
    if details:
        error["details"] = dict(details)
    summary: dict[str, Any] = {"outcome": "error", "exit_code": int(code)}
    session = (details or {}).get("session_id")
    if isinstance(session, str):
        summary["session"] = session
    summary["error"] = error
    # Redacting the JSON text keeps it JSON: what replaces a secret holds no quote or backslash.
    import orjson  # only a failure asked for as JSON: not at every command's start-up

    sys.stdout.write(redact(orjson.dumps(summary, default=str).decode()) + "\n")
    sys.stdout.flush()


def fail(exc: BaseException, code: ExitCode | None = None) -> NoReturn:
    """End the command on `exc`: one line (its chained causes included), its exit code.

    `code` defaults to :func:`exit_code_for` `exc`.
    """
    message = str(exc) or ("interrupted" if isinstance(exc, KeyboardInterrupt) else describe(exc))
    cause = exc.__cause__
    while cause is not None:
        text = describe(cause)
        if text not in message:
            message += f"; caused by {text}"
        cause = cause.__cause__
    code = exit_code_for(exc) if code is None else code
    fields = exc.__match_args__ if isinstance(exc, SeamhostError) else ()
    details = {name: getattr(exc, name) for name in fields}
    report(code, message, kind=type(exc).__name__, details=details)
    sys.exit(int(code))


def fail_click(exc: click.ClickException) -> NoReturn:
    """End the command on one of click's errors, as one line naming the command's ``--help``."""
    message = exc.format_message().strip().rstrip(".")
    message = message[:1].lower() + message[1:]
    ctx = exc.ctx if isinstance(exc, click.UsageError) else None
    if ctx is not None:
        message += f" (see `{command_path(ctx)} --help`)"
    code = ExitCode.USAGE if isinstance(exc, click.UsageError) else ExitCode.FAILURE
    report(code, message, kind=type(exc).__name__)
    sys.exit(int(code))


def command_path(ctx: click.Context) -> str:
    """``seamhost`` and the subcommands that lead to `ctx`, whatever the program was called."""
    names: list[str] = []
    while ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(["seamhost", *reversed(names)])
