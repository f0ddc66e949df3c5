"""``seamhost mcp``: the Model Context Protocol, both ways (docs/design.md §13).

Each subcommand lives in its own module, imported only when invoked: ``serve``
(:mod:`seamhost.cli.mcp.serve`) offers the bundle's tools, governed, to MCP clients; ``pins``
(:mod:`seamhost.cli.mcp.pins`) prints the digests of the tools the profile mounts.
"""

from __future__ import annotations

import click

from seamhost.cli.lazy_group import Lazy, LazyGroup

_COMMANDS = {
    "pins": Lazy(
        "seamhost.cli.mcp.pins:pins",
        "Connect to the MCP servers of PROFILE and print the pins of their tools, to paste.",
    ),
    "serve": Lazy(
        "seamhost.cli.mcp.serve:serve",
        "Serve the profile's tools over MCP; every call is governed and recorded in a session.",
    ),
}


@click.group(cls=LazyGroup, lazy=_COMMANDS)
def mcp() -> None:
    """The Model Context Protocol: serve the bundle's tools; pin mounted servers' tools."""
