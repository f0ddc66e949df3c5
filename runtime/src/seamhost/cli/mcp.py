"""``seamhost mcp``: the Model Context Protocol commands, each imported only when it runs.

A subcommand is one line in :data:`SUBCOMMANDS` (name → ``module:attribute``), so ``seamhost mcp
--help`` and every other command import none of them, nor the ``mcp`` SDK they load.
"""

from __future__ import annotations

import importlib

import click

SUBCOMMANDS = {
    "serve": "seamhost.cli.mcp_serve:serve",
}


class LazyGroup(click.Group):
    """A group whose subcommands are named in :data:`SUBCOMMANDS` and imported on use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*SUBCOMMANDS, *super().list_commands(ctx)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = SUBCOMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = target.partition(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command


@click.group("mcp", cls=LazyGroup)
def mcp() -> None:
    """Speak the Model Context Protocol: serve the bundle's tools to any MCP client."""
