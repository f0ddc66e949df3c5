"""seamhost: a plugin-host runtime for governed, durable, recoverable tool calls.

This package is the public API for plugin authors and embedding applications: every name in
``__all__``, whatever sub-package defines it (docs/design.md §2). Plugins import from here, from
the foundation modules (:mod:`seamhost.errors`, :mod:`seamhost.jsonvalue`, :mod:`seamhost.schema`,
:mod:`seamhost.lazy`) and from :mod:`seamhost.testing`; the sub-packages' modules are the
implementation. The names are imported on first use, so ``import seamhost`` (and every plugin's
import of it) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost.lazy import lazy_exports
from seamhost.version import __version__

_EXPORTS = {
    "hookimpl": "seamhost.kernel.hookspecs",
    "hookspec": "seamhost.kernel.hookspecs",
    "PluginContext": "seamhost.kernel.plugins",
    "PluginDescriptor": "seamhost.kernel.plugins",
    "Profile": "seamhost.kernel.profile.resolve",
    "resolve_profile": "seamhost.kernel.profile.resolve",
    "Bundle": "seamhost.kernel.bundle",
    "BundleSnapshot": "seamhost.kernel.bundle",
    "build_bundle": "seamhost.kernel.bundle",
    "make_plugin_manager": "seamhost.kernel.bundle",
    "Seams": "seamhost.kernel.seams",
    "ExecuteNext": "seamhost.tool.call",
    "Runner": "seamhost.tool.call",
    "ToolContext": "seamhost.tool.call",
    "ToolExecution": "seamhost.tool.call",
    "ToolInvocation": "seamhost.tool.call",
    "ToolOutput": "seamhost.tool.call",
    "ToolRegistrar": "seamhost.tool.declaration",
    "ToolSpec": "seamhost.tool.declaration",
    "ToolFailed": "seamhost.tool.result",
    "Probe": "seamhost.tool.reconcile",
    "Resolved": "seamhost.tool.reconcile",
    "Pending": "seamhost.tool.reconcile",
    "ToolResult": "seamhost.tool.result",
    "Block": "seamhost.tool.decision",
    "Decision": "seamhost.tool.decision",
    "Replace": "seamhost.tool.decision",
    "Verdict": "seamhost.tool.decision",
    "ConfigError": "seamhost.errors",
    "ErrorCode": "seamhost.errors",
    "SandboxUnavailable": "seamhost.errors",
    "SeamhostError": "seamhost.errors",
    "ToolError": "seamhost.session.events",
    "Enforcement": "seamhost.sandbox.policy",
    "ExitVerdict": "seamhost.sandbox.policy",
    "SandboxMode": "seamhost.sandbox.policy",
    "SandboxPolicy": "seamhost.sandbox.policy",
    "ConfineRequest": "seamhost.sandbox.confinement",
    "ConfinedCommand": "seamhost.sandbox.confinement",
    "PathDenied": "seamhost.sandbox.paths",
    "PathPolicy": "seamhost.sandbox.paths",
    "Replacement": "seamhost.sandbox.replacement",
    "RunResult": "seamhost.sandbox.runner",
    "REAPER": "seamhost.sandbox.runner",
    "ApprovalOutcome": "seamhost.approval.request",
    "ApprovalRequest": "seamhost.approval.request",
    "ApprovalService": "seamhost.approval.service",
    "Expectation": "seamhost.llm.replay",
    "Script": "seamhost.llm.replay",
    "ModelAdapter": "seamhost.llm.adapter",
    "ModelDone": "seamhost.llm.adapter",
    "ModelFailed": "seamhost.llm.adapter",
    "Usage": "seamhost.llm.adapter",
    "ModelEvent": "seamhost.llm.adapter",
    "ModelRequest": "seamhost.llm.adapter",
    "StreamNext": "seamhost.llm.adapter",
    "TextDelta": "seamhost.llm.adapter",
    "ToolCallProposal": "seamhost.llm.adapter",
    "ResponseMeter": "seamhost.llm.response_size",
    "Session": "seamhost.session.live",
    "StepContext": "seamhost.session.live",
    "StepNext": "seamhost.session.live",
    "MalformedRecord": "seamhost.session.record",
    "Record": "seamhost.session.record",
    "parse_envelope": "seamhost.session.record",
    "plain_records": "seamhost.session.record",
    "FORMAT_VERSION": "seamhost.session.store",
    "SessionCheck": "seamhost.session.store",
    "SessionHeader": "seamhost.session.store",
    "SnapshotMark": "seamhost.session.store",
    "SnapshotPiece": "seamhost.session.store",
    "SnapshotStore": "seamhost.session.store",
    "SnapshotWriter": "seamhost.session.store",
    "StoredSnapshot": "seamhost.session.store",
    "SessionStat": "seamhost.session.store",
    "SessionStore": "seamhost.session.store",
    "MemoryStore": "seamhost.session.memory",
    "EventCatalog": "seamhost.session.codec",
    "core_catalog": "seamhost.session.codec",
    "CORE_EVENTS": "seamhost.session.events",
}

__all__ = [
    "CORE_EVENTS",
    "FORMAT_VERSION",
    "REAPER",
    "ApprovalOutcome",
    "ApprovalRequest",
    "ApprovalService",
    "Block",
    "Bundle",
    "BundleSnapshot",
    "ConfigError",
    "ConfineRequest",
    "ConfinedCommand",
    "Decision",
    "Enforcement",
    "ErrorCode",
    "EventCatalog",
    "ExecuteNext",
    "ExitVerdict",
    "Expectation",
    "MalformedRecord",
    "MemoryStore",
    "ModelAdapter",
    "ModelDone",
    "ModelEvent",
    "ModelFailed",
    "ModelRequest",
    "PathDenied",
    "PathPolicy",
    "Pending",
    "PluginContext",
    "PluginDescriptor",
    "Probe",
    "Profile",
    "Record",
    "Replace",
    "Replacement",
    "Resolved",
    "ResponseMeter",
    "RunResult",
    "Runner",
    "SandboxMode",
    "SandboxPolicy",
    "SandboxUnavailable",
    "Script",
    "SeamhostError",
    "Seams",
    "Session",
    "SessionCheck",
    "SessionHeader",
    "SessionStat",
    "SessionStore",
    "SnapshotMark",
    "SnapshotPiece",
    "SnapshotStore",
    "SnapshotWriter",
    "StepContext",
    "StepNext",
    "StoredSnapshot",
    "StreamNext",
    "TextDelta",
    "ToolCallProposal",
    "ToolContext",
    "ToolError",
    "ToolExecution",
    "ToolFailed",
    "ToolInvocation",
    "ToolOutput",
    "ToolRegistrar",
    "ToolResult",
    "ToolSpec",
    "Usage",
    "Verdict",
    "__version__",
    "build_bundle",
    "core_catalog",
    "hookimpl",
    "hookspec",
    "make_plugin_manager",
    "parse_envelope",
    "plain_records",
    "resolve_profile",
]


__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:
    from seamhost.approval.request import ApprovalOutcome as ApprovalOutcome
    from seamhost.approval.request import ApprovalRequest as ApprovalRequest
    from seamhost.approval.service import ApprovalService as ApprovalService
    from seamhost.errors import ConfigError as ConfigError
    from seamhost.errors import ErrorCode as ErrorCode
    from seamhost.errors import SandboxUnavailable as SandboxUnavailable
    from seamhost.errors import SeamhostError as SeamhostError
    from seamhost.kernel.bundle import Bundle as Bundle
    from seamhost.kernel.bundle import BundleSnapshot as BundleSnapshot
    from seamhost.kernel.bundle import build_bundle as build_bundle
    from seamhost.kernel.bundle import make_plugin_manager as make_plugin_manager
    from seamhost.kernel.hookspecs import hookimpl as hookimpl
    from seamhost.kernel.hookspecs import hookspec as hookspec
    from seamhost.kernel.plugins import PluginContext as PluginContext
    from seamhost.kernel.plugins import PluginDescriptor as PluginDescriptor
    from seamhost.kernel.profile.resolve import Profile as Profile
    from seamhost.kernel.profile.resolve import resolve_profile as resolve_profile
    from seamhost.kernel.seams import Seams as Seams
    from seamhost.llm.adapter import ModelAdapter as ModelAdapter
    from seamhost.llm.adapter import ModelDone as ModelDone
    from seamhost.llm.adapter import ModelEvent as ModelEvent
    from seamhost.llm.adapter import ModelFailed as ModelFailed
    from seamhost.llm.adapter import ModelRequest as ModelRequest
    from seamhost.llm.adapter import StreamNext as StreamNext
    from seamhost.llm.adapter import TextDelta as TextDelta
    from seamhost.llm.adapter import ToolCallProposal as ToolCallProposal
    from seamhost.llm.adapter import Usage as Usage
    from seamhost.llm.replay import Expectation as Expectation
    from seamhost.llm.replay import Script as Script
    from seamhost.llm.response_size import ResponseMeter as ResponseMeter
    from seamhost.sandbox.confinement import ConfinedCommand as ConfinedCommand
    from seamhost.sandbox.confinement import ConfineRequest as ConfineRequest
    from seamhost.sandbox.paths import PathDenied as PathDenied
    from seamhost.sandbox.paths import PathPolicy as PathPolicy
    from seamhost.sandbox.policy import Enforcement as Enforcement
    from seamhost.sandbox.policy import ExitVerdict as ExitVerdict
    from seamhost.sandbox.policy import SandboxMode as SandboxMode
    from seamhost.sandbox.policy import SandboxPolicy as SandboxPolicy
    from seamhost.sandbox.replacement import Replacement as Replacement
    from seamhost.sandbox.runner import REAPER as REAPER
    from seamhost.sandbox.runner import RunResult as RunResult
    from seamhost.session.codec import EventCatalog as EventCatalog
    from seamhost.session.codec import core_catalog as core_catalog
    from seamhost.session.events import CORE_EVENTS as CORE_EVENTS
    from seamhost.session.events import ToolError as ToolError
    from seamhost.session.live import Session as Session
    from seamhost.session.live import StepContext as StepContext
    from seamhost.session.live import StepNext as StepNext
    from seamhost.session.memory import MemoryStore as MemoryStore
    from seamhost.session.record import MalformedRecord as MalformedRecord
    from seamhost.session.record import Record as Record
    from seamhost.session.record import parse_envelope as parse_envelope
    from seamhost.session.record import plain_records as plain_records
    from seamhost.session.store import FORMAT_VERSION as FORMAT_VERSION
    from seamhost.session.store import SessionCheck as SessionCheck
    from seamhost.session.store import SessionHeader as SessionHeader
    from seamhost.session.store import SessionStat as SessionStat
    from seamhost.session.store import SessionStore as SessionStore
    from seamhost.session.store import SnapshotMark as SnapshotMark
    from seamhost.session.store import SnapshotPiece as SnapshotPiece
    from seamhost.session.store import SnapshotStore as SnapshotStore
    from seamhost.session.store import SnapshotWriter as SnapshotWriter
    from seamhost.session.store import StoredSnapshot as StoredSnapshot
    from seamhost.tool.call import ExecuteNext as ExecuteNext
    from seamhost.tool.call import Runner as Runner
    from seamhost.tool.call import ToolContext as ToolContext
    from seamhost.tool.call import ToolExecution as ToolExecution
    from seamhost.tool.call import ToolInvocation as ToolInvocation
    from seamhost.tool.call import ToolOutput as ToolOutput
    from seamhost.tool.decision import Block as Block
    from seamhost.tool.decision import Decision as Decision
    from seamhost.tool.decision import Replace as Replace
    from seamhost.tool.decision import Verdict as Verdict
    from seamhost.tool.declaration import ToolRegistrar as ToolRegistrar
    from seamhost.tool.declaration import ToolSpec as ToolSpec
    from seamhost.tool.reconcile import Pending as Pending
    from seamhost.tool.reconcile import Probe as Probe
    from seamhost.tool.reconcile import Resolved as Resolved
    from seamhost.tool.result import ToolFailed as ToolFailed
    from seamhost.tool.result import ToolResult as ToolResult
