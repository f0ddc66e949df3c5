"""The plugin's table: its JSON Schema and the settings an adapter is made from.

Checked when the bundle is built (the kernel validates the table against :data:`CONFIG_SCHEMA`
and resolves ``{"$env" = ...}`` first), so this module imports nothing a session alone needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

NAME = "model-openai"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_TIMEOUT_S = 300.0
DEFAULT_MAX_ATTEMPTS = 3

_TABLE = {"type": "object", "additionalProperties": {"type": "string"}}
CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "model": {"type": "string", "minLength": 1, "description": "The model to ask."},
        "base_url": {
            "type": "string",
            "minLength": 1,
            "description": f"The API's base URL, up to /v1 (default {DEFAULT_BASE_URL}).",
        },
        "api_key": {
            "type": "string",
            "description": 'The API key; pass it as { "$env" = "VARIABLE" }, never inline.',
        },
        "temperature": {"type": "number", "minimum": 0, "description": "Sampling temperature."},
        "max_output_tokens": {
            "type": "integer",
            "minimum": 1,
            "description": "The most tokens one response may have (sent as max_tokens).",
        },
        "timeout_s": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": f"Deadline of one attempt, in seconds (default {DEFAULT_TIMEOUT_S:g}).",
        },
        "max_attempts": {
            "type": "integer",
            "minimum": 1,
            "description": f"Attempts per model request (default {DEFAULT_MAX_ATTEMPTS}).",
        },
        "extra_headers": _TABLE | {"description": "HTTP headers added to every request."},
        "extra_body": {
            "type": "object",
            "description": "Fields merged into every request body (provider-specific options).",
        },
    },
    "required": ["model"],
    "additionalProperties": False,
}


@attrs.frozen
class Settings:
    """One checked ``[plugins.model-openai]`` table."""

    model: str  # the model to ask
    base_url: str = DEFAULT_BASE_URL  # up to and including /v1
    api_key: str | None = attrs.field(default=None, repr=False)  # never shown, never logged
    temperature: float | None = None
    max_output_tokens: int | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S  # the deadline of one attempt
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    extra_headers: Mapping[str, str] = attrs.field(factory=dict)
    extra_body: Mapping[str, Any] = attrs.field(factory=dict)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        """The settings of a table the kernel has already checked against the schema."""
        return cls(**{k: v for k, v in config.items() if k in _FIELDS})


_FIELDS = frozenset(CONFIG_SCHEMA["properties"])
