"""Opening sessions of a bundle: new ones and existing ones, on the bundle's store."""

from __future__ import annotations

import os
import secrets
import time
from typing import TYPE_CHECKING

from seamhost.repair import RepairPlan, apply_repair
from seamhost.session.session import Session, now_ms
from seamhost.session.store import SessionHeader

if TYPE_CHECKING:
    from seamhost.bundle import Bundle


def new_session_id() -> str:
    """A sortable, unique id: UTC creation time and 48 random bits."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(6)


def create_session(
    bundle: Bundle, *, session_id: str | None = None, cwd: str | None = None
) -> Session:
    """A new session on the bundle's store; nothing is written before the first flush."""
    header = SessionHeader(
        session_id=session_id or new_session_id(),
        created=now_ms(),
        cwd=cwd if cwd is not None else os.getcwd(),
        bundle=bundle.snapshot.to_json(),
        durability={"barriers": bundle.barriers, "store": bundle.store.name},
    )
    writer = bundle.store.create(header)
    return Session(writer, seams=bundle.seams, catalog=bundle.catalog)


def open_session(bundle: Bundle, session_id: str) -> tuple[Session, RepairPlan | None]:
    """An existing session, opened for writing (exclusively) on the bundle's store.

    Opening a cold session whose last turn is open repairs it (:mod:`seamhost.repair`): the
    closing records are appended (not yet flushed) and the plan is returned with the session.
    A session whose lock a live writer holds is refused by the store, never repaired.
    """
    writer = bundle.store.open(session_id)
    session = Session(writer, seams=bundle.seams, catalog=bundle.catalog)
    plan = apply_repair(session)
    return session, plan


__all__ = ["create_session", "new_session_id", "open_session"]
