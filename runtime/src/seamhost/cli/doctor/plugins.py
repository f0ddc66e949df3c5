"""``seamhost plugins``: the installed plugins, their distributions, versions and seams."""

from __future__ import annotations

from typing import Any

import click

from seamhost.cli.columns import Column, print_table
from seamhost.cli.display import esc
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
    """List the installed plugins (entry-point group seamhost.plugins).

    Plugin names are always shown whole; columns that do not fit the terminal are dropped, and
    seam lists wrap between seams.
    """
    entries = describe_installed()
    if as_json:
        emit_json(entries)
        return
    out = console()
    if not entries:
        out.print("no plugins installed (entry-point group seamhost.plugins)")
        return
    loaded = [entry for entry in entries if "error" not in entry]
    # In order of importance: what each plugin provides matters more than its version, and
    # with distribution names as long as seamhost-persistence-postgres both do not fit in 80.
    columns = [
        Column("plugin", keep=True),
        Column("distribution"),
        Column("provides", wrap=True),
        Column("version"),
        Column("requires", wrap=True),
    ]
    rows = [
        [
            entry["name"],
            entry["distribution"],
            ", ".join(entry["provides"]) or "-",
            entry["version"],
            ", ".join(entry["requires"]) or "-",
        ]
        for entry in loaded
    ]
    if rows:
        print_table(out, columns, rows, what="plugins")
    for entry in entries:
        if "error" in entry:
            where = f" ({entry['distribution']} {entry['version']})" if "version" in entry else ""
            out.print(f"[red]? {esc(entry['name'])}[/red]{esc(where)}: {esc(entry['error'])}")
