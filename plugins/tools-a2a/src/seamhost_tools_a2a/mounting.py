"""At bundle build: fetch every agent's Agent Card, check it, record it.

All agents are asked concurrently (one event loop, on a thread of its own when the caller
already runs one: :func:`run_sync`). An agent that cannot be reached, or whose card is not
valid A2A, fails the bundle with an error naming the agent and what is wrong.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from seamhost_tools_a2a.card import Card, fetch_card
from seamhost_tools_a2a.delegation import http_client
from seamhost_tools_a2a.settings import AgentSettings

T = TypeVar("T")


def mount_all(agents: tuple[AgentSettings, ...]) -> list[tuple[AgentSettings, Card]]:
    """Each agent with its checked card; raises `A2aAgentError` for the first that fails."""

    async def every() -> list[tuple[AgentSettings, Card]]:
        cards = await asyncio.gather(*(_one(agent) for agent in agents))
        return list(zip(agents, cards, strict=True))

    return run_sync(every)


async def _one(agent: AgentSettings) -> Card:
    async with http_client(agent) as http:
        return await fetch_card(agent, http)


def run_sync(make: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to its end from synchronous code, even inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(make))
    box: list[Any] = []

    def work() -> None:
        try:
            box.append((True, asyncio.run(_await(make))))
        except BaseException as exc:  # re-raised on the caller's thread
            box.append((False, exc))

    thread = threading.Thread(target=work, name="seamhost-a2a-mount")
    thread.start()
    thread.join()
    ok, value = box[0]
    if not ok:
        raise value
    result: T = value
    return result


async def _await(make: Callable[[], Awaitable[T]]) -> T:
    return await make()
