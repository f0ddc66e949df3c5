"""Opening sessions of a bundle: new ones and existing ones, on the bundle's store."""

from __future__ import annotations

import os
import secrets
import time
from typing import TYPE_CHECKING, Any

from seamhost.errors import SeamhostError
from seamhost.session.live import Session, now_ms
from seamhost.session.repair import RepairPlan, apply_repair
from seamhost.session.store import SessionHeader

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.session.store import SessionWriter


def new_session_id() -> str:
    """A sortable, unique id: UTC creation time and 48 random bits."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(6)


def create_session(
    bundle: Bundle, *, session_id: str | None = None, cwd: str | None = None
) -> Session:
    """A new session on the bundle's store; nothing is written before the first flush."""
    snapshot = bundle.snapshot.to_json()
    model = model_identity(bundle)
    if model is not None:  # design.md §12: who answered is part of what wrote the session
        snapshot["model"] = model
    header = SessionHeader(
        session_id=session_id or new_session_id(),
        created=now_ms(),
        cwd=cwd if cwd is not None else os.getcwd(),
        bundle=snapshot,
        durability={"barriers": bundle.barriers, "store": bundle.store.name},
    )
    return bind_session(bundle, bundle.store.create(header))


def model_identity(bundle: Bundle) -> dict[str, Any] | None:
    """The `llm/adapter` provider's identity (plugin, version, base URL, model), if it has one.

    A provider that cannot be made yet (a scripted model without its scenario) has none here;
    its first model request reports why.
    """
    if not bundle.seams.has("llm/adapter"):
        return None
    try:
        adapter = bundle.seams.llm_adapter()
    except SeamhostError:
        return None
    identity = getattr(adapter, "identity", None)
    return dict(identity) if identity else None  # the header freezes what it holds


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


__all__ = ["bind_session", "create_session", "model_identity", "new_session_id", "open_session"]
