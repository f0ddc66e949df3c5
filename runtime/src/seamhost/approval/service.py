"""The approval service: one audited, fail-closed question per call (design.md §5 step 6).

``request`` records ``approval/asked``, obtains exactly one outcome from the ``approval/request``
answerer chain, records ``approval/decided`` and returns the outcome. Only ``allowed-once``
lets the call proceed, and it binds to that call's `args_digest` for one dispatch. Everything else
fails closed:

* policy ``never`` (the last ``approval/policy`` event, else the service's default) refuses
  before any answerer runs;
* no answerer, an answerer that raises, answers outside the vocabulary or exceeds the timeout,
  or nobody answering → ``unavailable``, with a message naming the answerers tried;
* a request outside an open turn, or an audit append that fails → not allowed.

There is no mode in which ``ask`` turns into allow.

An answerer may answer ``deferred`` (design.md §11): the service then appends
``approval/deferred`` (with its expiry, `defer_ttl` seconds from now) instead of a decision, and
the pipeline parks the step until someone answers; a session that cannot be made durable cannot
wait, so there the deferral is refused as ``unavailable``.

The plugin that provides the service may give it `explain`: called once for every request the
chain was asked (never under policy ``never``), after the chain settled, with the plugin that
answered (``None`` when nobody did); what it returns is added to the decision's message, so the
log says which rule or person decided, or which answerers were tried and what to configure.

The service writes through an :class:`ApprovalLog`, the four things it needs of the session it
audits (the live session is one), and never sees the session itself: the question's seq, the
policy in force, an append and a flush. The call it asks about brings its own session id.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import attrs

from seamhost.approval.request import Answerers, ApprovalOutcome, ApprovalRequest
from seamhost.errors import describe
from seamhost.session.events import ApprovalAsked, ApprovalDecided, ApprovalDeferred, ApprovalPolicy

if TYPE_CHECKING:
    from seamhost.sandbox.policy import SandboxMode
    from seamhost.session.events import Event
    from seamhost.session.record import Record
    from seamhost.tool.call import ToolInvocation

POLICIES = ("ask", "never")


class ApprovalLog(Protocol):
    """The session log as the approval service writes to it; the live session is one.

    `next_seq` is the seq the next record takes (an approval's id names it); `last` the latest
    record of a type (the ``approval/policy`` in force); `append` commits an event in memory;
    `flush` returns once everything appended is durable (a deferral must be).
    """

    @property
    def next_seq(self) -> int: ...
    def last(self, type_: str) -> Record | None: ...
    def append(self, event: Event) -> Record: ...
    async def flush(self) -> None: ...


@attrs.frozen
class ApprovalDecision:
    """The outcome of one approval and what explains it."""

    id: str
    outcome: ApprovalOutcome
    answerer: str | None
    message: str

    @property
    def allowed(self) -> bool:
        return self.outcome is ApprovalOutcome.ALLOWED_ONCE


@attrs.frozen
class Grant:
    """An ``allowed-once`` approval: valid for one dispatch of one call with one `args_digest`."""

    approval_id: str
    call_id: str
    args_digest: str
    escalation: SandboxMode | None = None

    def covers(self, call: ToolInvocation) -> bool:
        return call.call_id == self.call_id and call.args_digest == self.args_digest


def set_policy(log: ApprovalLog, policy: str, source: str) -> None:
    """Record the approval policy in force from now on (``ask`` or ``never``) and its source."""
    if policy not in POLICIES:
        raise ValueError(f"approval policy {policy!r} is not one of {', '.join(POLICIES)}")
    log.append(ApprovalPolicy(policy=policy, source=source))  # type: ignore[arg-type]


def current_policy(log: ApprovalLog, default: str = "ask") -> str:
    """The approval policy in force: the last ``approval/policy`` event, else `default`."""
    record = log.last("approval/policy")
    return str(record.data["policy"]) if record is not None else default


@attrs.frozen
class ApprovalService:
    """Asks an answerer chain (:class:`Answerers`), with the audit pair around it.

    `default_policy` applies until the session records an ``approval/policy`` event; `timeout`
    bounds the whole answerer chain (``None``: no bound); `explain(request, answerer)` adds the
    provider's account of a request to the decision's message (see the module docstring).
    """

    default_policy: str = "ask"  # ask | never, until an approval/policy event says otherwise
    timeout: float | None = None  # seconds the whole answerer chain may take; None: no bound
    defer_ttl: float | None = None  # seconds a deferred question stays open; None: it never expires
    explain: Callable[[ApprovalRequest, str | None], str | None] | None = attrs.field(
        default=None, eq=False
    )  # explain(request, answerer): the provider's account, added to the message
    # Every request says so, and a terminal answerer passes it on to the next one unasked.
    terminal: bool = True  # whether a terminal answerer may ask (False: mcp serve over stdio)

    async def request(
        self,
        answerers: Answerers,
        log: ApprovalLog,
        call: ToolInvocation,
        reason: str,
        *,
        turn_open: bool,
        escalation: SandboxMode | None = None,
        justification: str | None = None,
    ) -> ApprovalDecision:
        """Ask `answerers` about `call`, with the audit pair (or the deferral) in `log`."""
        # The seq the question will take makes the id unique in the session even when a model
        # reuses a call id, and keeps it readable; the random part makes it unique across
        # sessions, so that an answer (or a log spliced) from another session names nothing
        # here, as a call id and a seq repeat in every run of one scenario.
        approval_id = f"approval-{call.call_id}-{log.next_seq}-{os.urandom(6).hex()}"
        if not turn_open:
            return ApprovalDecision(
                approval_id,
                ApprovalOutcome.UNAVAILABLE,
                None,
                "approval requested outside an open turn; refused",
            )
        try:
            log.append(
                ApprovalAsked(
                    id=approval_id,
                    call_id=call.call_id,
                    tool=call.name,
                    reason=reason,
                    args_digest=call.args_digest,
                    escalation=escalation.value if escalation is not None else None,
                )
            )
        except Exception as exc:
            return ApprovalDecision(
                approval_id,
                ApprovalOutcome.UNAVAILABLE,
                None,
                f"the approval could not be recorded ({describe(exc)}); refused",
            )
        outcome, answerer, message = await self._ask(
            answerers=answerers,
            policy=current_policy(log, self.default_policy),
            call=call,
            approval_id=approval_id,
            reason=reason,
            escalation=escalation,
            justification=justification,
        )
        if outcome is ApprovalOutcome.DEFERRED:
            return await self._defer(log, call, approval_id, answerer, message)
        try:
            decided = ApprovalDecided(
                id=approval_id,
                outcome=outcome.value,  # type: ignore[arg-type]  # never deferred: see above
                answerer=answerer,
                message=message,
            )
            log.append(decided)
        except Exception as exc:
            return ApprovalDecision(
                approval_id,
                ApprovalOutcome.UNAVAILABLE,
                answerer,
                f"the decision could not be recorded ({describe(exc)}); refused",
            )
        return ApprovalDecision(approval_id, outcome, answerer, message)

    async def _ask(
        self,
        *,
        answerers: Answerers,
        policy: str,
        call: ToolInvocation,
        approval_id: str,
        reason: str,
        escalation: SandboxMode | None,
        justification: str | None,
    ) -> tuple[ApprovalOutcome, str | None, str]:
        if policy == "never":
            return (
                ApprovalOutcome.UNAVAILABLE,
                None,
                "approval policy is `never`: refused without asking",
            )
        if not answerers.names:
            return (
                ApprovalOutcome.UNAVAILABLE,
                None,
                "no answerer is configured (no plugin implements approval/request); "
                "add user-approval to the profile with an answerer that can answer here",
            )
        request = ApprovalRequest(
            id=approval_id,
            session_id=call.session_id,
            call_id=call.call_id,
            tool=call.name,
            reason=reason,
            args_digest=call.args_digest,
            arguments=call.arguments,
            sandbox_mode=call.sandbox_mode,
            escalation=escalation,
            justification=justification,
            terminal=self.terminal,
        )
        import asyncio

        try:
            answer = await asyncio.wait_for(answerers.ask(request), self.timeout)
        except TimeoutError:
            account = self._account(request, None)
            return (
                ApprovalOutcome.UNAVAILABLE,
                None,
                f"no answer within {self.timeout:g}s (tried: "
                f"{', '.join(answerers.names)}); refused" + (f"; {account}" if account else ""),
            )
        if answer.answer is None:
            tried = "; ".join(answer.notes) or "nobody answered"
            advice = self._account(request, None) or (
                "configure an answerer that can answer here (a matching rule for headless "
                "runs, or a terminal)"
            )
            return (
                ApprovalOutcome.UNAVAILABLE,
                answer.plugin,
                f"no answerer gave an answer ({tried}); {advice}",
            )
        outcome: ApprovalOutcome = answer.answer
        account = self._account(request, answer.plugin)
        message = f"{outcome} by {answer.plugin}" + (f": {account}" if account else "")
        return outcome, answer.plugin, message

    async def _defer(
        self,
        log: ApprovalLog,
        call: ToolInvocation,
        approval_id: str,
        answerer: str | None,
        message: str,
    ) -> ApprovalDecision:
        """Park the question durably; a session that cannot wait refuses it instead."""
        from seamhost.session.live import now_ms

        ttl = self.defer_ttl
        expires = now_ms() + int(ttl * 1000) if ttl is not None else None
        try:
            log.append(
                ApprovalDeferred(
                    id=approval_id,
                    call_id=call.call_id,
                    args_digest=call.args_digest,
                    expires=expires,
                    answerer=answerer,
                )
            )
            await log.flush()
        except Exception as exc:
            reason = f"the approval could not be deferred durably ({describe(exc)}); refused"
            # Close the question in the log when it can still be written; either way, refused.
            with contextlib.suppress(Exception):
                log.append(
                    ApprovalDecided(
                        id=approval_id,
                        outcome=ApprovalOutcome.UNAVAILABLE.value,
                        answerer=answerer,
                        message=reason,
                    )
                )
            return ApprovalDecision(approval_id, ApprovalOutcome.UNAVAILABLE, answerer, reason)
        return ApprovalDecision(approval_id, ApprovalOutcome.DEFERRED, answerer, message)

    def _account(self, request: ApprovalRequest, answerer: str | None) -> str | None:
        """What `explain` says about `request`; a failing `explain` only loses the detail."""
        if self.explain is None:
            return None
        try:
            return self.explain(request, answerer)
        except Exception:
            return None
