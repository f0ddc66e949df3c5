"""What ``seamhost mcp pins`` and ``seamhost a2a pins`` share: the command itself (its options,
building the bundle, picking the origins of the tools mounted from elsewhere, printing) and the
words for a pin the profile holds that no longer matches what is served now.

Each command says how its kind of origin is grouped (``collect``) and written as TOML (``render``,
given one entry at least).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import click

from seamhost.cli.output import emit_json
from seamhost.cli.profile.bundle import load_bundle

Collect = Callable[[Iterable[Mapping[str, Any]]], list[dict[str, Any]]]
Render = Callable[[list[dict[str, Any]]], str]


def pins_command(
    *, help: str, kind: str, key: str, collect: Collect, render: Render, none: str
) -> click.Command:
    """A ``pins --profile P [--json]`` command: it builds the bundle of P (connecting to what it
    mounts, as a session would) and prints the pins of its tools whose origin is of `kind`, as
    ``{"profile", key: [...]}`` JSON or as the TOML `render` writes (the comment `none` when
    there is nothing to pin)."""

    @click.command(help=help)
    @click.option(
        "--profile",
        "profile_ref",
        required=True,
        help="A shipped profile name or a path to a .toml file.",
    )
    @click.option("--json", "as_json", is_flag=True, help="Print the pins as one JSON object.")
    def pins(profile_ref: str, as_json: bool) -> None:
        bundle = load_bundle(profile_ref)
        entries = collect(
            t.spec.origin
            for t in bundle.tools.values()
            if t.spec.origin and t.spec.origin.get("kind") == kind
        )
        if as_json:
            emit_json({"profile": bundle.profile.name, key: entries})
            return
        click.echo(render(entries) if entries else f"# {none}\n", nl=False)

    return pins


def changed(pinned: str) -> str:
    """The note for a pin in the profile that is not what is served now."""
    return f"the profile pins {pinned}: changed"
