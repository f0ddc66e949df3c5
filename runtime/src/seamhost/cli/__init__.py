"""The ``seamhost`` command line.

Subcommands live in their own packages, one per command group, and are imported only when
invoked (:mod:`seamhost.cli.lazy_group`), so that a quick command does not pay for the others.
Errors seamhost raises on purpose, and click's usage errors, end every command alike
(:mod:`seamhost.cli.failures`): one line on stderr without a traceback, the documented exit
code, and a JSON object on stdout when ``--json`` was given.
"""

from __future__ import annotations

import gc
from typing import Any

import click

from seamhost.cli.failures import JSON_FLAG, fail_click, wants_json
from seamhost.cli.failures import fail as fail  # re-exported: commands end on errors with it
from seamhost.cli.lazy_group import Lazy, LazyGroup
from seamhost.cli.output import emit_json
from seamhost.errors import SeamhostError
from seamhost.version import __version__

_SUBCOMMANDS = {
    "a2a": Lazy(
        "seamhost.cli.a2a:a2a",
        "The Agent2Agent protocol: serve the profile's agent; pin the agents it delegates to.",
    ),
    "approvals": Lazy(
        "seamhost.cli.approvals.pending:approvals",
        "List the deferred approvals every stored session waits on.",
    ),
    "approve": Lazy(
        "seamhost.cli.approvals.decisions:approve",
        "Allow a deferred call once, with the exact arguments it was asked for.",
    ),
    "chat": Lazy(
        "seamhost.cli.chat.command:chat",
        "Talk with the profile's model in a durable session; /help lists the commands.",
    ),
    "console": Lazy(
        "seamhost.cli.web.command:console",
        "Serve a web console: sessions, timelines, approvals and unknown outcomes to answer.",
    ),
    "doctor": Lazy(
        "seamhost.cli.doctor.checks:doctor",
        "Check which sandbox backends work here, with what enforcement, and the session store.",
    ),
    "exec": Lazy(
        "seamhost.cli.exec.command:exec_",
        "Run one turn for PROMPT (`-` reads it from stdin) without asking anyone at the terminal.",
    ),
    "matrix": Lazy(
        "seamhost.cli.matrix.command:matrix",
        "Run every scenario under every profile, each cell in its own session and store.",
    ),
    "mcp": Lazy(
        "seamhost.cli.mcp:mcp",
        "The Model Context Protocol: serve the bundle's tools; pin mounted servers' tools.",
    ),
    "plugin": Lazy("seamhost.cli.plugin:plugin", "Start a plugin distribution from a template."),
    "plugins": Lazy(
        "seamhost.cli.doctor.plugins:plugins",
        "List the installed plugins (entry-point group seamhost.plugins).",
    ),
    "policy": Lazy("seamhost.cli.policy:policy", "Show how the profile's policy judges calls."),
    "profile": Lazy(
        "seamhost.cli.profile:profile", "List, resolve, validate and describe profiles."
    ),
    "reject": Lazy(
        "seamhost.cli.approvals.decisions:reject",
        "Reject a deferred call: it ends APPROVAL_REJECTED when the session resumes.",
    ),
    "run": Lazy(
        "seamhost.cli.run.command:run",
        "Run SCENARIO (a scripted conversation, TOML or JSON) as an agent session.",
    ),
    "runs": Lazy(
        "seamhost.cli.runs:runs", "The runs of a run queue: what is queued, running and done."
    ),
    "session": Lazy(
        "seamhost.cli.session:session", "List, show, verify, repair and remove stored sessions."
    ),
    "store": Lazy(
        "seamhost.cli.store:store",
        "The session store of a profile: its schema, or its files' layout.",
    ),
    "submit": Lazy(
        "seamhost.cli.runs.submit:submit",
        "Queue a run of SCENARIO (or of --prompt TEXT) for `seamhost worker` to drive.",
    ),
    "worker": Lazy(
        "seamhost.cli.runs.worker:worker",
        "Claim runs from the profile's run queue and drive each one's session.",
    ),
}


def started() -> None:
    """Resume garbage collection: the command's start-up (imports, bundle) is over.

    What start-up built lives until the process exits, so it is frozen first (`gc.freeze`): no
    later collection walks it again, neither those a session's garbage triggers nor those at
    interpreter exit, which would otherwise scan and tear down every module, class and plugin
    object once more (about 5 ms per command).
    """
    gc.freeze()
    gc.enable()


class SeamhostGroup(LazyGroup):
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

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # Whether the command line asks for JSON is known before anything can fail, so that
        # every failure, click's own included, can print its JSON object (seamhost.cli.failures).
        ctx.meta[JSON_FLAG] = wants_json(args)
        try:
            return super().parse_args(ctx, args)
        except click.exceptions.NoArgsIsHelpError:
            raise  # bare `seamhost`: its help, exit 2
        except click.ClickException as exc:
            fail_click(exc)

    def invoke(self, ctx: click.Context) -> Any:
        # Subcommands and nested groups run inside this call, so their errors all end here.
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise  # a bare group (`seamhost session`): its help, exit 2
        except click.ClickException as exc:
            fail_click(exc)
        except (SeamhostError, KeyboardInterrupt) as exc:
            fail(exc)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    # Imported here, not at the top: entry-point discovery is a cost of --version alone (a
    # command discovers plugins when it builds its bundle; --help never does).
    from seamhost.kernel.plugins import discover

    found = discover()
    plugins = sorted(found.plugins.items())
    if ctx.meta.get(JSON_FLAG):
        emit_json(
            {
                "seamhost": __version__,
                "plugins": [
                    {"name": name, "version": p.version, "distribution": p.distribution}
                    for name, p in plugins
                ],
            }
        )
        ctx.exit(0)
    click.echo(f"seamhost {__version__}")
    for name, plugin in plugins:
        click.echo(f"  {name} {plugin.version} ({plugin.distribution})")
    if not plugins:
        click.echo("  no plugins installed")
    ctx.exit(0)


@click.group(
    cls=SeamhostGroup,
    lazy=_SUBCOMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and the installed plugins with theirs, then exit.",
)
@click.option(
    "--json",
    is_flag=True,
    expose_value=False,
    help="With --version, print it as one JSON object; with any command, print a failure as "
    "one JSON object on stdout too (as the command's own --json does).",
)
def main() -> None:
    """seamhost: governed, durable, recoverable tool calls for AI agents.

    Exit codes: 0 ok; 1 failure; 2 usage or configuration error; 3 corrupted session;
    4 a run awaits a deferred approval; 130 interrupted. A failure is one line on stderr,
    `seamhost: error: ...`, and with --json also one JSON object on stdout:
    {"outcome": "error", "exit_code": N, "session": ..., "error": {"code", "message", ...}}.
    """
