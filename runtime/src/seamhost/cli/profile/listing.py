"""``seamhost profile ls [--json]``: the profiles a name can refer to, user and shipped."""

from __future__ import annotations

import click

from seamhost.cli.output import emit_json
from seamhost.kernel.profile.catalog import ListedProfile, list_profiles


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of text.")
def ls(as_json: bool) -> None:
    """List the profiles reachable by name: those in SEAMHOST_PROFILE_PATH, then the shipped ones.

    A user profile named like a shipped one shadows it, and says so.
    """
    listed = list_profiles()
    if as_json:
        emit_json([entry.to_json() for entry in listed])
        return
    click.echo("\n".join(render(listed)))


def render(listed: list[ListedProfile]) -> list[str]:
    """One line per name (the path last, never cut), then what it shadows or why it is broken."""
    rows = [
        (e.name, e.origin, "extends " + ", ".join(e.extends) if e.extends else "-", str(e.path))
        for e in listed
    ]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
    lines = []
    for entry, row in zip(listed, rows, strict=True):
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, row[3]]))
        lines += [f"  shadows the {origin} profile {path}" for path, origin in entry.shadows]
        if entry.error:
            lines.append(f"  error: {entry.error}")
    return lines or ["no profiles found"]
