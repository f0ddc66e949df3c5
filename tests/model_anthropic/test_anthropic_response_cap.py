"""A tool call's input past ``max_response_bytes`` fails the attempt in the adapter (issue 33).

Against the stand-in, THE ONE MOCK THIS PROJECT ALLOWS: a remote model API cannot run here. The
adapter buffers a ``tool_use`` block's ``input_json_delta`` pieces until ``message_stop``; they
are counted as they arrive, so a runaway input stops at the cap instead of filling memory.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import attrs

from seamhost import ModelDone, ModelRequest, ToolCallProposal
from tests.model_anthropic.driver import drain, failure, make_adapter, request
from tests.model_anthropic.standin import Reply, serve

START = {
    "type": "message_start",
    "message": {
        "id": "msg_cap",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "claude-sonnet-4-5",
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    },
}


def event(data: Mapping[str, object]) -> str:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n"


def huge_input(pieces: int, size: int) -> Reply:
    block = {"type": "tool_use", "id": "toolu_big", "name": "write_file", "input": {}}
    delta = {"type": "input_json_delta", "partial_json": "z" * size}
    body = (
        event(START)
        + event({"type": "content_block_start", "index": 0, "content_block": block})
        + event({"type": "content_block_delta", "index": 0, "delta": delta}) * pieces
        + event({"type": "content_block_stop", "index": 0})
        + event({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}})
        + event({"type": "message_stop"})
    )
    return Reply(200, body)


def capped(limit: int | None) -> ModelRequest:
    return attrs.evolve(request(), max_response_bytes=limit)


def test_buffered_input_past_the_cap_fails_the_attempt() -> None:
    with serve([huge_input(pieces=2048, size=1024)]) as api:  # 2 MiB of input
        out = drain(make_adapter(api.url), capped(65536))
    assert failure(out) == ("response-too-large", False, None)
    assert "65536 bytes" in out[-1].message
    assert not [e for e in out if isinstance(e, ToolCallProposal | ModelDone)]


def test_under_the_cap_the_call_is_proposed() -> None:
    with serve([huge_input(pieces=16, size=1024)]) as api:
        out = drain(make_adapter(api.url), capped(65536))
    [call] = [e for e in out if isinstance(e, ToolCallProposal)]
    assert len(call.arguments) == 16 * 1024
