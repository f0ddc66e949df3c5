"""Fixtures of the model-openai tests: the API stand-in and adapters pointed at it.

The stand-in (standin.py) is the one mock this project allows: a remote model API cannot run
here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from seamhost_model_openai.adapter import OpenAIAdapter
from seamhost_model_openai.settings import Settings

from seamhost import ModelEvent, ModelFailed, ModelRequest
from tests.model_openai.standin import StandIn

KEY = "sk-test-0000-secret"
AdapterMaker = Callable[..., OpenAIAdapter]


@pytest.fixture
def standin() -> Iterator[StandIn]:
    """A running stand-in for the OpenAI API on loopback."""
    with StandIn() as server:
        yield server


@pytest.fixture
def make_adapter(standin: StandIn) -> AdapterMaker:
    """Adapters configured against the stand-in; keyword arguments override the table."""

    def make(**config: Any) -> OpenAIAdapter:
        table = {"model": "gpt-4o-mini", "base_url": standin.base_url, "api_key": KEY}
        return OpenAIAdapter(Settings.from_config(table | config))

    return make


def request(*messages: dict[str, Any], tools: tuple[dict[str, Any], ...] = ()) -> ModelRequest:
    """A model request with `messages` (one user message when none is given)."""
    conversation = messages or ({"role": "user", "content": "hello"},)
    return ModelRequest("s-1", 1, 1, conversation, tools)


def attempt(
    adapter: OpenAIAdapter, model_request: ModelRequest | None = None
) -> tuple[list[ModelEvent], ModelFailed | None]:
    """Run one attempt: the events it yielded and the ModelFailed it raised, if any."""

    async def drive() -> tuple[list[ModelEvent], ModelFailed | None]:
        events: list[ModelEvent] = []
        try:
            async for event in adapter.stream(model_request or request()):
                events.append(event)
        except ModelFailed as exc:
            return events, exc
        finally:
            await adapter.aclose()
        return events, None

    return asyncio.run(drive())
