"""The plugin object: mounts the agents when the bundle collects tools, guards resumes, probes.

``tools/register`` fetches every agent's card (:mod:`.mounting`) and registers one tool per
agent (:mod:`.mounted`). ``tools/execute`` refuses, with ``TOOL_CHANGED``, a call of a mounted
agent whose card differs from the one the session header recorded (the session was written
against another card), unless the profile re-pinned it. ``tools/reconcile`` asks the agent
what became of a delegation whose outcome is unknown (:mod:`.probing`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import ErrorCode, ToolResult, changed_descriptor, hookimpl
from seamhost_tools_a2a.mounted import MountedAgent
from seamhost_tools_a2a.mounting import mount_all
from seamhost_tools_a2a.probing import probe_task
from seamhost_tools_a2a.settings import agents_from_config

if TYPE_CHECKING:
    from seamhost import (
        ExecuteNext,
        Pending,
        PluginContext,
        Probe,
        Resolved,
        ToolExecution,
        ToolRegistrar,
    )


class A2aMount:
    """Registers one tool per remote A2A agent of the profile."""

    def __init__(self, ctx: PluginContext) -> None:
        self.name = ctx.name
        self.agents = agents_from_config(ctx.config, str(ctx.profile_path))
        self.tools: dict[str, MountedAgent] = {}

    @hookimpl
    def tools_register(self, register: ToolRegistrar) -> None:
        for agent, card in mount_all(self.agents):
            tool = MountedAgent(agent, card)
            self.tools[tool.name] = tool
            register(tool.spec())

    @hookimpl
    async def tools_execute(self, execution: ToolExecution, call_next: ExecuteNext) -> ToolResult:
        invocation = execution.invocation
        tool = self.tools.get(invocation.name)
        if tool is None or invocation.tool.plugin != self.name:
            return await call_next(execution)
        recorded = changed_descriptor(execution, tool.card.digest, repinned=tool.repinned)
        if recorded is None:
            return await call_next(execution)
        return ToolResult.failure(
            invocation.call_id,
            ErrorCode.TOOL_CHANGED,
            f"{tool.name}: this session was written with Agent Card {recorded}, but A2A agent "
            f"{tool.agent.name!r} now serves {tool.card.digest}; nothing was sent. Check the "
            "change and re-pin it (`pin` in its table) to accept it.",
        )

    @hookimpl
    async def tools_reconcile(self, probe: Probe) -> Pending | Resolved:
        return await probe_task(self.tools[probe.tool], probe)
