"""``seamhost plugins``: the installed plugins, their distributions, versions and seams."""

from __future__ import annotations

from typing import Any

import click

from seamhost.cli.output import console, emit_json
from seamhost.errors import SeamhostError
from seamhost.kernel.plugins import discover


def describe_installed() -> list[dict[str, Any]]:
    """One entry per installed plugin; a plugin that fails to import is listed with its error."""
    found = discover()
    out: list[dict[str, Any]] = []
    for name, plugin in sorted(found.plugins.items()):
        entry: dict[str, Any] = {
            "name": name,
            "distribution": plugin.distribution,
            "version": plugin.version,
            "entry_point": plugin.value,
        }
        try:
            descriptor = plugin.load()
        except SeamhostError as exc:
            entry["error"] = str(exc)
        else:
            entry["description"] = descriptor.description
            entry["provides"] = sorted(descriptor.provides)
            entry["requires"] = sorted(descriptor.requires)
            entry["config_keys"] = sorted(descriptor.config_keys)
        out.append(entry)
    for name, dists in sorted(found.duplicates.items()):
        out.append(
            {"name": name, "error": f"declared by several distributions: {', '.join(dists)}"}
        )
    return out


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of a table.")
def plugins(as_json: bool) -> None:
    """List the installed plugins (entry-point group seamhost.plugins)."""
    entries = describe_installed()
    if as_json:
        emit_json(entries)
        return
    from rich.table import Table

    table = Table("plugin", "distribution", "version", "provides", "requires", box=None)
    for entry in entries:
        if "error" in entry:
            table.add_row(
                entry["name"],
                entry.get("distribution", ""),
                entry.get("version", ""),
                f"[red]{entry['error']}[/red]",
                "",
            )
            continue
        table.add_row(
            entry["name"],
            entry["distribution"],
            entry["version"],
            ", ".join(entry["provides"]) or "-",
            ", ".join(entry["requires"]) or "-",
        )
    out = console()
    if not entries:
        out.print("no plugins installed (entry-point group seamhost.plugins)")
        return
    out.print(table)
