"""What to do about a parked session: the one command that answers it, the one that continues it.

Every command that leaves a session parked (``run``, ``exec``, ``chat``, ``approve``/``reject``,
``session show``, a worker's run) says the same two things in the same words, and they depend on
the model the session's header recorded (:func:`seamhost.run.identity.recorded_model`):

* a *scripted* session (its model replays a scenario, or it recorded no model that answers
  without one) continues with ``seamhost run --resume ID [SCENARIO]``: the scripted model needs
  its scenario again;
* a session of a *real* model continues headless with ``seamhost exec --resume ID``, or, from
  ``chat``, with ``seamhost chat --resume ID``.

The same words go into ``--json`` summaries (``answer``, ``continue``), so a script can run them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from seamhost.session.suspension import find_suspension

if TYPE_CHECKING:
    from seamhost.session.live import Session
    from seamhost.session.store import SessionHeader, SessionStore


def is_scripted(model: Mapping[str, Any] | None) -> bool:
    """Whether a recorded model identity is one only a scenario answers from.

    A session whose header holds no model was written by an adapter that could not be made
    without its scenario (the scripted model before it is loaded), or by no model at all: only
    ``run`` with a SCENARIO continues it.
    """
    return model is None or "scenario" in model


def model_of(header: SessionHeader) -> Mapping[str, Any] | None:
    """The model identity a session's header recorded, if any."""
    model = header.bundle.get("model")
    return model if isinstance(model, Mapping) else None


def continue_command(
    session_id: str,
    model: Mapping[str, Any] | None,
    *,
    interactive: bool = False,
    profile: str | None = None,
) -> str:
    """The one command that continues `session_id`, written by `model` (see the module).

    `profile` is named when the session is not in the default profile's store (a worker's).
    """
    given = f" --profile {profile}" if profile is not None else ""
    if is_scripted(model):
        return f"seamhost run{given} --resume {session_id} [SCENARIO]"
    return f"seamhost {'chat' if interactive else 'exec'}{given} --resume {session_id}"


def continue_session_command(session: Session, *, interactive: bool = False) -> str:
    """:func:`continue_command` for a live session, by the model its header recorded."""
    return continue_command(session.id, model_of(session.header), interactive=interactive)


def answer_command(
    session_id: str, approval_id: str, *, verb: str = "approve", profile: str | None = None
) -> str:
    """The command that answers a deferred approval (`verb` ``reject`` refuses it)."""
    given = f" --profile {profile}" if profile is not None else ""
    return f"seamhost {verb}{given} {session_id} {approval_id}"


def awaits_approval(
    session_id: str, approval_id: str, then: str, *, profile: str | None = None
) -> str:
    """The line a command ends with when a turn parked on a deferred approval."""
    allow = answer_command(session_id, approval_id, profile=profile)
    refuse = answer_command(session_id, approval_id, verb="reject", profile=profile)
    return (
        f"session {session_id} awaits approval {approval_id}: answer it with `{allow}` or "
        f"`{refuse}`, then continue with `{then}`"
    )


def awaits_reconciliation(
    session_id: str, why: str | None, then: str, *, profile: str | None = None
) -> str:
    """The line a command ends with when a turn parked until unknown outcomes are reconciled."""
    given = f" --profile {profile}" if profile is not None else ""
    return (
        f"session {session_id} is parked: {why or 'calls with unknown outcomes'}; check what "
        f"those calls did, record it with `seamhost session reconcile{given} {session_id} "
        f"CALL_ID ...`, then continue with `{then}`"
    )


def parked_fields(
    session_id: str, reason: str, approval_id: str | None, then: str
) -> dict[str, str]:
    """What a ``--json`` summary of a parked turn holds: the commands that answer and continue."""
    if reason == "suspended" and approval_id is not None:
        return {
            "approval_id": approval_id,
            "answer": answer_command(session_id, approval_id),
            "continue": then,
        }
    return {"answer": f"seamhost session reconcile {session_id} CALL_ID ...", "continue": then}


def parked_advice(store: SessionStore, session_id: str, profile: str | None = None) -> str | None:
    """What to do about the stored session `session_id`, if its last turn is parked.

    For a session another process parked (a worker's run): read from `store`, whose profile
    `profile` names in the commands.
    """
    stored = store.read(session_id)
    records = list(stored.records())
    then = continue_command(session_id, model_of(stored.header), profile=profile)
    parked = find_suspension(records)
    if parked is not None:
        return awaits_approval(session_id, parked.approval_id, then, profile=profile)
    from seamhost.session.repair import open_turn  # only for a session read back, never a run

    if open_turn(records) is None:
        return None
    return awaits_reconciliation(session_id, None, then, profile=profile)
