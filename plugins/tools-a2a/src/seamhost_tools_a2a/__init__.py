"""seamhost-tools-a2a: remote A2A agents mounted as governed tools, pinned by their Agent Card.

Each agent of ``[plugins.tools-a2a.agents.NAME]`` is asked for its Agent Card when the bundle is
built (:mod:`.mounting`, :mod:`.card`) and becomes the tool ``a2a__NAME`` (:mod:`.mounted`),
which goes through the whole governed pipeline (policy, approval, a durable dispatch record)
before a message is delegated (:mod:`.delegation`); an unknown outcome is reconciled by asking
the agent for its task (:mod:`.probing`). The A2A SDK is imported when the plugin is loaded,
which happens only for a profile that names it.

Profile table::

    [plugins.tools-a2a.agents.research]
    url = "https://agents.example.org/research"
    token = { "$env" = "RESEARCH_TOKEN" }
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import PluginDescriptor
from seamhost.lazy import lazy_exports
from seamhost_tools_a2a.settings import CONFIG_SCHEMA, NAME

if TYPE_CHECKING:
    from seamhost import PluginContext
    from seamhost_tools_a2a.plugin import A2aMount


def _factory(ctx: PluginContext) -> A2aMount:
    from seamhost_tools_a2a.plugin import A2aMount

    return A2aMount(ctx)


descriptor = PluginDescriptor(
    name=NAME,
    factory=_factory,
    config_schema=CONFIG_SCHEMA,
    provides=["tools/register", "tools/reconcile"],
    description="Remote A2A agents as governed tools, pinned by their Agent Card.",
)

__getattr__ = lazy_exports(__name__, {"A2aMount": "seamhost_tools_a2a.plugin"})

__all__ = ["CONFIG_SCHEMA", "A2aMount", "descriptor"]
