"""Fixtures for the built-in tools: a workspace with an outside next to it, and a way to call a
tool body the way the kernel does (arguments validated against the input schema and frozen, a
real `ToolContext`, a real `SandboxRunner` over a real façade), checking every value it returns
against the tool's output schema."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
from seamhost_tools.plugin import build_tools
from seamhost_tools.settings import ToolSettings

from seamhost.jsonvalue import freeze, thaw
from seamhost.kernel.bundle import make_plugin_manager
from seamhost.kernel.seams import Seams
from seamhost.sandbox.policy import SandboxMode
from seamhost.sandbox.runner import DEFAULT_OUTPUT_LIMIT, SandboxRunner
from seamhost.schema import compile_schema
from seamhost.tool.call import ToolContext, ToolOutput
from seamhost.tool.declaration import ToolSpec


@attrs.frozen
class Layout:
    """A workspace and a sibling directory outside it holding a file nobody may change."""

    workspace: Path
    outside: Path

    @property
    def secret(self) -> Path:
        return self.outside / "secret.txt"

    def outside_state(self) -> dict[str, bytes | str]:
        """Everything under `outside`: file contents, link targets, directories, modes."""
        state: dict[str, bytes | str] = {}
        for path in sorted(self.outside.rglob("*")):
            key = str(path.relative_to(self.outside))
            if path.is_symlink():
                state[key] = "-> " + str(path.readlink())
            elif path.is_dir():
                state[key] = f"dir {path.stat().st_mode:o}"
            else:
                state[key] = path.read_bytes() + f" mode {path.stat().st_mode:o}".encode()
        return state


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    workspace = tmp_path / "ws"
    outside = tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    return Layout(workspace, outside)


def no_provider_seams() -> Seams:
    """A façade over a plugin manager with no plugin at all: no `sandbox/confine` provider."""
    return Seams(make_plugin_manager())


ToolCaller = Callable[..., ToolOutput]


@pytest.fixture
def call_tool(layout: Layout) -> ToolCaller:
    """``call_tool(name, arguments, mode=..., settings=..., seams=..., ...)`` runs a tool body.

    Raises what the body raises (``ToolFailed``); returns its `ToolOutput` otherwise.
    """

    def call(
        name: str,
        arguments: dict[str, Any],
        *,
        mode: SandboxMode = SandboxMode.WORKSPACE_WRITE,
        settings: ToolSettings | None = None,
        seams: Seams | None = None,
        writable_roots: tuple[Path, ...] = (),
        workspace: Path | None = None,
        runner_output_limit: int | None = None,
        cancel_after: float | None = None,
    ) -> ToolOutput:
        spec = tool_spec(name, settings or ToolSettings())
        problem = compile_schema(spec.input_schema)(arguments)
        assert problem is None, f"test arguments do not match the input schema: {problem}"
        root = workspace or layout.workspace
        runner = SandboxRunner(
            (seams or no_provider_seams()).confine,
            mode=mode,
            workspace=root,
            writable_roots=writable_roots,
            output_limit=runner_output_limit or DEFAULT_OUTPUT_LIMIT,
        )

        async def run() -> ToolOutput:
            cancelled = asyncio.Event()
            ctx = ToolContext(
                call_id="call-1",
                arguments=freeze(arguments),
                workspace=root,
                sandbox_mode=mode,
                writable_roots=writable_roots,
                cancelled=cancelled,
                runner=runner,
            )
            if cancel_after is not None:
                asyncio.get_running_loop().call_later(cancel_after, cancelled.set)
            output: ToolOutput = await spec.body(ctx)
            return output

        output = asyncio.run(run())
        if not output.is_error:
            problem = compile_schema(spec.output_schema)(thaw(output.value))
            assert problem is None, f"{name} returned a value outside its output schema: {problem}"
        return output

    return call


def tool_spec(name: str, settings: ToolSettings) -> ToolSpec:
    specs = {spec.name: spec for spec in build_tools(settings)}
    return specs[name]
