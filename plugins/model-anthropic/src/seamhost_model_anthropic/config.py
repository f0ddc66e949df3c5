"""The profile table of model-anthropic: its JSON Schema and the values an adapter reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

NAME = "model-anthropic"
DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MAX_OUTPUT_TOKENS = 4096  # the Messages API requires max_tokens on every request

_TABLE = {"type": "object", "additionalProperties": {"type": "string"}}
CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "base_url": {"type": "string", "minLength": 1, "description": "The API's root URL."},
        "model": {"type": "string", "minLength": 1, "description": "The model id to ask."},
        "api_key": {"type": "string", "minLength": 1, "description": "Use {$env = ...}."},
        "temperature": {"type": "number", "minimum": 0, "maximum": 1},
        "max_output_tokens": {"type": "integer", "minimum": 1},
        "timeout_s": {"type": "number", "exclusiveMinimum": 0, "description": "Per attempt."},
        "max_attempts": {"type": "integer", "minimum": 1},
        "extra_headers": {**_TABLE, "description": "Sent with every request."},
        "extra_body": {"type": "object", "description": "Merged into every request body."},
    },
    "required": ["model", "api_key"],
    "additionalProperties": False,
}


@attrs.frozen
class AnthropicConfig:
    """The validated table (the kernel has checked it against :data:`CONFIG_SCHEMA`)."""

    model: str
    api_key: str = attrs.field(repr=False)  # never shown, never part of the identity
    base_url: str = DEFAULT_BASE_URL
    temperature: float | None = None
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    timeout_s: float = 120.0  # the whole attempt: connecting, waiting and streaming
    max_attempts: int = 3
    extra_headers: Mapping[str, str] = attrs.field(factory=dict)
    extra_body: Mapping[str, Any] = attrs.field(factory=dict)

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> AnthropicConfig:
        """The config of a profile table whose keys the schema allows."""
        return cls(**{k: v for k, v in table.items() if k in CONFIG_SCHEMA["properties"]})
