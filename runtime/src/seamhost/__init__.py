"""seamhost: a plugin-host runtime for governed, durable, recoverable tool calls.

The public API is the names in ``__all__``. They are imported on first use, so that
``import seamhost`` (and every plugin's import of it) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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
    "ToolContext": "seamhost.tools",
    "ToolOutput": "seamhost.tools",
    "ToolInvocation": "seamhost.tools",
    "ToolExecution": "seamhost.tools",
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
    "ConfineRequest": "seamhost.sandbox",
    "ConfinedCommand": "seamhost.sandbox",
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

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'seamhost' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from seamhost.approval import (
        ApprovalOutcome as ApprovalOutcome,
        ApprovalRequest as ApprovalRequest,
    )
    from seamhost.bundle import (
        Bundle as Bundle,
        BundleSnapshot as BundleSnapshot,
        build_bundle as build_bundle,
        make_plugin_manager as make_plugin_manager,
    )
    from seamhost.decisions import (
        Block as Block,
        Decision as Decision,
        Replace as Replace,
        Verdict as Verdict,
    )
    from seamhost.descriptor import (
        PluginContext as PluginContext,
        PluginDescriptor as PluginDescriptor,
    )
    from seamhost.errors import (
        ConfigError as ConfigError,
        SeamhostError as SeamhostError,
    )
    from seamhost.facade import (
        Seams as Seams,
    )
    from seamhost.hookspecs import (
        hookimpl as hookimpl,
        hookspec as hookspec,
    )
    from seamhost.model import (
        ModelRequest as ModelRequest,
    )
    from seamhost.profile import (
        Profile as Profile,
        resolve_profile as resolve_profile,
    )
    from seamhost.results import (
        ErrorCode as ErrorCode,
        ToolError as ToolError,
        ToolResult as ToolResult,
    )
    from seamhost.sandbox import (
        ConfinedCommand as ConfinedCommand,
        ConfineRequest as ConfineRequest,
        SandboxMode as SandboxMode,
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
        SessionStore as SessionStore,
    )
    from seamhost.steps import (
        StepContext as StepContext,
    )
    from seamhost.tools import (
        ToolContext as ToolContext,
        ToolExecution as ToolExecution,
        ToolInvocation as ToolInvocation,
        ToolOutput as ToolOutput,
        ToolRegistrar as ToolRegistrar,
        ToolSpec as ToolSpec,
    )
