"""model-anthropic passes the model-adapter contract of seamhost.testing, against the stand-in.

The stand-in is THE ONE MOCK THIS PROJECT ALLOWS: a remote model API cannot run here. Each
canned answer becomes Messages-API wire bytes; each `answer` serves them from a fresh stand-in
and points a fresh adapter at it (the contract reads `adapter` after `answer`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import attrs
import pytest

from seamhost.testing.model_adapter import (
    FAILURE_KINDS,
    CannedAnswer,
    ModelAdapterContract,
    ModelDriver,
)
from tests.model_anthropic.driver import make_adapter
from tests.model_anthropic.standin import Reply, error, serve

KEY = "sk-ant-contract-secret"
ERRORS = {
    "rate-limited": (429, "rate_limit_error", {"retry-after": "1"}),
    "server": (500, "api_error", {}),
    "refused": (401, "authentication_error", {}),
}


def _event(kind: str, **data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"


def wire(canned: CannedAnswer) -> Reply:
    """The Messages API's answer giving `canned`, cut or broken as `canned.fail` says."""
    if canned.fail in ERRORS:
        status, kind, headers = ERRORS[canned.fail]
        return error(status, kind, f"staged {canned.fail}", **headers)
    usage = {"input_tokens": 9, "output_tokens": 1}
    message: dict[str, Any] = {"id": "msg_c", "type": "message", "role": "assistant", "content": [],
               "model": "claude-sonnet-4-5", "stop_reason": None, "usage": usage}  # fmt: skip
    events = [_event("message_start", message=message)]
    half = len(canned.text) // 2
    events.append(
        _event("content_block_start", index=0, content_block={"type": "text", "text": ""})
    )
    for piece in (canned.text[:half], canned.text[half:]):
        delta = {"type": "text_delta", "text": piece}
        events.append(_event("content_block_delta", index=0, delta=delta))
    events.append(_event("content_block_stop", index=0))
    for n, call in enumerate(canned.calls, start=1):
        block = {"type": "tool_use", "id": call.call_id, "name": call.name, "input": {}}
        events.append(_event("content_block_start", index=n, content_block=block))
        cut = len(call.arguments) // 2
        for piece in (call.arguments[:cut], call.arguments[cut:]):
            delta = {"type": "input_json_delta", "partial_json": piece}
            events.append(_event("content_block_delta", index=n, delta=delta))
        events.append(_event("content_block_stop", index=n))
    if canned.fail == "connection":
        events.append(": standin drop\n\n")
    elif canned.fail == "malformed":
        events.append('event: content_block_delta\ndata: {"type": "content_blo\n\n')
    elif canned.fail is None:
        stop = "tool_use" if canned.calls else "end_turn"
        ending: dict[str, Any] = {"stop_reason": stop, "stop_sequence": None}
        events.append(_event("message_delta", delta=ending, usage={"output_tokens": 4}))
        events.append(_event("message_stop"))
    return Reply(200, "".join(events))


@attrs.define
class AnthropicDriver:
    """A fresh stand-in and adapter for each answer."""

    stack: contextlib.ExitStack
    adapter: Any = None
    failures: tuple[str, ...] = FAILURE_KINDS
    secret: str | None = KEY

    def answer(self, canned: CannedAnswer) -> None:
        standin = self.stack.enter_context(serve([wire(canned)]))
        self.adapter = make_adapter(standin.url, api_key=KEY)


class TestAnthropicAdapterContract(ModelAdapterContract):
    @pytest.fixture
    def model_driver(self) -> Iterator[ModelDriver]:
        with contextlib.ExitStack() as stack:
            driver = AnthropicDriver(stack)
            driver.answer(CannedAnswer("warm-up"))  # an adapter exists before the first answer
            yield driver
