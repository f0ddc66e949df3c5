"""Opening sessions of a bundle: new ones and existing ones, on the bundle's store."""

from __future__ import annotations

import os
import socket
import time
from typing import TYPE_CHECKING

import attrs

from seamhost.errors import BundleChanged
from seamhost.jsonvalue import freeze
from seamhost.run.identity import model_identity
from seamhost.session.events import (
    ApprovalDecided,
    ModelAttemptFailed,
    PendingCallState,
    SessionTakeover,
)
from seamhost.session.live import Session, now_ms
from seamhost.session.repair import RepairPlan, apply_repair
from seamhost.session.store import SessionHeader

if TYPE_CHECKING:
    from collections.abc import Callable

    from seamhost.kernel.bundle import Bundle
    from seamhost.session.continuation import ContinuationPlan
    from seamhost.session.store import SessionWriter


def new_session_id() -> str:
    """A sortable, unique id: UTC creation time and 48 random bits."""
    # os.urandom(6).hex() is what secrets.token_hex(6) is, without importing secrets on a run.
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + os.urandom(6).hex()


def create_session(
    bundle: Bundle, *, session_id: str | None = None, cwd: str | None = None
) -> Session:
    """A new session on the bundle's store; nothing is written before the first flush."""
    snapshot = bundle.snapshot
    model = model_identity(bundle)
    if model is not None:  # design.md §12: who answered is part of what wrote the session
        snapshot = attrs.evolve(snapshot, model=freeze(model))
    header = SessionHeader(
        session_id=session_id or new_session_id(),
        created=now_ms(),
        cwd=cwd if cwd is not None else os.getcwd(),
        bundle=snapshot.to_json(),
        durability={"barriers": bundle.barriers, "store": bundle.store.name},
    )
    return bind_session(bundle, bundle.store.create(header))


def bind_session(bundle: Bundle, writer: SessionWriter) -> Session:
    """A live session over `writer` whose events and flushes go through `bundle`'s seams."""
    seams = bundle.seams
    on_event = seams.observer("session/event") if seams.has("session/event") else None
    return Session(writer, on_event=on_event, flush=seams.session_flush, catalog=bundle.catalog)


def open_session(bundle: Bundle, session_id: str) -> tuple[Session, RepairPlan | None]:
    """An existing session, opened for writing (exclusively) on the bundle's store.

    Opening a cold session whose last turn is open repairs it (:mod:`seamhost.session.repair`): the
    closing records are appended (not yet flushed) and the plan is returned with the session.
    A session whose lock a live writer holds is refused by the store, never repaired.
    """
    writer = bundle.store.open(session_id)
    session = bind_session(bundle, writer)
    plan = apply_repair(session)
    return session, plan


def continue_session(
    bundle: Bundle,
    session_id: str,
    *,
    owner: str | None = None,
    accept_changes: bool = False,
    check: Callable[[Session, ContinuationPlan], None] | None = None,
) -> tuple[Session, ContinuationPlan | None]:
    """An existing session, opened for writing to continue its open turn (design.md §6).

    Unlike :func:`open_session`, nothing is closed as ``interrupted``. The session's recorded
    identity is compared with `bundle` first (:func:`seamhost.run.identity.identity_changes`):
    any difference raises :class:`~seamhost.errors.BundleChanged` and the session is released
    with nothing appended, unless `accept_changes`, which the takeover record lists.

    When a turn is open (and not parked on a deferred approval), the returned plan says where it
    stands (:mod:`seamhost.session.continuation`) and these are appended, not flushed: a
    ``session/takeover`` record (`owner`, default this host and process; the store's lease epoch
    when it has one; the open turn, step and calls), ``model/failed {interrupted}`` for a model
    attempt left open, and ``approval/decided {cancelled, interrupted}`` for questions asked of
    a person who went with the process. :meth:`seamhost.run.agent.Agent.continue_turn` then
    drives the turn to its end. ``None`` as the plan: nothing to continue (the last turn ended,
    or it is parked on a deferred approval, which ``Agent.continue_turn`` resumes too).

    `check`, when given, is called with the session and the plan before anything is appended:
    whatever it raises refuses the continuation and releases the session as it was found (the
    CLI refuses there a turn whose model cannot answer). A session a live writer holds is
    refused by the store (nothing is written); a damaged one raises
    :class:`~seamhost.errors.SessionDamaged`.
    """
    from seamhost.run.identity import identity_changes, recorded_model
    from seamhost.session.continuation import plan_continuation

    writer = bundle.store.open(session_id)
    try:
        session = bind_session(bundle, writer)
        changes = identity_changes(session.header.bundle, bundle, recorded_model(session))
        if changes and not accept_changes:
            raise BundleChanged(session.id, tuple(changes))
        plan = plan_continuation(session.header, session.records)
        if plan is not None and check is not None:
            check(session, plan)
        if plan is not None:
            record_takeover(session, plan, owner, tuple(changes) if changes else None)
    except BaseException:
        writer.close()  # nothing was flushed: the session is as it was found
        raise
    return session, plan


def record_takeover(
    session: Session,
    plan: ContinuationPlan,
    owner: str | None,
    accepted: tuple[str, ...] | None,
) -> None:
    """Append the takeover and close what the dead writer left open (see `continue_session`)."""
    lease = getattr(session.writer, "lease", None)
    epoch = getattr(lease, "epoch", None)
    session.append(
        SessionTakeover(
            owner=owner or str(getattr(lease, "owner", None) or default_owner()),
            turn=plan.turn,
            step=plan.step,
            calls=tuple(PendingCallState(c.call_id, c.state, c.attempt) for c in plan.calls),
            epoch=int(epoch) if isinstance(epoch, int) and epoch > 0 else None,
            accepted_changes=accepted,
        )
    )
    if plan.open_attempt is not None and plan.step is not None:
        session.append(
            ModelAttemptFailed(
                turn=plan.turn,
                step=plan.step,
                attempt=plan.open_attempt,
                code="interrupted",
                message="the process stopped while this model request was open",
                retryable=True,
            )
        )
    for approval in plan.approvals:
        session.append(ApprovalDecided(id=approval, outcome="cancelled", interrupted=True))


def default_owner() -> str:
    """Who continues a session when the caller names no one: this host and process."""
    return f"{socket.gethostname()}:{os.getpid()}"


__all__ = [
    "bind_session",
    "continue_session",
    "create_session",
    "default_owner",
    "model_identity",
    "new_session_id",
    "open_session",
    "record_takeover",
]
