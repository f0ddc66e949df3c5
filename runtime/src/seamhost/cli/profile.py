"""``seamhost profile show|check|schema``: resolve, validate and describe profiles."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from seamhost.cli.output import emit_json

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle

PROFILE_HELP = "A shipped profile name (default, strict, ...) or a path to a .toml file."


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


@click.group()
def profile() -> None:
    """Resolve, validate and describe profiles."""


@profile.command()
@click.argument("profile_ref", metavar="PROFILE")
@click.option("--json", "as_json", is_flag=True, help="Print the resolved bundle as JSON.")
def show(profile_ref: str, as_json: bool) -> None:
    """Show the resolved bundle of PROFILE: plugins, tools, sandbox, digests.

    PROFILE is a shipped profile name or a path to a .toml file. Secrets are shown as their
    markers ({"$env": ...}), never their values.
    """
    info = bundle_json(load_bundle(profile_ref))
    if as_json:
        emit_json(info)
        return
    from rich.table import Table

    from seamhost.cli.output import console

    out = console()
    prof = info["profile"]
    out.print(f"[bold]profile[/bold] {prof['name']}  ({' <- '.join(reversed(prof['files']))})")
    if prof["description"]:
        out.print(f"  {prof['description']}")
    sandbox = prof["sandbox"]
    roots = ", ".join(sandbox["writable_roots"]) or "none"
    out.print(
        f"[bold]sandbox[/bold] {sandbox['mode']}  extra writable roots: {roots}  "
        f"network: {'on' if sandbox['network'] else 'off'}"
    )
    plugins = Table("plugin", "distribution", "version", "provides", "config", box=None)
    for name, entry in prof["plugins"].items():
        config = ", ".join(f"{k}={v!r}" for k, v in entry["config"].items()) or "-"
        plugins.add_row(
            name,
            entry["distribution"],
            entry["version"],
            ", ".join(entry["provides"]) or "-",
            config,
        )
    out.print(plugins)
    tools = Table("tool", "plugin", "effect", "parallel", "description", box=None)
    for tool in info["tools"]:
        tools.add_row(
            tool["name"],
            tool["plugin"],
            tool["effect"],
            "yes" if tool["concurrency_safe"] else "no",
            tool["description"],
        )
    if info["tools"]:
        out.print(tools)
    else:
        out.print("no tools")
    durability = info["durability"]
    out.print(
        f"[bold]store[/bold] {durability['store']}  "
        f"barriers: {'on' if durability['barriers'] else 'off'}"
    )
    out.print(f"[bold]bundle[/bold] {info['bundle_digest']}")


@profile.command()
@click.argument("profile_ref", metavar="PROFILE")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def check(profile_ref: str, as_json: bool) -> None:
    """Validate PROFILE: parse, merge, load its plugins, build the bundle.

    Exits 0 when the profile is valid, 2 with one message naming the file and key otherwise.
    """
    bundle = load_bundle(profile_ref)
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
