"""The names of ``seamhost`` for type checkers and IDEs, generated from ``_EXPORTS``.

Do not edit: change the table in ``__init__.py``, then run
``python tests/test_public_imports.py --write``.
"""

from seamhost.approval.request import ApprovalOutcome as ApprovalOutcome
from seamhost.approval.request import ApprovalRequest as ApprovalRequest
from seamhost.approval.service import ApprovalService as ApprovalService
from seamhost.embed.approving import ApprovalAnswer as ApprovalAnswer
from seamhost.embed.host import AsyncHost as AsyncHost
from seamhost.embed.host import Host as Host
from seamhost.embed.host import open_host as open_host
from seamhost.embed.host import open_host_async as open_host_async
from seamhost.embed.reports import CallReport as CallReport
from seamhost.embed.reports import RunReport as RunReport
from seamhost.embed.runner import HostClosed as HostClosed
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
from seamhost.llm.replay import CALL_DECISIONS as CALL_DECISIONS
from seamhost.llm.replay import SESSION_OUTCOMES as SESSION_OUTCOMES
from seamhost.llm.replay import CallExpectation as CallExpectation
from seamhost.llm.replay import CellExpectations as CellExpectations
from seamhost.llm.replay import Expectation as Expectation
from seamhost.llm.replay import ExpectingScript as ExpectingScript
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
from seamhost.tool.blocking import run_sync as run_sync
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
from seamhost.tool.pins import changed_descriptor as changed_descriptor
from seamhost.tool.reconcile import Pending as Pending
from seamhost.tool.reconcile import Probe as Probe
from seamhost.tool.reconcile import Resolved as Resolved
from seamhost.tool.result import ToolFailed as ToolFailed
from seamhost.tool.result import ToolResult as ToolResult
from seamhost.version import __version__ as __version__

_EXPORTS: dict[str, str]
__all__: list[str]

def __dir__() -> list[str]: ...
