"""seamhost-model-openai: a model adapter for OpenAI-compatible Chat Completions APIs.

It provides ``llm/adapter``: each model request is one streamed ``POST /chat/completions``
through the official ``openai`` SDK, its own retries off (the kernel records and retries each
attempt). The same adapter serves OpenAI, DeepSeek, vLLM, Ollama, llama.cpp's server and LM
Studio; only ``base_url`` (and the key) differ (see the plugin's README).

Profile table::

    [plugins.model-openai]
    model = "gpt-4o-mini"
    api_key = { "$env" = "OPENAI_API_KEY" }

The table is checked when the bundle is built; the SDK is imported only when a session first
streams (:mod:`seamhost_model_openai.adapter`), so a profile that does not name the plugin, and
``seamhost profile check``, pay nothing for it. How a stream becomes events is described in
:mod:`seamhost_model_openai.assembly`; what is sent, in :mod:`seamhost_model_openai.request`;
how a failure is classified, in :mod:`seamhost_model_openai.failures`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import PluginContext, PluginDescriptor, hookimpl
from seamhost.lazy import lazy_exports
from seamhost_model_openai.settings import CONFIG_SCHEMA, NAME, Settings

if TYPE_CHECKING:
    from seamhost import ModelAdapter
    from seamhost_model_openai.adapter import OpenAIAdapter


class OpenAIModel:
    """The plugin object: holds the checked settings and makes the adapter on first use."""

    def __init__(self, ctx: PluginContext) -> None:
        self.settings = Settings.from_config(ctx.config)
        self.adapter: OpenAIAdapter | None = None

    @hookimpl
    def llm_adapter(self) -> ModelAdapter:
        """The bundle's adapter: one per plugin object, so its HTTP connections are reused."""
        if self.adapter is None:
            from seamhost_model_openai.adapter import OpenAIAdapter

            self.adapter = OpenAIAdapter(self.settings)
        return self.adapter


descriptor = PluginDescriptor(
    name=NAME,
    factory=OpenAIModel,
    config_schema=CONFIG_SCHEMA,
    provides=["llm/adapter"],
    description="A model behind an OpenAI-compatible Chat Completions API (OpenAI, Ollama...).",
)

__all__ = ["OpenAIAdapter", "OpenAIModel", "Settings", "descriptor"]

# The adapter (and with it the SDK) is imported on first use, so that importing this package
# for its descriptor stays cheap.
__getattr__ = lazy_exports(__name__, {"OpenAIAdapter": "seamhost_model_openai.adapter"})
