"""Reading one Messages API stream: its events become seamhost's, its violations failures.

The expected sequence is ``message_start``, then for each content block ``content_block_start``,
its ``content_block_delta`` events and ``content_block_stop``, then ``message_delta`` (the stop
reason and the output tokens) and ``message_stop``, the terminal event; ``ping`` may come at any
point (the SDK drops it) and an ``error`` event ends the stream (the SDK raises it). Text streams
as it comes. A ``tool_use`` block's input arrives as ``input_json_delta`` pieces of a JSON text,
split anywhere (mid-string, mid-escape): they are concatenated and the call is proposed only
after ``message_stop``, so a failed attempt proposes nothing. Unknown event and block types
(thinking, server tools, whatever the API adds) are skipped; an event out of sequence is
``malformed``, a stream that ends before ``message_stop`` is ``incomplete``. What the reader
keeps (text, call ids, names, input pieces) is counted against the request's
``max_response_bytes`` as it arrives (``response-too-large`` past it), so a call's buffered
input cannot grow past the cap either.
"""

from __future__ import annotations

import json
from typing import Any

from seamhost import (
    ModelDone,
    ModelEvent,
    ModelFailed,
    ResponseMeter,
    TextDelta,
    ToolCallProposal,
    Usage,
)

_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)
STOP_REASONS = {"end_turn": "end", "stop_sequence": "end", "tool_use": "tool_calls"}


class StreamReader:
    """The state of one attempt's stream: open blocks, buffered calls, usage, the stop."""

    __slots__ = ("blocks", "calls", "done", "meter", "open", "started", "stop_reason", "usage")

    def __init__(self, max_bytes: int | None = None) -> None:
        self.meter = ResponseMeter(max_bytes)
        self.started = self.done = False
        self.blocks: dict[int, str] = {}  # index → block type, for blocks not yet stopped
        self.open: dict[int, list[str]] = {}  # index → the tool input pieces so far
        self.calls: list[tuple[str, str, list[str]]] = []  # id, name, input pieces
        self.usage: dict[str, int] = {}
        self.stop_reason = "end"

    def feed(self, event: Any) -> TextDelta | None:
        """Take one SDK event; return the text it carries, if any."""
        kind = event.type
        if self.done:
            raise _malformed(f"{kind} after message_stop")
        if kind == "content_block_delta":
            delta = event.delta
            block = self.blocks.get(event.index)
            if block is None:
                raise _malformed(f"a delta for block {event.index}, which is not open")
            if delta.type == "text_delta" and block == "text":
                self.meter.add(delta.text)
                return TextDelta(delta.text)
            if delta.type == "input_json_delta" and block == "tool_use":
                self.meter.add(delta.partial_json)
                self.open[event.index].append(delta.partial_json)
                return None
            if block in ("text", "tool_use"):
                raise _malformed(f"a {delta.type} in the {block} block {event.index}")
            return None
        if not self.started and kind != "message_start":
            raise _malformed(f"{kind} before message_start")
        if kind == "content_block_start":
            return self._start(event.index, event.content_block)
        if kind == "content_block_stop":
            if self.blocks.pop(event.index, None) is None:
                raise _malformed(f"content_block_stop for block {event.index}, which is not open")
        elif kind == "message_start":
            if self.started:
                raise _malformed("a second message_start")
            self.started = True
            self._count(event.message.usage)
        elif kind == "message_delta":
            reason = event.delta.stop_reason
            self.stop_reason = STOP_REASONS.get(reason, reason) if reason else "end"
            self._count(event.usage)
        elif kind == "message_stop":
            if self.blocks:
                raise _malformed(f"message_stop with block(s) {sorted(self.blocks)} still open")
            self.done = True
        return None

    def _start(self, index: int, block: Any) -> TextDelta | None:
        if index in self.blocks:
            raise _malformed(f"block {index} started twice")
        self.blocks[index] = block.type
        if block.type == "tool_use":  # an input given whole up front starts the pieces
            self.open[index] = pieces = [json.dumps(block.input)] if block.input else []
            for part in (block.id, block.name, *pieces):
                self.meter.add(part)
            self.calls.append((block.id, block.name, pieces))
        elif block.type == "text" and block.text:
            self.meter.add(block.text)
            return TextDelta(block.text)
        return None

    def _count(self, usage: Any) -> None:
        for key in _USAGE_KEYS:
            value = getattr(usage, key, None)
            if value is not None:  # message_delta's counts are cumulative: the later wins
                self.usage[key] = value

    def finish(self) -> list[ModelEvent]:
        """The calls and the terminal event, once the stream has ended; or the failure."""
        if not self.done:
            raise ModelFailed("incomplete", "the stream ended before message_stop", retryable=True)
        out: list[ModelEvent] = [
            ToolCallProposal(call_id, name, "".join(pieces) or "{}")
            for call_id, name, pieces in self.calls
        ]
        u = self.usage
        cached = u.get("cache_read_input_tokens", 0)
        total_in = u.get("input_tokens", 0) + cached + u.get("cache_creation_input_tokens", 0)
        out.append(ModelDone(self.stop_reason, Usage(total_in, u.get("output_tokens", 0), cached)))
        return out


def _malformed(what: str) -> ModelFailed:
    return ModelFailed("malformed", f"stream out of sequence: {what}")
