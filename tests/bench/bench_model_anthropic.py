"""The Anthropic adapter's own overhead per streamed event (issue "Real models"), against a
baseline in the same run: the same recorded SSE bytes parsed by the ``anthropic`` SDK alone.

Both sides read one recorded stream (a text block of many deltas, then two tool_use blocks whose
input arrives in many ``input_json_delta`` pieces) through the same SDK client, over an in-process
transport, so the network does not enter either figure. The baseline iterates the SDK's events
(``messages.create(stream=True)``: SSE decoding, JSON, the event models); the measure streams the
same bytes through :class:`AnthropicAdapter` (request mapping, the deadline, the sequence checks,
text deltas, buffered tool calls, usage). Target: the adapter ≤ 1.5× the SDK alone per event.

Timings are the best of several runs taken in turn, so noise hits both alike. The script prints
its results and exits 0; with ``--strict`` it exits 1 when the target is missed.

Run: ``python tests/bench/bench_model_anthropic.py [--events N] [--repeat N] [--strict]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import anthropic
import httpx2
from _measure import Row, report
from seamhost_model_anthropic.adapter import AnthropicAdapter
from seamhost_model_anthropic.config import AnthropicConfig

from seamhost import ModelDone, ModelRequest


def sse(data: dict[str, Any]) -> str:
    return f"event: {data['type']}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def delta(index: int, kind: str, key: str, value: str) -> str:
    return sse({"type": "content_block_delta", "index": index, "delta": {"type": kind, key: value}})


def block(index: int, content: dict[str, Any]) -> str:
    return sse({"type": "content_block_start", "index": index, "content_block": content})


def recorded(events: int) -> tuple[bytes, int]:
    """A stream of about `events` events, in the wire format; and its exact event count."""
    usage = {"input_tokens": 900, "cache_read_input_tokens": 100, "output_tokens": 1}
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "claude-sonnet-4-5",
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    out = [sse({"type": "message_start", "message": message})]
    out.append(block(0, {"type": "text", "text": ""}))
    out += [delta(0, "text_delta", "text", f"word{i} ") for i in range(events // 2)]
    out.append(sse({"type": "content_block_stop", "index": 0}))
    for index in (1, 2):
        out.append(block(index, {"type": "tool_use", "id": f"t{index}", "name": "sh", "input": {}}))
        pieces = ['{"command": "'] + ["echo \\u00e9 && "] * (events // 4) + ['true"}']
        out += [delta(index, "input_json_delta", "partial_json", p) for p in pieces]
        out.append(sse({"type": "content_block_stop", "index": index}))
    stop = {"stop_reason": "tool_use", "stop_sequence": None}
    out.append(sse({"type": "message_delta", "delta": stop, "usage": {"output_tokens": events}}))
    out.append(sse({"type": "message_stop"}))
    return "".join(out).encode(), len(out)


def client(body: bytes) -> anthropic.AsyncAnthropic:
    def handler(request: httpx2.Request) -> httpx2.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, content=body)

    transport = httpx2.MockTransport(handler)
    return anthropic.AsyncAnthropic(
        api_key="k", max_retries=0, http_client=httpx2.AsyncClient(transport=transport)
    )


async def sdk_alone(sdk: anthropic.AsyncAnthropic) -> int:
    messages: Any = [{"role": "user", "content": "go"}]
    source = await sdk.messages.create(
        model="claude-sonnet-4-5", max_tokens=4096, messages=messages, stream=True
    )
    return sum([1 async for _ in source])


async def through_adapter(adapter: AnthropicAdapter, request: ModelRequest) -> int:
    events = [event async for event in adapter.stream(request)]
    assert isinstance(events[-1], ModelDone)
    return len(events)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=4000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args()
    body, count = recorded(args.events)
    request = ModelRequest("s", 1, 1, ({"role": "user", "content": "go"},), ())
    adapter = AnthropicAdapter(AnthropicConfig(model="claude-sonnet-4-5", api_key="k"))

    async def run() -> tuple[float, float]:
        sdk = client(body)

        async def given() -> anthropic.AsyncAnthropic:
            return sdk

        adapter.client = given  # type: ignore[method-assign]  # the same client for both
        assert await sdk_alone(sdk) == count  # warm: imports, caches
        await through_adapter(adapter, request)
        base, measured = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            await sdk_alone(sdk)
            base.append(time.perf_counter() - start)
            start = time.perf_counter()
            await through_adapter(adapter, request)
            measured.append(time.perf_counter() - start)
        await sdk.close()
        return min(base), min(measured)

    base, measured = asyncio.run(run())
    per = 1e6 / count
    rows = [
        Row(
            f"adapter per event ({count} events)",
            measured * per,
            base * per,
            "us",
            "<= 1.5x",
            measured <= 1.5 * base,
        )
    ]
    code = report("model-anthropic overhead per streamed event (baseline: the SDK alone)", rows)
    return code if args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
