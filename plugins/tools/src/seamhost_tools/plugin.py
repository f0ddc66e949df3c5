"""The plugin object: reads its settings and registers the tools they enable."""

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

    from seamhost import PluginContext, ToolRegistrar, ToolSpec

MAKERS: dict[str, Callable[[ToolSettings], ToolSpec]] = {
    "read_file": make_read_file,
    "list_dir": make_list_dir,
    "write_file": make_write_file,
    "edit_file": make_edit_file,
    "shell": make_shell,
}


def build_tools(settings: ToolSettings) -> tuple[ToolSpec, ...]:
    """The specs of the tools `settings` enables, in the order the settings name them."""
    return tuple(MAKERS[name](settings) for name in settings.tools)


class ToolsPlugin:
    """Registers the built-in tools through `tools/register`."""

    def __init__(self, ctx: PluginContext) -> None:
        self.settings = ToolSettings.from_config(ctx.config, str(ctx.profile_path))
        self.specs = build_tools(self.settings)

    @hookimpl
    def tools_register(self, register: ToolRegistrar) -> None:
        for spec in self.specs:
            register(spec)
