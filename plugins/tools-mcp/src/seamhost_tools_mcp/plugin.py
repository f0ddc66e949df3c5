"""The plugin object: mounts the servers when the bundle collects tools, and guards resumes.

``tools/register`` connects to every server (:mod:`.discovery`) and registers its exposed
tools (:mod:`.mounted`). ``tools/execute`` refuses, with ``TOOL_CHANGED``, a call of a mounted
tool whose descriptor differs from the one the session header recorded (the session was written
against another version of the tool), unless the profile re-pinned it. ``llm/stream`` tells the
model, at each request, which optional servers are absent and which tools were refused, and why.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from seamhost import ErrorCode, ToolResult, changed_descriptor, hookimpl
from seamhost.errors import SeamUnavailable
from seamhost_tools_mcp.discovery import Mount, discover
from seamhost_tools_mcp.mounted import MountedTool
from seamhost_tools_mcp.pool import Pool
from seamhost_tools_mcp.settings import Settings

if TYPE_CHECKING:
    from seamhost import (
        ConfinedCommand,
        ConfineRequest,
        ExecuteNext,
        ModelEvent,
        ModelRequest,
        PluginContext,
        StreamNext,
        ToolExecution,
        ToolRegistrar,
    )


class McpMount:
    """Registers the tools of the profile's MCP servers."""

    def __init__(self, ctx: PluginContext) -> None:
        self.name = ctx.name
        self.settings = Settings.from_config(ctx.config, ctx.profile_path, ctx.environ)
        self.sandbox = ctx.sandbox
        self.environ = ctx.environ
        self.workspace = ctx.workspace
        self._confine = ctx.confine
        self.pool = Pool(self.settings, self.confine, ctx.environ)
        self.mounts: tuple[Mount, ...] = ()
        self.tools: dict[str, MountedTool] = {}

    async def confine(self, request: ConfineRequest) -> ConfinedCommand:
        if self._confine is None:
            raise SeamUnavailable("sandbox/confine")
        return await self._confine(request)

    @hookimpl
    def tools_register(self, register: ToolRegistrar) -> None:
        self.mounts = discover(
            self.settings,
            confine=self.confine,
            sandbox=self.sandbox,
            environ=self.environ,
            workspace=self.workspace,
        )
        for mount in self.mounts:
            if mount.identity is None:
                continue
            for descriptor in mount.descriptors:
                tool = MountedTool(
                    mount.server, mount.identity, descriptor, mount.descriptors, self.sandbox.mode
                )
                self.tools[tool.name] = tool
                register(tool.spec(self.pool))

    @hookimpl
    async def tools_execute(self, execution: ToolExecution, call_next: ExecuteNext) -> ToolResult:
        invocation = execution.invocation
        tool = self.tools.get(invocation.name)
        if tool is None or invocation.tool.plugin != self.name:
            return await call_next(execution)
        recorded = changed_descriptor(execution, tool.descriptor.digest, repinned=tool.repinned)
        if recorded is None:
            return await call_next(execution)
        return ToolResult.failure(
            invocation.call_id,
            ErrorCode.TOOL_CHANGED,
            f"{tool.name}: this session was written with descriptor {recorded}, but MCP server "
            f"{tool.server.name!r} now describes {tool.descriptor.digest}; nothing was sent. "
            "Check the change and re-pin the tool (`seamhost mcp pins`) to accept it.",
        )

    @hookimpl
    async def llm_stream(
        self, request: ModelRequest, call_next: StreamNext
    ) -> AsyncIterator[ModelEvent]:
        notes = [
            f"MCP server {m.server.name!r} is unavailable, so its tools are absent: {m.absent}"
            for m in self.mounts
            if m.absent is not None
        ]
        notes += [message for m in self.mounts for _, message in m.refused]
        if notes:
            import attrs

            note = {"role": "system", "content": "\n".join(notes)}
            request = attrs.evolve(request, messages=(note, *request.messages))
        async for event in call_next(request):
            yield event
