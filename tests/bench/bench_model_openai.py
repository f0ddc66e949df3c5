"""model-openai's own overhead per streamed event, against the SDK alone on the same bytes.

One recorded-format SSE body (a text answer of N chunks, then a tool call whose arguments come
in N fragments, the finish reason, the usage chunk and ``[DONE]``) is served from memory by an
``httpx2.MockTransport``, so no socket or server adds noise. Measured in the same run, medians
of interleaved repeats:

(a) the baseline: the SDK alone, ``chat.completions.create(stream=True)`` iterated to the end
    (HTTP response, SSE decoding, JSON, the chunk models);
(b) ``OpenAIAdapter.stream`` over the same transport and bytes: the same SDK work plus the
    request mapping, the per-chunk deadline, the assembly and the events.

Each is divided by the chunks streamed. Target: (b) ≤ 1.5 × (a).

Run: ``python tests/bench/bench_model_openai.py [--chunks N] [--repeat N]``; exits 1 when missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
import openai

sys.path.insert(0, str(Path(__file__).parent))
from _measure import Row, report
from seamhost_model_openai.adapter import OpenAIAdapter
from seamhost_model_openai.request import chat_request
from seamhost_model_openai.settings import Settings

from seamhost import ModelRequest

TARGET = 1.5


def sse_body(chunks: int) -> bytes:
    """A Chat Completions stream in the API's wire format: `chunks` text and argument pieces."""

    def event(delta: dict[str, Any] | None, finish: str | None = None, usage: Any = None) -> str:
        body = {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1733000000,
            "model": "gpt-4o-mini",
            "system_fingerprint": "fp_44709d6fcb",
            "choices": []
            if delta is None
            else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            "usage": usage,
        }
        return "data: " + json.dumps(body, separators=(",", ":")) + "\n\n"

    half = chunks // 2
    out = [event({"role": "assistant", "content": ""})]
    out += [event({"content": f" word{n}"}) for n in range(half)]
    opened = {"index": 0, "id": "call_bench", "type": "function"}
    out.append(event({"tool_calls": [opened | {"function": {"name": "shell", "arguments": ""}}]}))
    out.append(event({"tool_calls": [{"index": 0, "function": {"arguments": '{"command": "'}}]}))
    piece = {"index": 0, "function": {"arguments": "echo x; "}}
    out += [event({"tool_calls": [piece]}) for _ in range(chunks - half - 3)]
    out.append(event({"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]}))
    out.append(event({}, "tool_calls"))
    out.append(event(None, usage={"prompt_tokens": 100, "completion_tokens": chunks}))
    return ("".join(out) + "data: [DONE]\n\n").encode()


class Events(httpx2.AsyncByteStream):
    """A response body delivered one server-sent event at a time, as a server sends it."""

    def __init__(self, body: bytes) -> None:
        self.events = [event + b"\n\n" for event in body.split(b"\n\n") if event]

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in self.events:
            yield event


def sdk_client(body: bytes) -> openai.AsyncOpenAI:
    """An SDK client whose every request is answered with `body`, from memory."""

    def answer(request: httpx2.Request) -> httpx2.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, stream=Events(body))

    transport = httpx2.MockTransport(answer)
    return openai.AsyncOpenAI(
        api_key="bench",
        base_url="http://bench.invalid/v1",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=transport),
    )


class InMemoryAdapter(OpenAIAdapter):
    """The adapter, its SDK client swapped for the in-memory one (nothing else differs)."""

    sdk: openai.AsyncOpenAI

    def client(self) -> openai.AsyncOpenAI:
        return self.sdk


async def measure(chunks: int, repeat: int) -> tuple[float, float]:
    """Median seconds per streamed chunk: the SDK alone, and the adapter."""
    body = sse_body(chunks)
    settings = Settings(model="gpt-4o-mini", base_url="http://bench.invalid/v1")
    request = ModelRequest("bench", 1, 1, ({"role": "user", "content": "go"},), ())
    adapter = InMemoryAdapter(settings)
    adapter.sdk = sdk_client(body)
    sdk = sdk_client(body)
    kwargs = chat_request(settings, request)

    async def sdk_alone() -> int:
        seen = 0
        async for _ in await sdk.chat.completions.create(**kwargs):
            seen += 1
        return seen

    async def through_adapter() -> int:
        seen = 0
        async for _ in adapter.stream(request):
            seen += 1
        return seen

    await sdk_alone()
    await through_adapter()  # warm both
    baseline: list[float] = []
    ours: list[float] = []
    for _ in range(repeat):
        for samples, run in ((baseline, sdk_alone), (ours, through_adapter)):
            start = time.perf_counter()
            await run()
            samples.append((time.perf_counter() - start) / chunks)
    return statistics.median(baseline), statistics.median(ours)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    baseline, ours = asyncio.run(measure(args.chunks, args.repeat))
    ratio = ours / baseline
    row = Row(
        "(b) adapter per streamed event vs (a) SDK",
        ours * 1e6,
        baseline * 1e6,
        "µs",
        f"≤ {TARGET:g}×",
        ratio <= TARGET,
    )
    return report(f"model-openai stream overhead ({args.chunks} chunks, same bytes)", [row])


if __name__ == "__main__":
    raise SystemExit(main())
