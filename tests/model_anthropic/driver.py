"""Driving the Anthropic adapter against the stand-in: what a contract suite plugs in.

The stand-in (:mod:`tests.model_anthropic.standin`) is THE ONE MOCK THIS PROJECT ALLOWS: a remote
model API cannot run here. A model-adapter contract suite needs two things from an adapter's
tests, both here: :func:`make_adapter` (an adapter pointed at a base URL) and the stand-in's
``serve(transcript)``, which yields an object with ``url`` and the recorded ``requests``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from seamhost_model_anthropic.adapter import AnthropicAdapter
from seamhost_model_anthropic.config import AnthropicConfig

from seamhost import ModelEvent, ModelFailed, ModelRequest


def make_adapter(base_url: str, **config: Any) -> AnthropicAdapter:
    """An adapter for `base_url`, as a profile table would configure it."""
    table = {"model": "claude-sonnet-4-5", "api_key": "sk-ant-test", "timeout_s": 5.0} | config
    return AnthropicAdapter(AnthropicConfig.from_table({"base_url": base_url, **table}))


def request(
    *messages: Mapping[str, Any], tools: tuple[Mapping[str, Any], ...] = (), step: int = 1
) -> ModelRequest:
    """A model request for session ``s1``, turn 1 (a user greeting when no message is given)."""
    conversation = messages or ({"role": "user", "content": "hello"},)
    return ModelRequest("s1", 1, step, tuple(conversation), tools)


def drain(adapter: AnthropicAdapter, req: ModelRequest | None = None) -> list[Any]:
    """Every event of one attempt, in order; a failure is the last item, as the ModelFailed."""

    async def run() -> list[ModelEvent | ModelFailed]:
        out: list[ModelEvent | ModelFailed] = []
        try:
            async for event in adapter.stream(req or request()):
                out.append(event)
        except ModelFailed as failed:
            out.append(failed)
        return out

    return asyncio.run(run())


def failure(out: list[Any]) -> tuple[str, bool, float | None]:
    """(kind, retryable, retry_after) of the failure that ended `out`."""
    last = out[-1]
    assert isinstance(last, ModelFailed), f"the attempt did not fail: {out}"
    return last.kind, last.retryable, last.retry_after
