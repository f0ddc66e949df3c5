"""The core event types of the session log (design.md §4).

Each type is a frozen attrs class with a ``TYPE`` tag; its fields are the minimum its ``data``
carries. Optional fields (``None`` by default) are omitted from the data when unset. Plugins may
define types of their own the same way and hand them to the session's catalogue.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

import attrs

from seamhost.frozen import fast_init

TurnEndReason = Literal["completed", "aborted", "error", "interrupted"]
# What `approval/decided` may record: every outcome but `deferred`, which is `approval/deferred`.
ApprovalOutcomeName = Literal["allowed-once", "rejected", "cancelled", "unavailable"]
SandboxModeName = Literal["read-only", "workspace-write", "danger-full-access"]
EffectName = Literal["read-only", "write"]
ReconciledOutcome = Literal["result", "error"]


@attrs.frozen
class Event:
    """Base of every typed event."""

    TYPE: ClassVar[str] = ""


@attrs.frozen
class TurnStart(Event):
    TYPE: ClassVar[str] = "turn/start"
    turn: int


@attrs.frozen
class TurnEnd(Event):
    TYPE: ClassVar[str] = "turn/end"
    turn: int
    reason: TurnEndReason
    message: str | None = None


@attrs.frozen
class StepStart(Event):
    TYPE: ClassVar[str] = "step/start"
    turn: int
    step: int


@attrs.frozen
class StepEnd(Event):
    TYPE: ClassVar[str] = "step/end"
    turn: int
    step: int


@attrs.frozen
class UserMessage(Event):
    TYPE: ClassVar[str] = "user/message"
    turn: int
    step: int
    content: str
    source: str


@attrs.frozen
class ProposedCall:
    """One entry of an assistant message's ``tool_calls``: the raw arguments string as produced."""

    call_id: str
    name: str
    arguments: str
    sandbox_permissions: str | None = None  # as the model produced it; validated by the pipeline
    justification: str | None = None


@attrs.frozen
class AssistantMessage(Event):
    TYPE: ClassVar[str] = "assistant/message"
    turn: int
    step: int
    content: str
    tool_calls: tuple[ProposedCall, ...] = ()


@attrs.frozen
class ToolCall(Event):
    """The runtime has taken the call (intent), before anything was validated or decided."""

    TYPE: ClassVar[str] = "tool/call"
    turn: int
    step: int
    call_id: str
    name: str
    arguments: str
    descriptor_digest: str | None = None


@attrs.frozen
class ApprovalAsked(Event):
    TYPE: ClassVar[str] = "approval/asked"
    id: str
    call_id: str
    tool: str
    reason: str
    args_digest: str
    escalation: SandboxModeName | None = None


@attrs.frozen
class ApprovalDeferred(Event):
    """The question waits for a person; durable before the process may stop (design.md §11).

    `expires` (Unix ms) is when an unanswered question stops being answerable: it is then
    refused (``APPROVAL_DEFERRED``) when the session resumes.
    """

    TYPE: ClassVar[str] = "approval/deferred"
    id: str
    call_id: str
    args_digest: str
    expires: int | None = None
    answerer: str | None = None


@attrs.frozen
class ApprovalDecided(Event):
    """The one outcome of a question. A deferred one is decided later, by `decider` via `source`."""

    TYPE: ClassVar[str] = "approval/decided"
    id: str
    outcome: ApprovalOutcomeName
    interrupted: bool | None = None
    answerer: str | None = None
    message: str | None = None
    decider: str | None = None
    source: str | None = None


@attrs.frozen
class ApprovalPolicy(Event):
    TYPE: ClassVar[str] = "approval/policy"
    policy: Literal["ask", "never"]
    source: str


@attrs.frozen
class ToolDispatch(Event):
    """Governance passed; the body may start once a checkpoint made this record durable."""

    TYPE: ClassVar[str] = "tool/dispatch"
    call_id: str
    attempt: int
    sandbox_mode: SandboxModeName
    args_digest: str
    # What the tool declared, so that repair and reconciliation can advise from the log alone.
    effect: EffectName | None = None
    idempotent: bool | None = None


@attrs.frozen
class ToolError:
    """The error of a settled call: a stable code and a message for people and models.

    The same value sits in the ``error`` of a ``tool/result`` record and in the
    :class:`~seamhost.tool.result.ToolResult` it records. `code` is an
    :class:`~seamhost.errors.ErrorCode` value, or a plugin's own code.
    """

    code: str = attrs.field(converter=str)  # an ErrorCode value, or a plugin's own code
    message: str  # what went wrong, for people and models


@attrs.frozen
class ToolResultEvent(Event):
    TYPE: ClassVar[str] = "tool/result"
    turn: int
    step: int
    call_id: str
    is_error: bool
    content: str
    error: ToolError | None = None
    value: Any = None
    meta: Mapping[str, Any] | None = None


@attrs.frozen
class ToolAttemptFailed(Event):
    """An attempt of a retry-safe call failed retryably; the next ``tool/dispatch`` follows."""

    TYPE: ClassVar[str] = "tool/attempt/failed"
    call_id: str
    attempt: int
    error: ToolError


