"""Deferred approvals for services and the CLI: list them, answer them, resume (design.md §11).

A web UI, a chat bot or ``seamhost approvals``/``approve``/``reject`` use the same three calls:

* :func:`pending_approvals` reads every stored session (readers never lock) and returns the
  questions parked sessions wait on;
* :func:`decide` answers one: it takes the session's writer (a live writer refuses it), checks
  the question is still open and answerable, appends ``approval/decided`` with the decider and the
  source, and makes it durable. Answering twice, an unknown or an expired question is refused and
  nothing is written; so is an answer given for other arguments than the question's, when the
  answerer says which it saw (`args_digest`: the web console's forms post the digest they showed);
* :func:`resume` opens the session and continues the parked turn (:meth:`Agent.resume`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import attrs

from seamhost.errors import SeamhostError
from seamhost.session.events import ApprovalDecided
from seamhost.session.live import now_ms
from seamhost.session.suspension import Suspension, find_suspension

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.run.agent import TurnOutcome
    from seamhost.session.store import SessionStore


class ApprovalNotOpen(SeamhostError, LookupError):
    """A deferred approval cannot be answered: unknown, already answered, or expired."""

    session_id: str
    approval_id: str
    problem: str

    def __str__(self) -> str:
        return f"session {self.session_id}: approval {self.approval_id}: {self.problem}"


@attrs.frozen
class PendingApproval:
    """A question a parked session waits on, as a listing shows it."""

    session_id: str
    approval_id: str
    call_id: str
    tool: str
    reason: str
    arguments: str
    args_digest: str  # the digest an answer is bound to (design.md §11)
    justification: str | None  # the model's reason for a wider sandbox mode, when it asked one
    deferred_at: int
    expires: int | None
    decision: str | None  # answered but not yet resumed: the outcome; else None

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


def pending_approvals(
    store: SessionStore, unreadable: Callable[[str, SeamhostError], None] | None = None
) -> Iterator[PendingApproval]:
    """The deferred approvals of every stored session, pending or answered but not resumed.

    A session that cannot be read is skipped after `unreadable` is told (its id and the error),
    so that a damaged session cannot hide a waiting question without anyone hearing of it.
    """
    for session_id in sorted(store.ids()):
        try:
            records = list(store.read(session_id).records())
        except SeamhostError as exc:
            if unreadable is not None:
                unreadable(session_id, exc)
            continue
        parked = find_suspension(records)
        if parked is not None:
            yield _pending(session_id, parked)


def decide(
    bundle: Bundle,
    session_id: str,
    approval_id: str,
    *,
    allow: bool,
    decider: str,
    reason: str | None = None,
    source: str = "cli",
    args_digest: str | None = None,
) -> None:
    """Answer a deferred approval once, durably; raises `ApprovalNotOpen` when it cannot be.

    `source` says through what the answer came (``cli``, ``console``, a service's name);
    `args_digest`, when given, is the arguments digest the decider was shown: an answer for a
    question whose digest is another is refused.
    """
    import asyncio

    from seamhost.run.sessions import bind_session

    session = bind_session(bundle, bundle.store.open(session_id))
    try:
        parked = find_suspension(session.records)
        if parked is None or parked.approval_id != approval_id:
            raise ApprovalNotOpen(session_id, approval_id, _why_not(session.records, approval_id))
        if not parked.pending:
            raise ApprovalNotOpen(
                session_id,
                approval_id,
                f"already answered ({parked.decision['outcome']})",  # type: ignore[index]
            )
        if parked.expired(now_ms()):
            raise ApprovalNotOpen(session_id, approval_id, "expired; it can no longer be answered")
        if args_digest is not None and args_digest != parked.args_digest:
            raise ApprovalNotOpen(
                session_id,
                approval_id,
                f"the answer was given for arguments digest {args_digest}, but the question is "
                f"about {parked.args_digest}; look at the question again",
            )
        outcome: Literal["allowed-once", "rejected"] = "allowed-once" if allow else "rejected"
        verb = "allowed once" if allow else "rejected"
        message = f"{verb} by {decider} ({source})" + (f": {reason}" if reason else "")
        session.append(
            ApprovalDecided(
                id=approval_id, outcome=outcome, message=message, decider=decider, source=source
            )
        )
        asyncio.run(session.flush())
    finally:
        session.close()


def resume(bundle: Bundle, session_id: str, *, workspace: Path | None = None) -> TurnOutcome | None:
    """Open `session_id` and continue its parked turn; ``None`` when nothing is parked."""
    import asyncio

    from seamhost.run.agent import Agent
    from seamhost.run.sessions import open_session

    session, _ = open_session(bundle, session_id)
    try:
        root = (workspace or Path(session.header.cwd)).resolve()
        agent = Agent(bundle, session, workspace=root)

        async def go() -> TurnOutcome | None:
            outcome = await agent.resume()
            await session.flush()
            return outcome

        return asyncio.run(go())
    finally:
        session.close()


def _pending(session_id: str, parked: Suspension) -> PendingApproval:
    call = parked.calls[parked.index]
    decision = parked.decision["outcome"] if parked.decision is not None else None
    return PendingApproval(
        session_id=session_id,
        approval_id=parked.approval_id,
        call_id=parked.call_id,
        tool=parked.tool,
        reason=parked.reason,
        arguments=str(call["arguments"]),
        args_digest=parked.args_digest,
        justification=str(call["justification"]) if call.get("justification") else None,
        deferred_at=parked.deferred_at,
        expires=parked.expires,
        decision=str(decision) if decision is not None else None,
    )


def _why_not(records: Any, approval_id: str) -> str:
    for record in records:
        if (
            record.type in ("approval/asked", "approval/deferred")
            and record.data["id"] == approval_id
        ):
            return "not waiting for an answer (it was already decided or the session moved on)"
    return "no such approval in this session"
