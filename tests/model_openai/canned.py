"""Canned answers of the model-adapter contract as OpenAI wire bytes for the stand-in.

The stand-in is the one mock this project allows: a remote model API cannot run here.
"""

from __future__ import annotations

import json
from typing import Any

from seamhost.testing.model_adapter import CannedAnswer
from tests.model_openai.standin import Reply

_ERRORS = {"rate-limited": 429, "server": 500, "refused": 401}


def _event(delta: dict[str, Any] | None, finish: str | None = None, usage: Any = None) -> str:
    chunk = {
        "id": "chatcmpl-contract",
        "object": "chat.completion.chunk",
        "created": 1733000000,
        "model": "gpt-4o-mini",
        "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}],
        "usage": usage,
    }
    return f"data: {json.dumps(chunk)}\n\n"


def canned_reply(canned: CannedAnswer) -> Reply:
    """The stand-in's reply giving `canned`: a stream, cut or broken as `canned.fail` says."""
    if canned.fail in _ERRORS:
        status = _ERRORS[canned.fail]
        body = {"error": {"message": f"staged {canned.fail}", "type": "contract", "code": None}}
        return Reply(status, (("Content-Type", "application/json"),), json.dumps(body).encode())
    half = len(canned.text) // 2
    events = [_event({"role": "assistant", "content": canned.text[:half]})]
    events.append(_event({"content": canned.text[half:]}))
    for n, call in enumerate(canned.calls):
        opened = {"index": n, "id": call.call_id, "type": "function"}
        events.append(_event({"tool_calls": [opened | {"function": {"name": call.name}}]}))
    for n, call in enumerate(canned.calls):  # the arguments, each in two pieces
        cut = len(call.arguments) // 2
        for piece in (call.arguments[:cut], call.arguments[cut:]):
            events.append(_event({"tool_calls": [{"index": n, "function": {"arguments": piece}}]}))
    if canned.fail == "malformed":
        events.append('data: {"choices": [{"index": 0, "delta": {"content": "x\n\n')
    if canned.fail is None:
        events.append(_event({}, "tool_calls" if canned.calls else "stop"))
        events.append(_event(None, usage={"prompt_tokens": 9, "completion_tokens": 4}))
        events.append("data: [DONE]\n\n")
    return Reply.sse("".join(events).encode(), drop=canned.fail == "connection")
