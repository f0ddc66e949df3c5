"""The registration mode's driver: ``tools/register`` (design.md §3.4).

Apart from :mod:`seamhost.kernel.dispatch` because what it drives is not generic: every
implementation registers tools through a callback, and the driver builds the bundle's tool table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from seamhost.errors import PluginConflict, PluginLoadError, SeamContractError, describe

if TYPE_CHECKING:
    from seamhost.kernel.dispatch import Impl, Tracer
    from seamhost.tool.declaration import RegisteredTool


def register_tools(impls: Sequence[Impl], *, trace: Tracer) -> dict[str, RegisteredTool]:
    """``tools/register``: every plugin registers through a callback; a duplicate names both.

    Anything but a :class:`~seamhost.tool.call.ToolSpec` is a contract error; an implementation
    that raises fails the bundle naming the plugin.
    """
    from seamhost.tool.declaration import RegisteredTool, ToolSpec

    tools: dict[str, RegisteredTool] = {}
    for impl in impls:

        def register(spec: ToolSpec, _plugin: str = impl.plugin) -> None:
            if not isinstance(spec, ToolSpec):
                raise SeamContractError(
                    "tools/register", _plugin, f"registered {spec!r}, not a ToolSpec"
                )
            if spec.name in tools:
                raise PluginConflict(f"tool {spec.name!r}", (tools[spec.name].plugin, _plugin))
            tools[spec.name] = RegisteredTool.of(spec, _plugin)

        try:
            impl.call(register)
        except (PluginConflict, SeamContractError):
            raise
        except Exception as exc:
            raise PluginLoadError(impl.plugin, "tools/register", describe(exc)) from exc
        if trace.enabled:
            trace("tools/register", impl.plugin, "registered")
    return tools
