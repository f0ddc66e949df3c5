"""``seamhost a2a pins --profile P [--json]``: the Agent Card digests to pin the profile's agents.

The bundle is built (so every agent of ``[plugins.tools-a2a]`` has its Agent Card fetched, as a
session would), then for each agent it prints whose card answered and the TOML to paste into the
profile: the agent table's ``pin``, the digest of the card served now (design.md §13, "Delegate").
A pin already in the profile that no longer matches that card is flagged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from seamhost.cli.pins import changed, pins_command

HELP = "Fetch the Agent Cards of PROFILE's A2A agents and print their pins, to paste."
NONE = "the profile mounts no A2A agents"  # the text when nothing is pinned


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
    return "\n".join(map(agent_toml, agents))


def agent_toml(agent: Mapping[str, Any]) -> str:
    """One agent's table with its pin; a comment flags a pin in the profile that is stale."""
    name = agent["agent"]
    card = f"{agent['card_name']} {agent['card_version']}"
    heading = f"# A2A agent {name!r}: {card} at {agent['url']}"
    if agent["matches"] is False:
        heading += f"\n# {changed(agent['pinned'])}, not the card served now"
    return f'{heading}\n[plugins.tools-a2a.agents.{name}]\npin = "{agent["digest"]}"\n'


pins = pins_command(help=HELP, kind="a2a", key="agents", collect=collect, render=render, none=NONE)
