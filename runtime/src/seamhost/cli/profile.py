"""``seamhost profile ls|show|check|schema``: list, resolve, validate and describe profiles."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from seamhost.cli.lazy_group import LazyGroup
from seamhost.cli.output import emit_json
from seamhost.errors import SeamhostError

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle


def load_bundle(ref: str) -> Bundle:
    from seamhost.cli import started
    from seamhost.kernel.bundle import build_bundle
    from seamhost.kernel.profile.resolve import resolve_profile

    bundle = build_bundle(resolve_profile(ref))
    started()
    return bundle


def bundle_json(bundle: Bundle) -> dict[str, Any]:
    snapshot = bundle.snapshot
    profile = bundle.profile.to_json()
    identities = {p.name: p for p in snapshot.plugins}
    for name, entry in profile["plugins"].items():
        entry["config_digest"] = identities[name].config_digest
    return {
        "profile": profile,
        "tools": [
            {**bundle.tools[t.name].spec.declaration(), "plugin": t.plugin, "digest": t.digest}
            for t in snapshot.tools
        ],
        "durability": {"store": bundle.store.name, "barriers": bundle.barriers},
        "bundle_digest": snapshot.digest,
    }


_COMMANDS = {  # imported only when invoked, like the top-level commands
    "ls": "seamhost.cli.profile_ls:ls",
    "show": "seamhost.cli.profile_show:show",
}


@click.group(cls=LazyGroup, lazy=_COMMANDS)
def profile() -> None:
    """List, resolve, validate and describe profiles."""


@profile.command()
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
        from seamhost.cli.failures import exit_code_for
        from seamhost.cli.profile_errors import entries

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


@profile.command()
@click.argument("profile_ref", metavar="[PROFILE]", required=False)
def schema(profile_ref: str | None) -> None:
    """Print the JSON Schema of a profile (for editors).

    Without PROFILE it covers every installed plugin; with it, only the plugins PROFILE names.
    """
    from seamhost.kernel.plugins import discover
    from seamhost.kernel.profile.schema import profile_schema

    if profile_ref is None:
        found = discover()
        descriptors = [plugin.load() for plugin in found.plugins.values()]
    else:
        from seamhost.kernel.profile.resolve import resolve_profile

        descriptors = [entry.descriptor for entry in resolve_profile(profile_ref).plugins]
    emit_json(profile_schema(descriptors))
