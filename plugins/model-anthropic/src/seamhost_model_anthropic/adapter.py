"""The Anthropic adapter: one attempt per `stream` call, through the official SDK.

The client is made on the first request of each event loop, with the SDK's own retries off
(``max_retries=0``): the kernel records every attempt and decides whether to try again, so a
retry hidden inside the SDK would be an attempt the log never saw. ``timeout_s`` bounds the
whole attempt (connecting, waiting for the first byte and streaming): the transport gets it as
its timeout, and the stream is cut when the attempt's deadline passes, however slowly the events
trickle in; that is a ``deadline`` failure (retryable).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from importlib.metadata import version

import anthropic

from seamhost import ModelEvent, ModelRequest
from seamhost.redaction import Redactor
from seamhost_model_anthropic.config import NAME, AnthropicConfig
from seamhost_model_anthropic.deadline import Deadline
from seamhost_model_anthropic.events import StreamReader
from seamhost_model_anthropic.request import build_params


class AnthropicAdapter:
    """A :class:`~seamhost.ModelAdapter` for the Messages API."""

    name = NAME

    def __init__(self, config: AnthropicConfig) -> None:
        self.config = config
        self.max_attempts = config.max_attempts
        self.identity = {
            "plugin": NAME,
            "version": version("seamhost-model-anthropic"),
            "base_url": config.base_url,
            "model": config.model,
        }
        self._clients: dict[asyncio.AbstractEventLoop, anthropic.AsyncAnthropic] = {}
        self._keepers: dict[asyncio.AbstractEventLoop, AsyncIterator[None]] = {}
        # The key is the adapter's own secret, whether or not the profile marked it one (an extra
        # header given through {"$env" = ...} is redacted by the kernel, with every secret).
        self.redact = Redactor([config.api_key])

    async def client(self) -> anthropic.AsyncAnthropic:
        """The SDK client of the running event loop (its connections belong to that loop)."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            for stale in [other for other in self._clients if other.is_closed()]:
                del self._clients[stale], self._keepers[stale]
            client = self._clients[loop] = anthropic.AsyncAnthropic(
                api_key=self.config.api_key,
                base_url=self.config.base_url,
                max_retries=0,
                timeout=self.config.timeout_s,
                default_headers=dict(self.config.extra_headers) or None,
            )
            # asyncio.run() closes the async generators still open before it closes the loop:
            # this one then closes the client, so its pooled connections do not outlive the loop.
            self._keepers[loop] = keeper = _closing(client)
            await anext(keeper)
        return client

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """The events of one attempt; raises `ModelFailed` when it fails (never retries)."""
        params = build_params(request, self.config)
        deadline = Deadline(self.config.timeout_s, self.redact)
        reader = StreamReader(request.max_response_bytes)
        try:
            client = await self.client()
            source = await deadline.wait(client.messages.create(**params, stream=True))
            try:
                events = source.__aiter__()
                while True:
                    try:
                        event = await deadline.wait(anext(events))
                    except StopAsyncIteration:
                        break
                    if (text := reader.feed(event)) is not None:
                        yield text
            finally:
                with contextlib.suppress(Exception):  # a broken connection may not close cleanly
                    await source.close()
        finally:
            deadline.cancel()
        for out in reader.finish():
            yield out


async def _closing(client: anthropic.AsyncAnthropic) -> AsyncIterator[None]:
    try:
        yield
    finally:
        await client.close()
