"""seamhost-model-anthropic: Anthropic's Messages API, streamed, as the bundle's model.

It provides ``llm/adapter``. Profile table::

    [plugins.model-anthropic]
    model = "claude-sonnet-4-5"
    api_key = { "$env" = "ANTHROPIC_API_KEY" }
    # base_url = "https://api.anthropic.com"   temperature = 0.2   max_output_tokens = 4096
    # timeout_s = 120   max_attempts = 3   extra_headers = {...}   extra_body = {...}

The table is validated when the bundle is built; the ``anthropic`` SDK is imported only when the
first request is streamed, so a profile that does not name this plugin pays nothing for it and
``seamhost profile check`` stays cheap. How a request is mapped is in
:mod:`seamhost_model_anthropic.request`, how the stream is read in
:mod:`seamhost_model_anthropic.events`, how failures are classified in
:mod:`seamhost_model_anthropic.failures`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import PluginContext, PluginDescriptor, hookimpl
from seamhost_model_anthropic.config import CONFIG_SCHEMA, NAME, AnthropicConfig

if TYPE_CHECKING:
    from seamhost import ModelAdapter


class AnthropicModel:
    """The plugin object: keeps the validated table and hands out one adapter."""

    def __init__(self, ctx: PluginContext) -> None:
        self.config = AnthropicConfig.from_table(ctx.config)
        self.adapter: ModelAdapter | None = None

    @hookimpl
    def llm_adapter(self) -> ModelAdapter:
        """The bundle's adapter; it opens its HTTP client on the first request."""
        if self.adapter is None:
            from seamhost_model_anthropic.adapter import AnthropicAdapter

            self.adapter = AnthropicAdapter(self.config)
        return self.adapter


descriptor = PluginDescriptor(
    name=NAME,
    factory=AnthropicModel,
    config_schema=CONFIG_SCHEMA,
    provides=["llm/adapter"],
    description="Anthropic's Messages API (streaming, tool use) as the model.",
)

__all__ = ["AnthropicConfig", "AnthropicModel", "descriptor"]
