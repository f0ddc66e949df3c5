"""``seamhost mcp``: the Model Context Protocol, both ways (docs/design.md §13).

Each subcommand lives in its own module, imported only when invoked: ``serve``
(:mod:`seamhost.cli.mcp_serve`) offers the bundle's tools, governed, to MCP clients; ``pins``
(:mod:`seamhost.cli.mcp_pins`) prints the digests of the tools the profile mounts.
"""

from __future__ import annotations

import click

from seamhost.cli.lazy_group import LazyGroup

_COMMANDS = {  # imported only when invoked, like the top-level commands
    "pins": "seamhost.cli.mcp_pins:pins",
    "serve": "seamhost.cli.mcp_serve:serve",
}


@click.group(cls=LazyGroup, lazy=_COMMANDS)
def mcp() -> None:
    """The Model Context Protocol: serve the bundle's tools; pin mounted servers' tools."""
