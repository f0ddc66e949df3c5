"""seamhost: a plugin-host runtime for governed, durable, recoverable tool calls.

This package is the public API for plugin authors and embedding applications: every name in
``__all__``, whatever sub-package defines it (docs/design.md §2). Plugins import from here, from
the foundation modules (:mod:`seamhost.errors`, :mod:`seamhost.jsonvalue`, :mod:`seamhost.schema`,
:mod:`seamhost.globs`, :mod:`seamhost.redaction`, :mod:`seamhost.input_limits`,
:mod:`seamhost.lazy`, :mod:`seamhost.version`), from the storage core :mod:`seamhost.store` and
from :mod:`seamhost.testing` (``PUBLIC`` in tests/test_public_imports.py holds the list); the
sub-packages' other modules are the implementation. The names are imported on first use, so
``import seamhost`` (and every plugin's import of it) stays cheap.

Each name is written once, in ``_EXPORTS`` below; ``__all__`` is its keys. Type checkers and IDEs
read the same names as imports from ``__init__.pyi``, a stub generated from the table
(``python tests/test_public_imports.py --write``) and held to it by that test. A stub rather than
the other way round (``from x import Name`` under ``TYPE_CHECKING`` as the list, parsed at import
time) because a stub costs ``import seamhost`` nothing, while parsing our own source costs every
import (milliseconds with ``ast``; a file read even with string splitting) and needs the ``.py``
file, which a sourceless install does not ship.
"""

from __future__ import annotations

from seamhost.lazy import lazy_exports

# Each public name and the module that defines it, in the order of __all__ (the reference lists
# the value types in that order): constants, classes, then the rest.
_EXPORTS = {
    "CALL_DECISIONS": "seamhost.llm.replay",
    "CORE_EVENTS": "seamhost.session.events",
    "FORMAT_VERSION": "seamhost.session.store",
    "REAPER": "seamhost.sandbox.runner",
    "SESSION_OUTCOMES": "seamhost.llm.replay",
    "ApprovalAnswer": "seamhost.embed.approving",
    "ApprovalOutcome": "seamhost.approval.request",
    "ApprovalRequest": "seamhost.approval.request",
    "ApprovalService": "seamhost.approval.service",
    "AsyncHost": "seamhost.embed.host",
    "Block": "seamhost.tool.decision",
    "Bundle": "seamhost.kernel.bundle",
    "BundleSnapshot": "seamhost.kernel.bundle",
    "CallReport": "seamhost.embed.reports",
    "CallExpectation": "seamhost.llm.replay",
    "CellExpectations": "seamhost.llm.replay",
    "ConfigError": "seamhost.errors",
    "ConfineRequest": "seamhost.sandbox.confinement",
    "ConfinedCommand": "seamhost.sandbox.confinement",
    "Decision": "seamhost.tool.decision",
    "Enforcement": "seamhost.sandbox.policy",
    "ErrorCode": "seamhost.errors",
    "EventCatalog": "seamhost.session.codec",
    "ExecuteNext": "seamhost.tool.call",
    "ExitVerdict": "seamhost.sandbox.policy",
    "Expectation": "seamhost.llm.replay",
    "Host": "seamhost.embed.host",
    "HostClosed": "seamhost.embed.runner",
    "ExpectingScript": "seamhost.llm.replay",
    "MalformedRecord": "seamhost.session.record",
    "MemoryStore": "seamhost.session.memory",
    "ModelAdapter": "seamhost.llm.adapter",
    "ModelDone": "seamhost.llm.adapter",
    "ModelEvent": "seamhost.llm.adapter",
    "ModelFailed": "seamhost.llm.adapter",
    "ModelRequest": "seamhost.llm.adapter",
    "PathDenied": "seamhost.sandbox.paths",
    "PathPolicy": "seamhost.sandbox.paths",
    "Pending": "seamhost.tool.reconcile",
    "PluginContext": "seamhost.kernel.plugins",
    "PluginDescriptor": "seamhost.kernel.plugins",
    "Probe": "seamhost.tool.reconcile",
    "Profile": "seamhost.kernel.profile.resolve",
    "Record": "seamhost.session.record",
    "Replace": "seamhost.tool.decision",
    "Replacement": "seamhost.sandbox.replacement",
    "Resolved": "seamhost.tool.reconcile",
    "ResponseMeter": "seamhost.llm.response_size",
    "RunReport": "seamhost.embed.reports",
    "RunResult": "seamhost.sandbox.runner",
    "Runner": "seamhost.tool.call",
    "SandboxMode": "seamhost.sandbox.policy",
    "SandboxPolicy": "seamhost.sandbox.policy",
    "SandboxUnavailable": "seamhost.errors",
    "Script": "seamhost.llm.replay",
    "SeamhostError": "seamhost.errors",
    "Seams": "seamhost.kernel.seams",
    "Session": "seamhost.session.live",
    "SessionCheck": "seamhost.session.store",
    "SessionHeader": "seamhost.session.store",
    "SessionStat": "seamhost.session.store",
    "SessionStore": "seamhost.session.store",
    "SnapshotMark": "seamhost.session.store",
    "SnapshotPiece": "seamhost.session.store",
    "SnapshotStore": "seamhost.session.store",
    "SnapshotWriter": "seamhost.session.store",
    "StepContext": "seamhost.session.live",
    "StepNext": "seamhost.session.live",
    "StoredSnapshot": "seamhost.session.store",
    "StreamNext": "seamhost.llm.adapter",
    "TextDelta": "seamhost.llm.adapter",
    "ToolCallProposal": "seamhost.llm.adapter",
    "ToolContext": "seamhost.tool.call",
    "ToolError": "seamhost.session.events",
    "ToolExecution": "seamhost.tool.call",
    "ToolFailed": "seamhost.tool.result",
    "ToolInvocation": "seamhost.tool.call",
    "ToolOutput": "seamhost.tool.call",
    "ToolRegistrar": "seamhost.tool.declaration",
    "ToolResult": "seamhost.tool.result",
    "ToolSpec": "seamhost.tool.declaration",
    "Usage": "seamhost.llm.adapter",
    "Verdict": "seamhost.tool.decision",
    "__version__": "seamhost.version",
    "build_bundle": "seamhost.kernel.bundle",
    "changed_descriptor": "seamhost.tool.pins",
    "core_catalog": "seamhost.session.codec",
    "hookimpl": "seamhost.kernel.hookspecs",
    "hookspec": "seamhost.kernel.hookspecs",
    "make_plugin_manager": "seamhost.kernel.bundle",
    "open_host": "seamhost.embed.host",
    "open_host_async": "seamhost.embed.host",
    "parse_envelope": "seamhost.session.record",
    "plain_records": "seamhost.session.record",
    "resolve_profile": "seamhost.kernel.profile.resolve",
    "run_sync": "seamhost.tool.blocking",
}

__all__ = list(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return __all__
