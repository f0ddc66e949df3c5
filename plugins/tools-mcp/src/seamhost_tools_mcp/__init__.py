"""seamhost-tools-mcp: the tools of upstream MCP servers, confined, pinned and governed.

Each server of ``[plugins.tools-mcp.servers.NAME]`` (a stdio ``command`` or a streamable HTTP
``url``) is connected to when the bundle is built; each tool it exposes becomes the seamhost
tool ``NAME__TOOL`` and goes through the whole governed pipeline (docs/design.md §13). A stdio
server is a subprocess confined by ``sandbox/confine`` (:mod:`.stdio`), allowed to read its
program and Python environment even where the confinement hides them (:mod:`.programs`, plus the
table's ``read_paths``); what a tool is and how far its annotations are believed:
:mod:`.mounted` and :mod:`.descriptors`; how a call ends: :mod:`.calling`. The MCP SDK is
imported when the plugin is loaded, which happens only for a profile that names it.

Profile table::

    [plugins.tools-mcp.servers.time]
    command = ["mcp-server-time", "--local-timezone", "UTC"]
    trust_annotations = true
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import PluginDescriptor
from seamhost.lazy import lazy_exports
from seamhost_tools_mcp.settings import CONFIG_SCHEMA, NAME

if TYPE_CHECKING:
    from seamhost import PluginContext
    from seamhost_tools_mcp.plugin import McpMount


def _factory(ctx: PluginContext) -> McpMount:
    from seamhost_tools_mcp.plugin import McpMount

    return McpMount(ctx)


descriptor = PluginDescriptor(
    name=NAME,
    factory=_factory,
    config_schema=CONFIG_SCHEMA,
    provides=["tools/register"],
    description="Tools of upstream MCP servers (stdio or streamable HTTP), confined and pinned.",
)

__getattr__ = lazy_exports(__name__, {"McpMount": "seamhost_tools_mcp.plugin"})

__all__ = ["CONFIG_SCHEMA", "McpMount", "descriptor"]
