"""``seamhost profile show PROFILE [--json] [--why KEY]``: the resolved profile as TOML.

The text output is a TOML document: the merged configuration (``[profile]``, each plugin's
table as written, ``[sandbox]``, ``[gateway]``, ``[require]``), with the bundle's facts as
comments: the files merged, each plugin's distribution, version, seams and configuration
digest, the tools, the store and the bundle digest. ``--json`` prints the same facts as
JSON, the merged configuration under ``config``. ``--why KEY`` says which file set KEY
instead (:mod:`seamhost.cli.profile.why`).
"""

from __future__ import annotations

from typing import Any

import click

from seamhost.cli.output import emit_json
from seamhost.cli.profile import toml_writer
from seamhost.cli.profile.bundle import bundle_json, load_bundle
from seamhost.cli.profile.why import show_why
from seamhost.kernel.profile.document import config_document


@click.command()
@click.argument("profile_ref", metavar="PROFILE")
@click.option("--json", "as_json", is_flag=True, help="Print the resolved bundle as JSON.")
@click.option(
    "--why",
    "why",
    metavar="KEY",
    help="Say which file set KEY (sandbox.mode, plugins.NAME.KEY...) and what it overrode.",
)
def show(profile_ref: str, as_json: bool, why: str | None) -> None:
    """Show the resolved profile PROFILE as TOML, with its bundle: plugins, tools, digests.

    PROFILE is a shipped profile name or a path to a .toml file. Secrets are shown as their
    markers ({"$env": ...}), never their values.
    """
    if why is not None:
        show_why(profile_ref, why, as_json)
        return
    bundle = load_bundle(profile_ref)
    info = bundle_json(bundle)
    info["config"] = config_document(bundle.profile)
    if as_json:
        emit_json(info)
        return
    click.echo(render(info), nl=False)


def render(info: dict[str, Any]) -> str:
    """The TOML text of `show`: the merged configuration, the bundle's facts as comments."""
    config, prof = info["config"], info["profile"]
    out = [f"# profile {prof['name']}, merged from (parents first):"]
    out += [f"#   {file}" for file in prof["files"]]
    out += ["", toml_writer.dumps({"profile": config["profile"]})]
    for name, table in config["plugins"].items():
        entry = prof["plugins"][name]
        seams = ", ".join(entry["provides"]) or "no seams"
        needs = f"; requires {', '.join(entry['requires'])}" if entry["requires"] else ""
        out.append(
            f"# {entry['distribution']} {entry['version']}: provides {seams}{needs}\n"
            f"# config {entry['config_digest']}\n"
            + toml_writer.dumps({"plugins": {name: table}}, notes=_entry_notes(name, entry))
        )
    out.append(
        toml_writer.dumps(
            {key: config[key] for key in ("sandbox", "gateway", "require") if key in config}
        )
    )
    durability = info["durability"]
    out.append(
        f"# store: {durability['store']}, checkpoint barriers "
        f"{'on' if durability['barriers'] else 'off'}\n# bundle {info['bundle_digest']}"
    )
    out.append(tool_comments(info["tools"]))
    return "\n".join(out) + "\n"


def _entry_notes(name: str, entry: dict[str, Any]) -> dict[str, list[str]]:
    """For each list that merges across ``extends`` (rules), the file each entry came from."""
    return {
        f"plugins.{name}.{key}": [f"from {file}" for file in files]
        for key, files in entry.get("entry_files", {}).items()
    }


def tool_comments(tools: list[dict[str, Any]]) -> str:
    if not tools:
        return "# tools: none"
    width = max(len(t["name"]) for t in tools)
    lines = ["# tools (name, plugin, effect, may run in parallel):"]
    for tool in tools:
        parallel = "parallel" if tool["concurrency_safe"] else "serial"
        about = " ".join(str(tool["description"]).split())
        lines.append(
            f"#   {tool['name']:<{width}}  {tool['plugin']}, {tool['effect']}, {parallel}: {about}"
        )
        if "origin" in tool:
            lines.append(f"#   {'':<{width}}  {mounted_from(tool['origin'])}")
    return "\n".join(lines)


def mounted_from(origin: dict[str, Any]) -> str:
    """Where a mounted tool comes from, and which of its server's annotations policy believes."""
    if origin.get("kind") == "a2a":
        pinned = "pinned" if "pin" in origin else "not pinned"
        return (
            f"from A2A agent {origin.get('agent')!r} at {origin.get('url')} "
            f"(Agent Card {origin.get('descriptor_digest')}, {pinned})"
        )
    trusted = ", ".join(origin.get("trusted_annotations", ())) or "none (hints ignored)"
    overrides = ", ".join(origin.get("overrides", ()))
    line = (
        f"from MCP server {origin.get('server')!r} (tool {origin.get('tool')!r}, "
        f"{origin.get('descriptor_digest')}); annotations trusted: {trusted}"
    )
    return line + (f"; profile overrides: {overrides}" if overrides else "")