@attrs.frozen
class ToolReconciled(Event):
    """Evidence resolved an unknown outcome of one attempt (design.md §10).

    The ``TOOL_OUTCOME_UNKNOWN`` result stays; this record says what really happened, who said
    so (`source`) and the digest of the evidence, bound to the call's `args_digest`.
    """

    TYPE: ClassVar[str] = "tool/reconciled"
    call_id: str
    attempt: int
    args_digest: str
    source: str
    outcome: ReconciledOutcome
    evidence_digest: str
    content: str
    value: Any = None
    error: ToolError | None = None


@attrs.frozen
class ReconcilePending(Event):
    """A status probe could not tell yet; `retry_at` (ms) is when to ask again."""

    TYPE: ClassVar[str] = "tool/reconcile/pending"
    call_id: str
    attempt: int
    retry_at: int
    reason: str


@attrs.frozen
class ModelAttempt(Event):
    """A model request is about to leave: durable (the llm/stream barrier) before it does."""

    TYPE: ClassVar[str] = "model/attempt"
    turn: int
    step: int
    attempt: int
    model: str
    request_digest: str


@attrs.frozen
class ModelUsage(Event):
    """What an attempt that reached its terminal event consumed."""

    TYPE: ClassVar[str] = "model/usage"
    turn: int
    step: int
    attempt: int
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int = 0


@attrs.frozen
class ModelAttemptFailed(Event):
    """An attempt failed: nothing of its response is kept (design.md §12)."""

    TYPE: ClassVar[str] = "model/failed"
    turn: int
    step: int
    attempt: int
    code: str
    message: str
    retryable: bool


@attrs.frozen
class SandboxModeChanged(Event):
    TYPE: ClassVar[str] = "sandbox/mode"
    mode: SandboxModeName
    source: str


@attrs.frozen
class InboxSpliced(Event):
    """Additional contexts injected after the results of a step."""

    TYPE: ClassVar[str] = "agent/inbox/spliced"
    turn: int
    step: int
    contexts: tuple[str, ...]


@attrs.frozen
class ClosedCall:
    call_id: str
    code: str


@attrs.frozen
class SessionRepaired(Event):
    """What repair closed on a crashed tail."""

    TYPE: ClassVar[str] = "session/repaired"
    turn: int
    calls: tuple[ClosedCall, ...] = ()
    approvals: tuple[str, ...] = ()
    torn_records: int = 0


@attrs.frozen
class PendingCallState:
    """A call of the open step a continuation found without a result, and how far it got."""

    call_id: str
    state: Literal["not-started", "in-flight"]
    attempt: int = 0  # the last attempt dispatched (0: none)


@attrs.frozen
class SessionTakeover(Event):
    """A new owner opened the session to continue its open turn (design.md §6, "Continue").

    Appended instead of repair's ``turn/end {interrupted}``: what the continuation found open
    (the turn, its open step, each call without a result) and who took it over. `epoch` is the
    store's lease epoch when it has one; `accepted_changes` lists the identity differences an
    operator accepted with ``--accept-changes`` (design.md §13).
    """

    TYPE: ClassVar[str] = "session/takeover"
    owner: str
    turn: int
    step: int | None = None
    calls: tuple[PendingCallState, ...] = ()
    epoch: int | None = None
    accepted_changes: tuple[str, ...] | None = None


@attrs.frozen
class TurnParked(Event):
    """The turn waits until unknown outcomes are reconciled (``[recovery] on_unknown = "park"``).

    The open turn and step stay open, like a turn parked on a deferred approval; `calls` are
    the calls whose outcome is unknown. ``session reconcile`` resolves them, then a resume
    continues the step with the calls that never started.
    """

    TYPE: ClassVar[str] = "turn/parked"
    turn: int
    step: int
    calls: tuple[str, ...]
    reason: str


@attrs.frozen
class A2ATask(Event):
    """The session serves one A2A task (``seamhost a2a serve``, design.md §13 "Serve A2A").

    Appended once, first, when the task's session is created: the session id is the task id,
    and `context_id` is the A2A context the client put the task in (or the server gave it).
    """

    TYPE: ClassVar[str] = "a2a/task"
    task_id: str
    context_id: str


CORE_EVENTS: tuple[type[Event], ...] = (
    TurnStart,
    TurnEnd,
    StepStart,
    StepEnd,
    UserMessage,
    AssistantMessage,
    ToolCall,
    ApprovalAsked,
    ApprovalDeferred,
    ApprovalDecided,
    ApprovalPolicy,
    ToolDispatch,
    ToolResultEvent,
    ToolAttemptFailed,
    ToolReconciled,
    ReconcilePending,
    ModelAttempt,
    ModelUsage,
    ModelAttemptFailed,
    SandboxModeChanged,
    InboxSpliced,
    SessionRepaired,
    SessionTakeover,
    TurnParked,
    A2ATask,
)

# Every core event is made by the draft-based __init__ (seamhost/frozen.py): three a governed call.
for _cls in CORE_EVENTS:
    fast_init(_cls)
fast_init(ToolError)
del _cls
