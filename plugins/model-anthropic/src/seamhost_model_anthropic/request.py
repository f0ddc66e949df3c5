"""The Messages API request for a `ModelRequest`: system prompt, turns, tool blocks, tools.

- ``context`` messages (runtime notices) that come before the first user or assistant turn form
  ``system``, joined by blank lines. A notice later in the conversation stays where it is, as
  a user text block prefixed ``[runtime notice]``: moving it into ``system`` would change the
  start of every later request (defeating the provider's prompt cache) and would put it before
  the turns it follows.
- An assistant message becomes a text block (when it has text) and one ``tool_use`` block per
  call, whose ``id`` is the model's own call id and whose ``input`` is the parsed arguments
  (``{}`` when they are not a JSON object: the tool result already told the model why).
- A tool result becomes a ``tool_result`` block (``tool_use_id``, ``content``, ``is_error``) in a
  user message; consecutive messages of one role are merged into one message, as the API
  requires, so the results of one step's calls travel together.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from seamhost import ModelRequest
from seamhost_model_anthropic.config import AnthropicConfig

NOTICE = "[runtime notice] "


def build_params(request: ModelRequest, config: AnthropicConfig) -> dict[str, Any]:
    """The keyword arguments of ``messages.create`` for `request` (without ``stream``)."""
    system, messages = map_messages(request.messages)
    params: dict[str, Any] = {
        "model": config.model,
        # The smaller of the plugin's setting and what the session's budget leaves ([limits]).
        "max_tokens": max(1, min(config.max_output_tokens, request.max_output_tokens or 1 << 62)),
        "messages": messages,
    }
    if system:
        params["system"] = system
    if request.tools:
        params["tools"] = [map_tool(tool) for tool in request.tools]
    # Sent through the body: recent SDKs no longer take sampling options as arguments.
    body = {"temperature": config.temperature} if config.temperature is not None else {}
    if body or config.extra_body:
        params["extra_body"] = body | dict(config.extra_body)
    return params


def map_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A tool declaration as the API takes it."""
    schema = tool.get("input_schema") or {"type": "object", "properties": {}}
    return {
        "name": tool["name"],
        "description": tool.get("description", ""),
        "input_schema": schema,
    }


def map_messages(conversation: tuple[Mapping[str, Any], ...]) -> tuple[str, list[dict[str, Any]]]:
    """The system prompt and the alternating user/assistant messages of `conversation`."""
    system: list[str] = []
    messages: list[dict[str, Any]] = []
    for message in conversation:
        role = message["role"]
        if role == "context" and not messages:
            system.append(str(message["content"]))
            continue
        if role == "assistant":
            blocks = _assistant_blocks(message)
        elif role == "tool":
            blocks = [_tool_result(message)]
        elif role == "context":
            blocks = [{"type": "text", "text": NOTICE + str(message["content"])}]
        else:
            blocks = (
                [{"type": "text", "text": str(message["content"])}] if message["content"] else []
            )
        if not blocks:
            continue
        api_role = "assistant" if role == "assistant" else "user"
        if messages and messages[-1]["role"] == api_role:
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": api_role, "content": blocks})
    return "\n\n".join(system), messages


def _assistant_blocks(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if message.get("content"):
        blocks.append({"type": "text", "text": str(message["content"])})
    for call in message.get("tool_calls") or ():
        blocks.append(
            {"type": "tool_use", "id": call["call_id"], "name": call["name"], "input": _input(call)}
        )
    return blocks


def _input(call: Mapping[str, Any]) -> dict[str, Any]:
    try:
        value = json.loads(call.get("arguments") or "{}")
    except ValueError:
        value = None
    arguments: dict[str, Any] = value if isinstance(value, dict) else {}
    for key in ("sandbox_permissions", "justification"):  # an escalation the model asked for
        if call.get(key) is not None:
            arguments.setdefault(key, call[key])
    return arguments


def _tool_result(message: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "tool_use_id": message["call_id"],
        "content": str(message["content"]),
        "is_error": bool(message.get("is_error", False)),
    }
