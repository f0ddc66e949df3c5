"""Assembling one streamed Chat Completions response into seamhost's model events.

Each chunk's ``choices[0].delta`` carries ``content`` (text, streamed on as it comes) and
``tool_calls`` fragments keyed by ``index``: a call's first fragment has its ``id`` and
``function.name``, later ones more of ``function.arguments`` (names may be split too), and the
fragments of parallel calls interleave. ``finish_reason`` on a chunk ends the message (the
terminal event); with ``include_usage`` one more chunk follows with empty ``choices`` and the
``usage``. Buffered calls are proposed only when the stream has ended cleanly, so a failed
attempt proposes nothing.

Sequence rules (a violation is ``ModelFailed("malformed")``): a fragment for an index no
fragment with an id opened; content after the finish reason; a call without a name; a choice
other than 0. A stream that ends without a finish reason is ``incomplete`` (retryable: the
server cut it short). Ollama sends every parallel call complete at index 0: a fragment with a
new id *and* a name opens a new call there; a new id alone (LM Studio repeats fresh ids)
continues the call, which keeps its first id.

What the assembler keeps (text, call ids, names, argument fragments) is counted against the
request's ``max_response_bytes`` as it arrives (``response-too-large`` past it), so a call's
buffered arguments cannot grow past the cap either.

Finish reasons map to ``ModelDone.stop_reason``: stop → ``end``, tool_calls (and the older
function_call) → ``tool_calls``, length → ``max_tokens``, content_filter → ``content_filter``;
any other is passed on as the server said. After ``max_tokens`` and ``content_filter`` the
buffered calls were cut off, so none is proposed.
"""

from __future__ import annotations

from typing import Any

import attrs

from seamhost import ModelDone, ModelEvent, ModelFailed, ResponseMeter, ToolCallProposal, Usage

STOP_REASONS = {
    "stop": "end",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "max_tokens",
    "content_filter": "content_filter",
}
_CUT_OFF = frozenset({"max_tokens", "content_filter"})


@attrs.define
class _Call:
    call_id: str
    name: str
    arguments: list[str]


def _malformed(why: str) -> ModelFailed:
    return ModelFailed("malformed", why, retryable=False)


class ChunkAssembler:
    """Feeds on the SDK's ``ChatCompletionChunk`` objects of one attempt, in order."""

    def __init__(self, max_bytes: int | None = None) -> None:
        self.meter = ResponseMeter(max_bytes)
        self.calls: list[_Call] = []
        self.slots: dict[int, _Call] = {}  # the index of a fragment → the call it continues
        self.finish: str | None = None
        self.usage: Any = None

    def feed(self, chunk: Any) -> str | None:
        """Take one chunk; the text it adds, if any. Raises ModelFailed on a violation."""
        try:
            if chunk.usage is not None:
                self.usage = chunk.usage
            text = None
            for choice in chunk.choices:
                if choice.index != 0:
                    raise _malformed(f"a choice with index {choice.index} (only one was asked)")
                delta = choice.delta
                text = delta.content or delta.refusal
                self.meter.add(text)
                if self.finish is not None and (text or delta.tool_calls):
                    raise _malformed("content after the finish reason")
                if delta.tool_calls:
                    for fragment in delta.tool_calls:
                        self._add(fragment)
                if choice.finish_reason is not None:
                    self.finish = choice.finish_reason
            return text
        except (AttributeError, TypeError) as exc:
            raise _malformed(f"a chunk not of the Chat Completions shape ({exc})") from None

    def _add(self, fragment: Any) -> None:
        call = self.slots.get(fragment.index)
        function = fragment.function
        name = function.name if function is not None else None
        if call is None or (fragment.id and name and fragment.id != call.call_id):
            if not fragment.id:
                raise _malformed(f"arguments for tool call index {fragment.index}, never opened")
            self.meter.add(fragment.id)
            call = self.slots[fragment.index] = _Call(fragment.id, "", [])
            self.calls.append(call)
        if name:
            self.meter.add(name)
            call.name += name
        if function is not None and function.arguments:
            self.meter.add(function.arguments)
            call.arguments.append(function.arguments)

    def events(self) -> list[ModelEvent]:
        """The proposals and the ModelDone of a stream that ended; ModelFailed if unfinished."""
        if self.finish is None:
            raise ModelFailed(
                "incomplete", "the stream ended without a finish reason", retryable=True
            )
        stop = STOP_REASONS.get(self.finish, self.finish)
        out: list[ModelEvent] = []
        if stop not in _CUT_OFF:
            for call in self.calls:
                if not call.name:
                    raise _malformed(f"tool call {call.call_id} has no name")
                out.append(ToolCallProposal(call.call_id, call.name, "".join(call.arguments)))
        out.append(ModelDone(stop, _usage(self.usage)))
        return out


def _usage(usage: Any) -> Usage | None:
    if usage is None:
        return None
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None)
    if cached is None:  # DeepSeek reports its cache hits at the top level
        cached = getattr(usage, "prompt_cache_hit_tokens", None)
    return Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0, cached or 0)
