"""What ``seamhost mcp pins`` and ``seamhost a2a pins`` share: their options, building the bundle
and picking the origins of the tools mounted from elsewhere, printing, and the words for a pin
the profile holds that no longer matches what is served now.

Each command says how its kind of origin is grouped (``collect``) and written as TOML (``render``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import click

from seamhost.cli.output import emit_json
from seamhost.cli.profile.bundle import load_bundle

F = TypeVar("F", bound=Callable[..., Any])

Collect = Callable[[Iterable[Mapping[str, Any]]], list[dict[str, Any]]]


def pins_options(command: F) -> F:
    """``--profile P`` (required, as ``profile_ref``) and ``--json`` (as ``as_json``)."""
    command = click.option(
        "--json", "as_json", is_flag=True, help="Print the pins as one JSON object."
    )(command)
    return click.option(
        "--profile",
        "profile_ref",
        required=True,
        help="A shipped profile name or a path to a .toml file.",
    )(command)


def print_pins(
    profile_ref: str,
    as_json: bool,
    *,
    kind: str,
    key: str,
    collect: Collect,
    render: Callable[[list[dict[str, Any]]], str],
) -> None:
    """Build the bundle of `profile_ref` (connecting to what it mounts, as a session would) and
    print the pins of its tools whose origin is of `kind`: as ``{"profile", key: [...]}`` JSON,
    or as the TOML `render` writes."""
    bundle = load_bundle(profile_ref)
    entries = collect(
        t.spec.origin
        for t in bundle.tools.values()
        if t.spec.origin and t.spec.origin.get("kind") == kind
    )
    if as_json:
        emit_json({"profile": bundle.profile.name, key: entries})
        return
    click.echo(render(entries), nl=False)


def changed(pinned: str) -> str:
    """The note for a pin in the profile that is not what is served now."""
    return f"the profile pins {pinned}: changed"
