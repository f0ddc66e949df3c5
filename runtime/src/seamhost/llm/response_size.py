"""The cap on one model response's size, ``[limits] max_response_bytes`` (design.md §12).

A response is counted as it streams, as the UTF-8 bytes of what it carries: its text, and each
tool call's id, name, arguments and escalation fields. That is what the runtime keeps of it, so
counting it bounds the memory a response can take, whatever the wire format wraps around it
(JSON framing, server-sent-event lines) and whatever the adapter. The runtime counts every
event an adapter yields (:mod:`seamhost.run.model_request`); an adapter that buffers part of the
response before it can yield it (the arguments of a call, streamed in fragments) counts the
fragments too, with a meter of its own from `ModelRequest.max_response_bytes`, so nothing grows
past the cap inside it either. Past the cap the attempt is cut off: ``ModelFailed`` of kind
``response-too-large``, not retryable (the same request would stream the same answer), and
nothing of the response is kept.
"""

from __future__ import annotations

from seamhost.llm.adapter import ModelFailed, ToolCallProposal

TOO_LARGE = "response-too-large"


class ResponseMeter:
    """Counts one response's bytes against `limit` (``None``: no cap); raises past it."""

    __slots__ = ("limit", "used")

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.used = 0

    def add(self, text: str | None) -> None:
        """Count `text` (its UTF-8 bytes); raise `ModelFailed` once the total passes the cap."""
        if not text:
            return
        self.used += len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
        if self.limit is not None and self.used > self.limit:
            raise ModelFailed(
                TOO_LARGE,
                f"the response passed {self.limit} bytes ([limits] max_response_bytes) and was "
                "cut off; nothing of it is kept. Ask for a shorter answer, or raise the limit",
            )

    def call(self, proposal: ToolCallProposal) -> None:
        """Count everything of `proposal` that the runtime keeps."""
        for part in (
            proposal.call_id,
            proposal.name,
            proposal.arguments,
            proposal.sandbox_permissions,
            proposal.justification,
        ):
            self.add(part)
