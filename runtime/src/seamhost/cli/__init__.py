"""The ``seamhost`` command line.

Subcommands live in their own modules and are imported only when invoked, so that a quick
command does not pay for the others. Errors seamhost raises on purpose are printed as one line
without a traceback; usage and configuration errors exit with ``ExitCode.USAGE`` (2).
"""

from __future__ import annotations

import gc
import importlib
import sys
from typing import Any

import click

from seamhost.cli.exitcodes import ExitCode
from seamhost.errors import (
    AmbiguousSessionId,
    ConfigError,
    MissingSeams,
    PluginConflict,
    PluginLoadError,
    PluginNotInstalled,
    ProfileCycle,
    ProfileNotFound,
    SeamContractError,
    SeamhostError,
    StoreRootMissing,
    UnknownSession,
)
from seamhost.version import __version__

USAGE_ERRORS = (
    AmbiguousSessionId,
    ConfigError,
    MissingSeams,
    PluginConflict,
    PluginLoadError,
    PluginNotInstalled,
    ProfileCycle,
    ProfileNotFound,
    SeamContractError,
    StoreRootMissing,
    UnknownSession,
)

_SUBCOMMANDS = {
    "plugins": "seamhost.cli.plugins:plugins",
    "profile": "seamhost.cli.profile:profile",
    "session": "seamhost.cli.session:session",
    "run": "seamhost.cli.run:run",
    "doctor": "seamhost.cli.doctor:doctor",
    "approvals": "seamhost.cli.approvals:approvals",
    "approve": "seamhost.cli.approvals:approve",
    "reject": "seamhost.cli.approvals:reject",
}


def fail(exc: BaseException, code: ExitCode) -> None:
    """Print `exc` (and its chained causes) as one error, without a traceback, and exit."""
    message = f"seamhost: error: {exc}"
    cause = exc.__cause__
    while cause is not None:
        text = f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__
        if text not in message:
            message += f"\n  caused by {text}"
        cause = cause.__cause__
    click.echo(message, err=True)
    sys.exit(int(code))


def started() -> None:
    """Resume garbage collection: the command's start-up (imports, bundle) is over.

    What start-up built lives until the process exits, so it is frozen first (`gc.freeze`): no
    later collection walks it again, neither those a session's garbage triggers nor those at
    interpreter exit, which would otherwise scan and tear down every module, class and plugin
    object once more (about 5 ms per command).
    """
    gc.freeze()
    gc.enable()


class SeamhostGroup(click.Group):
    """A group that imports subcommands lazily and turns seamhost errors into exit codes."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # Start-up creates many long-lived objects (modules, classes, plugins, validators) and no
        # garbage: the collector would scan them again and again for nothing (~10 ms per
        # command). It is paused until the command's bundle is built (`started()`), and at most
        # until the command ends.
        gc.disable()
        try:
            return super().main(*args, **kwargs)
        finally:
            gc.enable()

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*_SUBCOMMANDS, *super().list_commands(ctx)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _SUBCOMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = target.partition(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except USAGE_ERRORS as exc:
            fail(exc, ExitCode.USAGE)
        except SeamhostError as exc:
            fail(exc, ExitCode.FAILURE)
        except KeyboardInterrupt:
            click.echo("seamhost: interrupted", err=True)
            sys.exit(int(ExitCode.INTERRUPTED))


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from seamhost.kernel.plugins import discover

    found = discover()
    click.echo(f"seamhost {__version__}")
    for name, plugin in sorted(found.plugins.items()):
        click.echo(f"  {name} {plugin.version} ({plugin.distribution})")
    if not found.plugins:
        click.echo("  no plugins installed")
    ctx.exit(0)


@click.group(cls=SeamhostGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and the installed plugins with theirs, then exit.",
)
def main() -> None:
    """seamhost: governed, durable, recoverable tool calls for AI agents.

    Exit codes: 0 ok; 1 failure; 2 usage or configuration error; 3 corrupted session;
    130 interrupted.
    """
