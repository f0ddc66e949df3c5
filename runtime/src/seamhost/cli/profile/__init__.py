"""``seamhost profile ls|show|check|schema``: list, resolve, validate and describe profiles.

Each subcommand is its own module, imported only when it runs: ``check`` builds a bundle, ``ls``
reads the profile files only, ``show`` also writes TOML.
"""

from __future__ import annotations

import click

from seamhost.cli.lazy_group import Lazy, LazyGroup

_COMMANDS = {
    "check": Lazy(
        "seamhost.cli.profile.check:check",
        "Validate PROFILE: parse, merge, load its plugins, build the bundle.",
    ),
    "ls": Lazy(
        "seamhost.cli.profile.listing:ls",
        "List the profiles reachable by name: those in SEAMHOST_PROFILE_PATH, then the shipped "
        "ones.",
    ),
    "schema": Lazy(
        "seamhost.cli.profile.schema:schema", "Print the JSON Schema of a profile (for editors)."
    ),
    "show": Lazy(
        "seamhost.cli.profile.show:show",
        "Show the resolved profile PROFILE as TOML, with its bundle: plugins, tools, digests.",
    ),
}


@click.group(cls=LazyGroup, lazy=_COMMANDS)
def profile() -> None:
    """List, resolve, validate and describe profiles."""
