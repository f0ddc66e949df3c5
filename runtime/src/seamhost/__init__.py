"""seamhost: a plugin-host runtime for governed, durable, recoverable tool calls.

The public API is the names in ``__all__``. They are imported on first use, so that
``import seamhost`` (and every plugin's import of it) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost.lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS = {
    "hookimpl": "seamhost.hookspecs",
    "hookspec": "seamhost.hookspecs",
    "PluginDescriptor": "seamhost.descriptor",
    "PluginContext": "seamhost.descriptor",
    "Profile": "seamhost.profile",
    "resolve_profile": "seamhost.profile",
    "Bundle": "seamhost.bundle",
    "BundleSnapshot": "seamhost.bundle",
    "build_bundle": "seamhost.bundle",
    "make_plugin_manager": "seamhost.bundle",
    "Seams": "seamhost.facade",
    "ToolSpec": "seamhost.tools",
    "ToolContext": "seamhost.calls",
    "ToolOutput": "seamhost.calls",
    "ToolInvocation": "seamhost.calls",
    "ToolExecution": "seamhost.calls",
    "ToolRegistrar": "seamhost.tools",
    "ToolResult": "seamhost.results",
    "ToolError": "seamhost.results",
    "ErrorCode": "seamhost.results",
    "Decision": "seamhost.decisions",
    "Verdict": "seamhost.decisions",
    "Replace": "seamhost.decisions",
    "Block": "seamhost.decisions",
    "SandboxMode": "seamhost.sandbox",
    "SandboxPolicy": "seamhost.sandbox",
    "ConfineRequest": "seamhost.confinement",
    "ConfinedCommand": "seamhost.confinement",
    "ApprovalOutcome": "seamhost.approval",
    "ApprovalRequest": "seamhost.approval",
    "StepContext": "seamhost.steps",
    "ModelRequest": "seamhost.model",
    "Session": "seamhost.session.session",
    "Record": "seamhost.session.record",
    "SessionHeader": "seamhost.session.store",
    "SessionStore": "seamhost.session.store",
    "MemoryStore": "seamhost.session.memory",
    "SeamhostError": "seamhost.errors",
    "ConfigError": "seamhost.errors",
}

__all__ = [
    "ApprovalOutcome",
    "ApprovalRequest",
    "Block",
    "Bundle",
    "BundleSnapshot",
    "ConfigError",
    "ConfineRequest",
    "ConfinedCommand",
    "Decision",
    "ErrorCode",
    "MemoryStore",
    "ModelRequest",
    "PluginContext",
    "PluginDescriptor",
    "Profile",
    "Record",
    "Replace",
    "SandboxMode",
    "SandboxPolicy",
    "SeamhostError",
    "Seams",
    "Session",
    "SessionHeader",
    "SessionStore",
    "StepContext",
    "ToolContext",
    "ToolError",
    "ToolExecution",
    "ToolInvocation",
    "ToolOutput",
    "ToolRegistrar",
    "ToolResult",
    "ToolSpec",
    "Verdict",
    "__version__",
    "build_bundle",
    "hookimpl",
    "hookspec",
    "make_plugin_manager",
    "resolve_profile",
]


__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from seamhost.approval import (
        ApprovalOutcome as ApprovalOutcome,
    )
    from seamhost.approval import (
        ApprovalRequest as ApprovalRequest,
    )
    from seamhost.bundle import (
        Bundle as Bundle,
    )
    from seamhost.bundle import (
        BundleSnapshot as BundleSnapshot,
    )
    from seamhost.bundle import (
        build_bundle as build_bundle,
    )
    from seamhost.bundle import (
        make_plugin_manager as make_plugin_manager,
    )
    from seamhost.calls import (
        ToolContext as ToolContext,
    )
    from seamhost.calls import (
        ToolExecution as ToolExecution,
    )
    from seamhost.calls import (
        ToolInvocation as ToolInvocation,
    )
    from seamhost.calls import (
        ToolOutput as ToolOutput,
    )
    from seamhost.confinement import (
        ConfinedCommand as ConfinedCommand,
    )
    from seamhost.confinement import (
        ConfineRequest as ConfineRequest,
    )
    from seamhost.decisions import (
        Block as Block,
    )
    from seamhost.decisions import (
        Decision as Decision,
    )
    from seamhost.decisions import (
        Replace as Replace,
    )
    from seamhost.decisions import (
        Verdict as Verdict,
    )
    from seamhost.descriptor import (
        PluginContext as PluginContext,
    )
    from seamhost.descriptor import (
        PluginDescriptor as PluginDescriptor,
    )
    from seamhost.errors import (
        ConfigError as ConfigError,
    )
    from seamhost.errors import (
        SeamhostError as SeamhostError,
    )
    from seamhost.facade import (
        Seams as Seams,
    )
    from seamhost.hookspecs import (
        hookimpl as hookimpl,
    )
    from seamhost.hookspecs import (
        hookspec as hookspec,
    )
    from seamhost.model import (
        ModelRequest as ModelRequest,
    )
    from seamhost.profile import (
        Profile as Profile,
    )
    from seamhost.profile import (
        resolve_profile as resolve_profile,
    )
    from seamhost.results import (
        ErrorCode as ErrorCode,
    )
    from seamhost.results import (
        ToolError as ToolError,
    )
    from seamhost.results import (
        ToolResult as ToolResult,
    )
    from seamhost.sandbox import (
        SandboxMode as SandboxMode,
    )
    from seamhost.sandbox import (
        SandboxPolicy as SandboxPolicy,
    )
    from seamhost.session.memory import (
        MemoryStore as MemoryStore,
    )
    from seamhost.session.record import (
        Record as Record,
    )
    from seamhost.session.session import (
        Session as Session,
    )
    from seamhost.session.store import (
        SessionHeader as SessionHeader,
    )
    from seamhost.session.store import (
        SessionStore as SessionStore,
    )
    from seamhost.steps import (
        StepContext as StepContext,
    )
    from seamhost.tools import (
        ToolRegistrar as ToolRegistrar,
    )
    from seamhost.tools import (
        ToolSpec as ToolSpec,
    )
