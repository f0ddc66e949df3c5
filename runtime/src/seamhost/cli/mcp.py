"""``seamhost mcp``: the Model Context Protocol, both ways (docs/design.md §13).

Each subcommand lives in its own module, imported only when invoked: ``serve``
(:mod:`seamhost.cli.mcp_serve`) offers the bundle's tools, governed, to MCP clients; ``pins``
(:mod:`seamhost.cli.mcp_pins`) prints the digests of the tools the profile mounts.
"""

from __future__ import annotations

import importlib

import click

_COMMANDS = {  # imported only when invoked, like the top-level commands
    "pins": "seamhost.cli.mcp_pins:pins",
    "serve": "seamhost.cli.mcp_serve:serve",
}


class McpGroup(click.Group):
    """The ``mcp`` group: its subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*_COMMANDS, *super().list_commands(ctx)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = target.partition(":")
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command


@click.group(cls=McpGroup)
def mcp() -> None:
    """The Model Context Protocol: serve the bundle's tools; pin mounted servers' tools."""
