"""An upstream tool as a seamhost tool: its name, what policy may believe of it, its pin.

**Annotations are untrusted hints** (design.md §13). ``readOnlyHint``, ``idempotentHint`` and
``destructiveHint`` change nothing unless the server's table says ``trust_annotations = true``;
then ``readOnlyHint`` makes the tool read-only and concurrency-safe and ``idempotentHint``
idempotent (``destructiveHint`` has nothing to loosen: a tool that is not read-only is treated
as one that may destroy). A per-tool override (``effect``, ``idempotent``,
``concurrency_safe``) wins over any hint. Without either, a mounted tool is a ``write`` tool,
not idempotent, not concurrency-safe: the most careful reading. Which hints and overrides count
is written into the tool's origin, which ``seamhost profile show`` prints.

**Pins.** A tool's ``pin`` (or its server's) names the descriptor digest the operator accepts.
When the server now describes something else, the tool stays registered but every call ends
``TOOL_CHANGED`` before anything is sent. A tool whose pin matches is accepted on resume even
when the session was written with another descriptor (that is what re-pinning means); a tool
with no pin must match the descriptor the session header recorded.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from seamhost import SandboxMode, ToolSpec
from seamhost_tools_mcp.calling import call
from seamhost_tools_mcp.descriptors import Descriptor, ServerIdentity, mounted_name, server_digest

if TYPE_CHECKING:
    from seamhost import ToolContext
    from seamhost_tools_mcp.pool import Pool
    from seamhost_tools_mcp.settings import ServerSettings

HINTS = ("readOnlyHint", "idempotentHint", "destructiveHint")


class MountedTool:
    """One exposed upstream tool, with everything its calls and its declaration need."""

    def __init__(
        self,
        server: ServerSettings,
        identity: ServerIdentity,
        descriptor: Descriptor,
        siblings: tuple[Descriptor, ...],
        profile_mode: SandboxMode,
    ) -> None:
        self.server = server
        self.identity = identity
        self.descriptor = descriptor
        self.name = mounted_name(server.name, descriptor.name)
        self.mode = server.mode(profile_mode)
        override = server.overrides.get(descriptor.name)
        trust = server.trust_annotations
        read_only_hint = trust and descriptor.hint("readOnlyHint") is True
        self.trusted = tuple(h for h in HINTS if trust and descriptor.hint(h) is not None)
        keys = ("effect", "idempotent", "concurrency_safe")
        self.overridden = tuple(k for k in keys if override and getattr(override, k) is not None)
        self.effect = (override and override.effect) or ("read-only" if read_only_hint else "write")
        self.idempotent = _first(
            override and override.idempotent, trust and descriptor.hint("idempotentHint") is True
        )
        self.concurrency_safe = _first(override and override.concurrency_safe, read_only_hint)
        self.pin, pinned = None, None
        if override is not None and override.pin is not None:
            self.pin, pinned = override.pin, descriptor.digest
        elif server.pin is not None:
            self.pin, pinned = server.pin, server_digest(siblings)
        self.refusal: str | None = None
        if self.pin is not None and self.pin != pinned:
            self.refusal = (
                f"{self.name}: the profile pins {self.pin}, but MCP server {server.name!r} now "
                f"describes {pinned}; nothing was sent. Check the change, then re-pin "
                "(`seamhost mcp pins`)."
            )

    @property
    def trusted_read_only(self) -> bool:
        return self.effect == "read-only"

    @property
    def repinned(self) -> bool:
        """The profile pins exactly what the server describes now: accepted on resume too."""
        return self.pin is not None and self.refusal is None

    def confinement(self, ctx: ToolContext) -> dict[str, Any]:
        """The ConfineRequest fields of the server a call of this tool talks to."""
        return {
            "mode": self.mode,
            "workspace": ctx.workspace,
            "writable_roots": ctx.writable_roots,
            "network": self.server.network,
            "read_only_paths": ctx.read_only_paths,
            "pins": ctx.pins,
        }

    def origin(self) -> dict[str, Any]:
        """The tool's pinned identity, written into its declaration and the bundle snapshot."""
        origin: dict[str, Any] = {
            "kind": "mcp",
            "server": self.server.name,
            "transport": self.server.transport,
            "server_info": self.identity.to_json(),
            "tool": self.descriptor.name,
            "descriptor": dict(self.descriptor.body),
            "descriptor_digest": self.descriptor.digest,
            "trusted_annotations": list(self.trusted),
            "overrides": list(self.overridden),
        }
        if self.server.transport == "stdio":
            origin["sandbox"] = str(self.mode)
        if self.pin is not None:
            origin["pin"] = self.pin
        return origin

    def spec(self, pool: Pool) -> ToolSpec:
        body = self.descriptor.body
        return ToolSpec(
            name=self.name,
            description=str(body.get("description") or f"{self.descriptor.name} (MCP)"),
            input_schema=body["inputSchema"],
            output_schema=body.get("outputSchema", {}),
            effect="read-only" if self.effect == "read-only" else "write",
            concurrency_safe=self.concurrency_safe,
            body=functools.partial(call, self, pool),
            idempotent=self.idempotent,
            runs_subprocesses=self.server.transport == "stdio" and self.mode.confining,
            origin=self.origin(),
        )


def _first(override: bool | None, hinted: bool) -> bool:
    return hinted if override is None else override
