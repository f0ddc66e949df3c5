"""seamhost-tools: the built-in tools (``shell``, ``read_file``, ``write_file``, ``edit_file``,
``list_dir``), registered through `tools/register`.

The file tools apply the call's sandbox mode through :class:`seamhost.sandbox.paths.PathPolicy`, the
policy the sandbox provider enforces for subprocesses; ``shell`` runs every command through the
call's confining runner. Profile table ``[plugins.tools]``: see
:data:`seamhost_tools.settings.CONFIG_SCHEMA`.

Building the plugin declares the tools (:mod:`.declarations`) without loading their bodies,
which import asyncio, the path policy and the runner on a tool's first call.
"""

from __future__ import annotations

from seamhost import PluginDescriptor
from seamhost_tools.plugin import ToolsPlugin
from seamhost_tools.settings import CONFIG_SCHEMA, TOOL_NAMES, ToolSettings

descriptor = PluginDescriptor(
    name="tools",
    factory=ToolsPlugin,
    config_schema=CONFIG_SCHEMA,
    provides=["tools/register", "tools/guard"],
    description="The built-in tools: " + ", ".join(TOOL_NAMES) + ".",
)

__all__ = ["CONFIG_SCHEMA", "TOOL_NAMES", "ToolSettings", "ToolsPlugin", "descriptor"]
