"""``seamhost a2a pins --profile P [--json]``: the Agent Card digests to pin the profile's agents.

The bundle is built (so every agent of ``[plugins.tools-a2a]`` has its Agent Card fetched, as a
session would), then for each agent it prints whose card answered and the TOML to paste into the
profile: the agent table's ``pin``, the digest of the card served now (design.md §13, "Delegate").
A pin already in the profile that no longer matches that card is flagged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import click

from seamhost.cli.pins import changed, pins_options, print_pins


@click.command()
@pins_options
def pins(profile_ref: str, as_json: bool) -> None:
    """Fetch the Agent Cards of PROFILE's A2A agents and print their pins, to paste."""
    print_pins(profile_ref, as_json, kind="a2a", key="agents", collect=collect, render=render)


def collect(origins: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each A2A agent of the `origins` (all of kind ``a2a``), by name: whose card answered, its
    digest, the profile's pin, and whether that pin is the card served now (``None``: no pin)."""
    agents = []
    for origin in origins:
        card, pinned = origin["card"], origin.get("pin")
        agents.append(
            {
                "agent": str(origin["agent"]),
                "url": origin["url"],
                "card_name": card["name"],
                "card_version": card["version"],
                "digest": origin["descriptor_digest"],
                "pinned": pinned,
                "matches": None if pinned is None else pinned == origin["descriptor_digest"],
            }
        )
    return sorted(agents, key=lambda a: a["agent"])


def render(agents: list[dict[str, Any]]) -> str:
    """The TOML to paste, with whose card answered as a comment."""
    if not agents:
        return "# the profile mounts no A2A agents\n"
    out = []
    for agent in agents:
        name = agent["agent"]
        stale = (
            f"# {changed(agent['pinned'])}, not the card served now\n"
            if agent["matches"] is False
            else ""
        )
        out.append(
            f"# A2A agent {name!r}: {agent['card_name']} {agent['card_version']} "
            f"at {agent['url']}\n{stale}"
            f"[plugins.tools-a2a.agents.{name}]\n"
            f'pin = "{agent["digest"]}"\n'
        )
    return "\n".join(out)
