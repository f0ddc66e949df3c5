"""The plugin object: reads its settings, registers the tools they enable, guards their writes.

The guard's path policy is imported on the first call it looks at, not when a bundle is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import hookimpl
from seamhost_tools.declarations import (
    make_edit_file,
    make_list_dir,
    make_read_file,
    make_shell,
    make_write_file,
)
from seamhost_tools.settings import ToolSettings

if TYPE_CHECKING:
    from collections.abc import Callable

    from seamhost import Decision, PluginContext, ToolInvocation, ToolRegistrar, ToolSpec

MAKERS: dict[str, Callable[[ToolSettings], ToolSpec]] = {
    "read_file": make_read_file,
    "list_dir": make_list_dir,
    "write_file": make_write_file,
    "edit_file": make_edit_file,
    "shell": make_shell,
}


WRITING_TOOLS = frozenset({"write_file", "edit_file"})  # they write through the path policy


def build_tools(settings: ToolSettings) -> tuple[ToolSpec, ...]:
    """The specs of the tools `settings` enables, in the order the settings name them."""
    return tuple(MAKERS[name](settings) for name in settings.tools)


class ToolsPlugin:
    """Registers the built-in tools through `tools/register`; denies their doomed writes."""

    def __init__(self, ctx: PluginContext) -> None:
        self.settings = ToolSettings.from_config(ctx.config, str(ctx.profile_path))
        self.specs = build_tools(self.settings)
        self.sandbox = ctx.sandbox
        self.writers = WRITING_TOOLS.intersection(self.settings.tools)

    @hookimpl
    def tools_register(self, register: ToolRegistrar) -> None:
        for spec in self.specs:
            register(spec)

    @hookimpl
    def tools_guard(self, call: ToolInvocation) -> Decision | None:
        """Deny a write of ours that the sandbox will refuse (:mod:`.sandboxed`); else abstain."""
        if call.tool.spec.name not in self.writers or call.tool.plugin != "tools":
            return None
        from seamhost_tools.sandboxed import sandbox_refusal  # see the module docstring

        return sandbox_refusal(call, self.sandbox)
