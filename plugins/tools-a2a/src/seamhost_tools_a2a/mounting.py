"""At bundle build: fetch every agent's Agent Card, check it, record it.

All agents are asked concurrently (one event loop, on a thread of its own when the caller
already runs one: :func:`seamhost.run_sync`). An agent that cannot be reached, or whose card is not
valid A2A, fails the bundle with an error naming the agent and what is wrong.
"""

from __future__ import annotations

import asyncio

from seamhost import run_sync
from seamhost_tools_a2a.card import Card, fetch_card
from seamhost_tools_a2a.delegation import http_client
from seamhost_tools_a2a.settings import AgentSettings


def mount_all(agents: tuple[AgentSettings, ...]) -> list[tuple[AgentSettings, Card]]:
    """Each agent with its checked card; raises `A2aAgentError` for the first that fails."""

    async def every() -> list[tuple[AgentSettings, Card]]:
        cards = await asyncio.gather(*(_one(agent) for agent in agents))
        return list(zip(agents, cards, strict=True))

    return run_sync(every, thread_name="seamhost-a2a-mount")


async def _one(agent: AgentSettings) -> Card:
    async with http_client(agent) as http:
        return await fetch_card(agent, http)
