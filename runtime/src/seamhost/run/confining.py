"""How the calls of one pipeline are confined and batched (design.md §5 steps 7 and 12).

**Confinement.** One runner per sandbox mode: the seams and the session's pinned roots
(:class:`~seamhost.sandbox.roots.Pins`: the workspace, the writable roots and the read-only
paths, resolved once when the pipeline is built) are fixed for the pipeline's life. Whether a
confining mode has a usable ``sandbox/confine`` provider is probed once per mode (the provider
and its backends are fixed for the bundle's life), so a call's own confinement runs once, in
its runner, for what its body spawns.

**Batches.** Consecutive concurrency-safe calls share a batch whose bodies may run in parallel;
every other call is a batch of its own, a barrier.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from seamhost.errors import describe
from seamhost.sandbox.confinement import ConfineRequest
from seamhost.sandbox.policy import SandboxMode
from seamhost.sandbox.runner import Confine, SandboxRunner

if TYPE_CHECKING:
    from seamhost.llm.adapter import ToolCallProposal
    from seamhost.sandbox.roots import Pins
    from seamhost.tool.declaration import RegisteredTool


class Confinement:
    """The runners of one pipeline, one per mode, and whether each mode can be confined."""

    def __init__(self, confine: Confine, pins: Pins, network: bool) -> None:
        self._confine = confine
        self._pins = pins
        self._workspace = pins.workspace.path
        self._roots = tuple(pin.path for pin in pins.writable)
        self._read_only = tuple(pin.path for pin in pins.read_only)
        self._network = network
        self._runners: dict[SandboxMode, SandboxRunner] = {}
        self._problems: dict[SandboxMode, str | None] = {}

    async def problem(self, mode: SandboxMode) -> str | None:
        """Why a subprocess cannot be confined in `mode`, or ``None`` when it can."""
        if mode not in self._problems:
            probe = ConfineRequest(
                ("true",),
                mode,
                self._workspace,
                self._roots,
                self._network,
                read_only_paths=self._read_only,
                pins=self._pins,
            )
            try:
                await self._confine(probe)
            except Exception as exc:
                self._problems[mode] = (
                    f"{mode} needs a usable sandbox/confine provider: {describe(exc)}"
                )
            else:
                self._problems[mode] = None
        return self._problems[mode]

    def runner(self, mode: SandboxMode) -> SandboxRunner:
        """The runner of `mode`."""
        runner = self._runners.get(mode)
        if runner is None:
            runner = self._runners[mode] = SandboxRunner(
                self._confine,
                mode,
                self._workspace,
                self._roots,
                self._network,
                read_only_paths=self._read_only,
                pins=self._pins,
            )
        return runner


def batches(
    proposals: Sequence[ToolCallProposal], tools: Mapping[str, RegisteredTool]
) -> list[list[ToolCallProposal]]:
    """Consecutive concurrency-safe calls share a batch; every other call is a batch alone."""
    batches: list[list[ToolCallProposal]] = []
    open_batch = False
    for proposal in proposals:
        tool: RegisteredTool | None = tools.get(proposal.name)
        safe = tool is not None and tool.spec.concurrency_safe
        if safe and open_batch:
            batches[-1].append(proposal)
        else:
            batches.append([proposal])
        open_batch = safe
    return batches
