"""Fixtures: real bundles naming tool-policy next to a throwaway tool plugin.

The tool plugin ``policy-tools`` is installed as its own distribution (``plugin_site``) and
registers tools shaped like the built-in ones: ``shell`` (``command``, ``cwd``), ``exec``
(``argv``), ``write_file``/``read_file`` (``path``) and ``deploy`` (``branch``, ``targets``,
``replicas``). Bundles are built from profile files with the kernel's own ``resolve_profile`` and
``build_bundle``, and the seams are driven through the bundle's façade.
"""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest

from seamhost.jsonvalue import digest, freeze
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.sandbox.policy import SandboxMode
from seamhost.testing.sites import PluginSite
from seamhost.tool.call import ToolInvocation
from seamhost.tool.decision import Decision

TOOLS_PLUGIN = """
from seamhost import PluginDescriptor, ToolOutput, ToolSpec, hookimpl

STRING = {"type": "string"}
SCHEMAS = {
    "shell": ("write", {"command": STRING, "cwd": STRING}, ["command"]),
    "exec": ("write", {"argv": {"type": "array", "items": STRING}}, ["argv"]),
    "write_file": ("write", {"path": STRING, "content": STRING}, ["path", "content"]),
    "read_file": ("read-only", {"path": STRING}, ["path"]),
    "deploy": (
        "write",
        {"branch": STRING, "targets": {"type": "array", "items": STRING},
         "replicas": {"type": "integer"}},
        ["branch"],
    ),
}


async def body(ctx):
    return ToolOutput("ran")


class Tools:
    def __init__(self, ctx):
        pass

    @hookimpl
    def tools_register(self, register):
        for name, (effect, properties, required) in SCHEMAS.items():
            schema = {"type": "object", "properties": properties, "required": required,
                      "additionalProperties": False}
            register(ToolSpec(name, name, schema, {}, effect, False, body))


descriptor = PluginDescriptor(name="policy-tools", factory=Tools)
"""


class PolicyLab:
    """Writes profiles, builds bundles and drives tool-policy's seams on hand-made calls."""

    def __init__(self, site: PluginSite, workspace: Path) -> None:
        self.site = site
        self.workspace = workspace

    def profile(self, filename: str, body: str, *, name: str = "", extends: str = "") -> Path:
        """A profile file holding `body`, with the tools plugin unless it extends another."""
        head = f'[profile]\nname = "{name or Path(filename).stem}"\n'
        if extends:
            head += f"extends = [{extends}]\n"
        else:
            head += "[plugins.policy-tools]\n"
        return self.site.profile(filename, head + textwrap.dedent(body))

    def bundle(self, body: str = "", *, path: Path | None = None) -> Bundle:
        """The bundle of `path`, or of a fresh profile holding `body`."""
        profile = path if path is not None else self.profile("policy.toml", body)
        return build_bundle(resolve_profile(str(profile)))

    def call(self, bundle: Bundle, tool: str, **arguments: Any) -> ToolInvocation:
        return ToolInvocation(
            session_id="s-policy",
            turn=1,
            step=1,
            call_id="call-1",
            tool=bundle.tools[tool],
            arguments=freeze(arguments),
            args_digest=digest(arguments),
            workspace=self.workspace,
            sandbox_mode=SandboxMode.WORKSPACE_WRITE,
        )

    def decide(self, bundle: Bundle, tool: str, **arguments: Any) -> Decision:
        """The bundle's ``tools/pre-execute`` decision on a call."""
        return asyncio.run(bundle.seams.tools_pre_execute(self.call(bundle, tool, **arguments)))

    def guard(self, bundle: Bundle, tool: str, **arguments: Any) -> Decision:
        """The bundle's ``tools/guard`` decision on a call."""
        return asyncio.run(bundle.seams.tools_guard(self.call(bundle, tool, **arguments)))


@pytest.fixture
def lab(plugin_site: PluginSite, tmp_path: Path) -> PolicyLab:
    plugin_site.add("policy-tools", TOOLS_PLUGIN)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    return PolicyLab(plugin_site, workspace)
