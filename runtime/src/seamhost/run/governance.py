"""Steps 3 to 7 of the governed call: arguments, policy, guards, approval, sandbox readiness.

:meth:`Governance.govern` takes one proposed call to a verdict: ready to dispatch (with the grant
an approval gave it), refused (with its result), or deferred (its approval waits for a person;
design.md §11). :meth:`Governance.resume` takes a deferred call whose question was answered from
the guards on: the arguments are parsed again and must have the digest that was approved, the
guards are asked again (a floor added meanwhile still denies), the sandbox is checked again, and
only an ``allowed-once`` answer yields a grant, for that call and that digest.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.approval.request import Answerers, ApprovalOutcome
from seamhost.approval.service import ApprovalService, Grant
from seamhost.errors import ErrorCode
from seamhost.jsonvalue import FrozenDict
from seamhost.run.arguments import (
    InvalidEscalation,
    check_arguments,
    lift_escalation,
    load_arguments,
    parse_escalation,
)
from seamhost.run.confining import Confinement
from seamhost.run.outcomes import APPROVAL_CODES, Deferred, Ready, Refused, refused, trace
from seamhost.sandbox.policy import SandboxMode
from seamhost.tool.call import ToolInvocation
from seamhost.tool.decision import Decision, Verdict
from seamhost.tool.result import ToolResult

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.llm.adapter import ToolCallProposal
    from seamhost.session.live import Session
    from seamhost.session.suspension import Suspension

Verdicts = Ready | Refused | Deferred


@attrs.define
class Governance:
    """Governs the calls of one session's pipeline."""

    bundle: Bundle
    session: Session
    workspace: Path
    approvals: ApprovalService
    sandbox: Confinement
    # The chain approvals are asked of: the bundle's approval/request implementers unless the
    # driver brings its own around them (mcp serve puts the client's elicitation first).
    answerers: Answerers | None = None
    _answerers: Answerers = attrs.field(init=False)
    # Read on every call, and fixed for the governance's life: property chains otherwise.
    _session_id: str = attrs.field(init=False)
    _profile_mode: SandboxMode = attrs.field(init=False)  # the mode no sandbox/mode event changed

    def __attrs_post_init__(self) -> None:
        self._session_id = self.session.id
        self._profile_mode = self.bundle.profile.sandbox.mode
        seams = self.bundle.seams
        self._answerers = self.answerers or Answerers(
            tuple(seams.implementers("approval/request")), seams.approval_request
        )

    async def govern(self, turn: int, step: int, proposal: ToolCallProposal) -> Verdicts:
        """Steps 3 to 7 for a call the model just proposed."""
        parsed = self._parse(turn, step, proposal)
        if isinstance(parsed, Refused):
            return parsed
        invocation, escalation, justification = parsed
        decisions: list[FrozenDict] = []
        decision = await self.bundle.seams.tools_pre_execute(invocation)
        decisions.append(trace("policy", decision.verdict, decision.plugin, decision.reason))
        if decision.verdict is Verdict.DENY:
            return refused(
                invocation, ErrorCode.DENIED_BY_POLICY, decision.reason, decision.plugin, decisions
            )
        # The hot path of every call: the guards and the readiness check are inline here, their
        # refusals in helpers (three calls fewer per governed call, measured with callgrind).
        escalated = invocation
        if escalation is not None:
            escalated = attrs.evolve(invocation, sandbox_mode=escalation)
        guard = await self.bundle.seams.tools_guard(escalated)
        if guard.verdict is not Verdict.ALLOW:
            return self._denied(escalated, guard, decisions)
        grant = None
        if decision.verdict is Verdict.ASK or escalation is not None:
            reason = decision.reason or "the call asks for a wider sandbox"
            if escalation is not None:
                reason = f"{reason}; requests {escalation}: {justification}"
            approval = await self.approvals.request(
                self._answerers,
                self.session,
                invocation,
                reason,
                turn_open=True,
                escalation=escalation,
                justification=justification,
            )
            decisions.append(
                trace("approval", approval.outcome, approval.answerer or "", approval.message)
            )
            if approval.outcome is ApprovalOutcome.DEFERRED:
                return Deferred(invocation, approval.id)
            if not approval.allowed:
                return refused(
                    invocation,
                    APPROVAL_CODES[approval.outcome],
                    approval.message,
                    approval.answerer or "",
                    decisions,
                )
            grant = Grant(approval.id, invocation.call_id, invocation.args_digest, escalation)
        if escalated.tool.spec.runs_subprocesses and escalated.sandbox_mode.confining:
            return await self._ready(escalated, grant, decisions)
        return Ready(escalated, grant, tuple(decisions))

    async def resume(
        self, turn: int, step: int, proposal: ToolCallProposal, parked: Suspension, now: int
    ) -> Verdicts:
        """A deferred call once its question was answered (or expired), from the guards on."""
        parsed = self._parse(turn, step, proposal)
        if isinstance(parsed, Refused):
            return parsed
        invocation = parsed[0]
        decision: Mapping[str, Any] | None = parked.decision
        if decision is None:
            if not parked.expired(now):
                return Deferred(invocation, parked.approval_id)
            return refused(
                invocation,
                ErrorCode.APPROVAL_DEFERRED,
                f"approval {parked.approval_id} expired before anyone answered it",
                "",
                [],
            )
        outcome = ApprovalOutcome(decision["outcome"])
        who = str(decision.get("decider") or decision.get("answerer") or "")
        message = str(decision.get("message") or f"{outcome} by {who or 'someone'}")
        decisions = [trace("approval", outcome, who, message)]
        if outcome is not ApprovalOutcome.ALLOWED_ONCE:
            return refused(invocation, APPROVAL_CODES[outcome], message, who, decisions)
        if invocation.args_digest != parked.args_digest:
            return refused(
                invocation,
                ErrorCode.APPROVAL_UNAVAILABLE,
                "the approval was given for other arguments than this call has; refused",
                who,
                decisions,
            )
        escalation = SandboxMode(parked.escalation) if parked.escalation else None
        mode = escalation or invocation.sandbox_mode
        escalated = attrs.evolve(invocation, sandbox_mode=mode)  # as approved, escalation included
        verdict = await self.bundle.seams.tools_guard(escalated)
        if verdict.verdict is not Verdict.ALLOW:  # a floor raised since the question still denies
            return self._denied(escalated, verdict, decisions)
        grant = Grant(parked.approval_id, invocation.call_id, invocation.args_digest, escalation)
        if escalated.tool.spec.runs_subprocesses and escalated.sandbox_mode.confining:
            return await self._ready(escalated, grant, decisions)
        return Ready(escalated, grant, tuple(decisions))

    # -- the shared steps ---------------------------------------------------------------------

    def _parse(
        self, turn: int, step: int, proposal: ToolCallProposal
    ) -> tuple[ToolInvocation, SandboxMode | None, str | None] | Refused:
        """Step 3: the tool, the validated, frozen arguments, the escalation and its reason.

        The escalation fields may come inside the arguments (a model shown the tool's model
        declaration puts them there): they are lifted out here, into the proposal, before the
        rest is checked against the tool's schema, and the justification returned is theirs.
        """
        call_id = proposal.call_id
        tool = self.bundle.tools.get(proposal.name)
        if tool is None:
            known = ", ".join(sorted(self.bundle.tools)) or "none"
            message = f"no tool named {proposal.name!r} in this bundle (tools: {known})"
            return Refused(None, ToolResult.failure(call_id, ErrorCode.UNKNOWN_TOOL, message))
        loaded = load_arguments(proposal.arguments)
        if isinstance(loaded, str):
            return Refused(None, ToolResult.failure(call_id, ErrorCode.INVALID_ARGUMENTS, loaded))
        if tool.spec.escalates:
            loaded, proposal = lift_escalation(loaded, proposal)
        checked = check_arguments(tool.arguments_validator, loaded)
        if isinstance(checked, str):
            return Refused(None, ToolResult.failure(call_id, ErrorCode.INVALID_ARGUMENTS, checked))
        arguments, args_digest = checked
        # The effective mode: the last sandbox/mode event's, else the profile's (§5 step 7).
        record = self.session.last("sandbox/mode")
        mode = SandboxMode(record.data["mode"]) if record is not None else self._profile_mode
        escalation = None
        if proposal.sandbox_permissions is not None or proposal.justification is not None:
            try:
                escalation = parse_escalation(proposal, mode)
            except InvalidEscalation as exc:
                failure = ToolResult.failure(call_id, ErrorCode.ESCALATION_INVALID, str(exc))
                return Refused(None, failure)
        # Positionally: a class called with keywords first packs them into a dict (2.5k
        # instructions, docs/design.md §9).
        invocation = ToolInvocation(
            self._session_id,
            turn,
            step,
            call_id,
            tool,
            arguments,
            args_digest,
            self.workspace,
            mode,  # sandbox_mode
        )
        return invocation, escalation, proposal.justification if escalation is not None else None

    def _denied(
        self, invocation: ToolInvocation, guard: Decision, decisions: list[FrozenDict]
    ) -> Refused:
        """Step 5: a floor's deny, final."""
        decisions.append(trace("guard", guard.verdict, guard.plugin, guard.reason))
        return refused(invocation, ErrorCode.DENIED_BY_GUARD, guard.reason, guard.plugin, decisions)

    async def _ready(
        self, invocation: ToolInvocation, grant: Grant | None, decisions: list[FrozenDict]
    ) -> Ready | Refused:
        """Step 7: a call that spawns processes needs a usable sandbox in a confining mode."""
        unavailable = await self.sandbox.problem(invocation.sandbox_mode)
        if unavailable is not None:
            return refused(invocation, ErrorCode.SANDBOX_UNAVAILABLE, unavailable, "", decisions)
        return Ready(invocation, grant, tuple(decisions))
