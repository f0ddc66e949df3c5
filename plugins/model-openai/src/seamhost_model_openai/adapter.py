"""The OpenAI-compatible adapter: one model attempt is one streamed Chat Completions request.

The official SDK (``openai.AsyncOpenAI``) makes the request and decodes the server-sent events,
with ``max_retries=0``: the kernel records each attempt and decides on the next, so the SDK must
not retry behind its back; one :meth:`OpenAIAdapter.stream` is exactly one HTTP request. The
attempt's deadline (``timeout_s``) covers the whole attempt, from sending the request to the
last chunk, not only each read. The client is made on first use, one per event loop, so its
connections are reused across attempts.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from importlib.metadata import version
from typing import Any

import openai

from seamhost import ModelEvent, ModelFailed, ModelRequest, TextDelta
from seamhost.redaction import Redactor
from seamhost_model_openai.assembly import ChunkAssembler
from seamhost_model_openai.failures import FAILURES, classify
from seamhost_model_openai.request import chat_request
from seamhost_model_openai.settings import NAME, Settings


class OpenAIAdapter:
    """A :class:`~seamhost.ModelAdapter` for one model behind an OpenAI-compatible API."""

    name = NAME

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.max_attempts = settings.max_attempts
        self.identity: dict[str, Any] = {
            "plugin": NAME,
            "version": version("seamhost-model-openai"),
            "base_url": settings.base_url,
            "model": settings.model,
        }
        self._client: openai.AsyncOpenAI | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # The key is the adapter's own secret, whether or not the profile marked it one.
        self.redact = Redactor([settings.api_key] if settings.api_key else [])

    def client(self) -> openai.AsyncOpenAI:
        """The SDK client of the running event loop (connections cannot cross loops)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = openai.AsyncOpenAI(
                api_key=self.settings.api_key or "unused",  # local servers take any key
                base_url=self.settings.base_url,
                timeout=self.settings.timeout_s,
                max_retries=0,
            )
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        """Close the client's connections (a process that exits need not)."""
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """One attempt: text as it streams, then the proposals and ModelDone; or ModelFailed."""
        kwargs = chat_request(self.settings, request)
        timeout_s = self.settings.timeout_s
        deadline = asyncio.get_running_loop().time() + timeout_s
        assembler = ChunkAssembler(request.max_response_bytes)
        try:
            async with asyncio.timeout_at(deadline):
                chunks = await self.client().chat.completions.create(**kwargs)
            try:
                pending = chunks.__aiter__()
                while True:
                    async with asyncio.timeout_at(deadline):
                        try:
                            chunk = await pending.__anext__()
                        except StopAsyncIteration:
                            break
                    text = assembler.feed(chunk)
                    if text:
                        yield TextDelta(text)
            finally:
                await chunks.close()
        except ModelFailed:
            raise
        except FAILURES as exc:
            raise classify(exc, timeout_s, self.redact) from exc
        for event in assembler.events():
            yield event
