"""What one attempt sends: a seamhost :class:`~seamhost.ModelRequest` as a Chat Completions body.

Messages map role by role: ``user`` as is; ``assistant`` with its ``tool_calls`` as
``{"id", "type": "function", "function": {"name", "arguments"}}`` (content ``null`` when the
message is only calls); ``tool`` as ``{"role": "tool", "tool_call_id", "content"}``, the model's
own call id round-tripped; ``context`` (a runtime notice) as a ``system`` message in place.
Tools become ``{"type": "function", "function": {"name", "description", "parameters"}}`` from
each declaration's ``input_schema``. The stream asks for usage (``stream_options``), which the
provider sends in one last chunk with empty ``choices``. ``max_output_tokens``, or what the
session's token budget leaves when that is less (the request's ``max_output_tokens``), is sent
as ``max_tokens``, the field every compatible server reads; ``extra_body`` is merged last.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seamhost import ModelFailed, ModelRequest
from seamhost_model_openai.settings import Settings


def chat_messages(messages: tuple[Mapping[str, Any], ...]) -> list[dict[str, Any]]:
    """The conversation in the Chat Completions format; ModelFailed(refused) on a role it lacks."""
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role in ("user", "system"):
            out.append({"role": role, "content": message["content"]})
        elif role == "context":
            out.append({"role": "system", "content": message["content"]})
        elif role == "assistant":
            calls = [
                {
                    "id": call["call_id"],
                    "type": "function",
                    "function": {"name": call["name"], "arguments": call["arguments"]},
                }
                for call in message.get("tool_calls") or ()
            ]
            entry: dict[str, Any] = {"role": "assistant", "content": message.get("content") or None}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
        elif role == "tool":
            out.append(
                {"role": "tool", "tool_call_id": message["call_id"], "content": message["content"]}
            )
        else:
            raise ModelFailed("refused", f"cannot send a message with role {role!r}")
    return out


def chat_tools(tools: tuple[Mapping[str, Any], ...]) -> list[dict[str, Any]]:
    """The tool declarations as Chat Completions function tools."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": dict(tool.get("input_schema") or {"type": "object"}),
            },
        }
        for tool in tools
    ]


def chat_request(settings: Settings, request: ModelRequest) -> dict[str, Any]:
    """The keyword arguments of ``chat.completions.create`` for one streamed attempt."""
    kwargs: dict[str, Any] = {
        "model": settings.model,
        "messages": chat_messages(request.messages),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        kwargs["tools"] = chat_tools(request.tools)
    if settings.temperature is not None:
        kwargs["temperature"] = settings.temperature
    # The smaller of the plugin's setting and what the session's budget leaves ([limits]).
    caps = [c for c in (settings.max_output_tokens, request.max_output_tokens) if c is not None]
    if caps:
        kwargs["max_tokens"] = max(1, min(caps))
    if settings.extra_headers:
        kwargs["extra_headers"] = dict(settings.extra_headers)
    if settings.extra_body:
        kwargs["extra_body"] = dict(settings.extra_body)
    return kwargs
