"""``seamhost profile check PROFILE [--json]``: build the bundle, say if the profile is valid."""

from __future__ import annotations

import sys
from typing import Any

import click

from seamhost.cli.failures import exit_code_for
from seamhost.cli.output import emit_json
from seamhost.cli.profile.bundle import load_bundle
from seamhost.cli.profile.problems import entries
from seamhost.errors import SeamhostError


@click.command()
@click.argument("profile_ref", metavar="PROFILE")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def check(profile_ref: str, as_json: bool) -> None:
    """Validate PROFILE: parse, merge, load its plugins, build the bundle.

    Exits 0 when the profile is valid, 2 with one message naming the file and key otherwise.
    With --json, an invalid profile prints {"valid": false, "errors": [{file, key, message}]}.
    """
    try:
        bundle = load_bundle(profile_ref)
    except SeamhostError as exc:
        if not as_json:
            raise
        # This command's own JSON answers for the failure: no second {"error"} object.
        emit_json({"profile": profile_ref, "valid": False, "errors": entries(exc)})
        click.echo(f"seamhost: error: {exc}", err=True)
        sys.exit(int(exit_code_for(exc)))
    summary: dict[str, Any] = {
        "profile": bundle.profile.name,
        "valid": True,
        "plugins": [p.name for p in bundle.snapshot.plugins],
        "tools": [t.name for t in bundle.snapshot.tools],
        "bundle_digest": bundle.snapshot.digest,
    }
    if as_json:
        emit_json(summary)
        return
    click.echo(
        f"profile {bundle.profile.name!r} is valid: {len(summary['plugins'])} plugin(s), "
        f"{len(summary['tools'])} tool(s), bundle {bundle.snapshot.digest[:19]}"
    )
