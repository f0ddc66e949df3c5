"""``seamhost profile schema [PROFILE]``: the JSON Schema of profiles, for editors."""

from __future__ import annotations

import click

from seamhost.cli.output import emit_json
from seamhost.kernel.plugins import discover
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.kernel.profile.schema import profile_schema


@click.command()
@click.argument("profile_ref", metavar="[PROFILE]", required=False)
def schema(profile_ref: str | None) -> None:
    """Print the JSON Schema of a profile (for editors).

    Without PROFILE it covers every installed plugin; with it, only the plugins PROFILE names.
    """
    if profile_ref is None:
        found = discover()
        descriptors = [plugin.load() for plugin in found.plugins.values()]
    else:
        descriptors = [entry.descriptor for entry in resolve_profile(profile_ref).plugins]
    emit_json(profile_schema(descriptors))
