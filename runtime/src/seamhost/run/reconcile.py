"""Resolve an unknown outcome with evidence bound to that exact call (design.md §10).

:func:`reconcile` takes evidence from a person, a script or a status probe and, only when every
check passes, appends one ``tool/reconciled`` record and makes it durable:

* the session has the call, its result is ``TOOL_OUTCOME_UNKNOWN``, and the evidence names the
  attempt that was dispatched last (the default);
* result evidence is valid against the tool's output schema, checked with the declaration the call
  was made with (a tool whose descriptor changed since is refused: the evidence cannot be
  checked); error evidence carries a code other than ``TOOL_OUTCOME_UNKNOWN``;
* a call already reconciled with the same evidence is left as it is (the call is idempotent);
  different evidence is refused.

The evidence digest binds the session, the call, the attempt, the arguments digest and what
happened; who said so (`source`) is recorded beside it. Nothing here runs a tool's body.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

import attrs

from seamhost import jsonvalue
from seamhost.errors import ErrorCode, SeamhostError
from seamhost.run.unknowns import CallState, call_states, is_unknown
from seamhost.schema import compile_schema
from seamhost.session.events import ToolError, ToolReconciled

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.session.live import Session

CODE = re.compile(r"[A-Z][A-Z0-9_]*")


class ReconcileRefused(SeamhostError, ValueError):
    """Evidence cannot resolve the call it names; nothing was written."""

    session_id: str
    call_id: str
    problem: str

    def __str__(self) -> str:
        return f"session {self.session_id}: call {self.call_id}: {self.problem}"


@attrs.frozen
class Evidence:
    """What happened to an attempt: a result value, or an error with its code."""

    source: str
    outcome: Literal["result", "error"]
    content: str
    value: Any = attrs.field(default=None, converter=jsonvalue.freeze)
    error: ToolError | None = None

    @classmethod
    def result(cls, source: str, value: Any, content: str | None = None) -> Evidence:
        text = content if content is not None else jsonvalue.canonical_json(value).decode()
        return cls(source, "result", text, value)

    @classmethod
    def failure(cls, source: str, code: str, message: str) -> Evidence:
        return cls(source, "error", f"{code}: {message}", None, ToolError(code, message))

    def digest(self, session_id: str, call_id: str, attempt: int, args_digest: str) -> str:
        error = None if self.error is None else [self.error.code, self.error.message]
        return jsonvalue.digest(
            {
                "session": session_id,
                "call_id": call_id,
                "attempt": attempt,
                "args_digest": args_digest,
                "outcome": self.outcome,
                "content": self.content,
                "value": jsonvalue.thaw(self.value),
                "error": error,
            }
        )


def reconcile(
    bundle: Bundle,
    session: Session,
    call_id: str,
    evidence: Evidence,
    *,
    attempt: int | None = None,
    args_digest: str | None = None,
) -> ToolReconciled | None:
    """Append the ``tool/reconciled`` record of `evidence` (not flushed).

    `attempt` and `args_digest`, when given, are what the evidence was given for (the attempt
    and arguments digest the person was shown): evidence for another is refused.

    Returns the record, or ``None`` when the same evidence was recorded before. Raises
    `ReconcileRefused` when the evidence cannot resolve the call.
    """
    sid = session.id

    def refuse(problem: str) -> ReconcileRefused:
        return ReconcileRefused(sid, call_id, problem)

    state = call_states(session.records).get(call_id)
    if state is None or state.call is None:
        raise refuse("the session has no such call (`seamhost session show` lists its calls)")
    dispatch = state.dispatch or {}
    last = int(dispatch.get("attempt", 1))
    if attempt is not None and attempt != last:
        raise refuse(f"attempt {attempt} is not the one whose outcome is unknown (attempt {last})")
    recorded = str(dispatch.get("args_digest", ""))
    if args_digest is not None and args_digest != recorded:
        raise refuse(
            f"the evidence was given for arguments digest {args_digest}, but the call ran with "
            f"{recorded}"
        )
    digest = evidence.digest(sid, call_id, last, recorded)
    if state.reconciled is not None:
        if state.reconciled["evidence_digest"] == digest:
            return None
        raise refuse(
            f"already reconciled by {state.reconciled['source']} with other evidence "
            f"({state.reconciled['outcome']}); it cannot be reconciled again"
        )
    if not is_unknown(state):
        raise refuse(_known(state))
    _check(bundle, state, evidence, refuse)
    record = ToolReconciled(
        call_id=call_id,
        attempt=last,
        args_digest=recorded,
        source=evidence.source,
        outcome=evidence.outcome,
        evidence_digest=digest,
        content=evidence.content,
        value=evidence.value,
        error=evidence.error,
    )
    session.append(record)
    return record


def _known(state: CallState) -> str:
    if state.result is None:
        return "the call has no result yet (an open or parked step); there is nothing to reconcile"
    error = state.result.get("error")
    outcome = f"it ended {error['code']}" if error else "it succeeded"
    return f"its outcome is known ({outcome}); only an unknown outcome can be reconciled"


def _check(bundle: Bundle, state: CallState, evidence: Evidence, refuse: Any) -> None:
    if not evidence.source.strip():
        raise refuse("the evidence names no source (--source: who or what says so)")
    if evidence.error is not None:
        code = evidence.error.code
        if not CODE.fullmatch(code) or code == ErrorCode.TOOL_OUTCOME_UNKNOWN.value:
            raise refuse(
                f"{code!r} is not an error code that settles the outcome (e.g. TOOL_ERROR)"
            )
        return
    name = str(state.call["name"])
    tool = bundle.tools.get(name)
    if tool is None or tool.digest != state.call.get("descriptor_digest"):
        raise refuse(
            f"the tool {name} of this profile is not the one the call was made with, so the "
            "evidence cannot be checked against its output schema; use the session's profile"
        )
    violation = compile_schema(tool.spec.output_schema)(jsonvalue.thaw(evidence.value))
    if violation is not None:
        raise refuse(f"the result breaks {name}'s output schema: {violation.at('value')}")


__all__ = ["Evidence", "ReconcileRefused", "reconcile"]
