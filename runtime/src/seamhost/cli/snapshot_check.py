"""What `seamhost session verify` says of a session's resume snapshot (docs/design.md).

The log is replayed up to the seq the kept snapshot covers and the two states compared. A
snapshot the kernel would not trust is only a note (opening replays the log in full); one it
would trust that differs from the replay is damage: opening from it would give another state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from seamhost.session.store import SessionStore


def snapshot_check(store: SessionStore, session_id: str) -> dict[str, Any] | None:
    """``{"seq", "status", "message"}`` for the kept snapshot, or None when there is none.

    `status` is ``matches``, ``ignored`` (opening does not use it) or ``differs`` (damage).
    """
    from seamhost.session import snapshot
    from seamhost.session.derived import Derived
    from seamhost.session.store import SnapshotStore

    if not isinstance(store, SnapshotStore):
        return None
    kept = store.kept_snapshot(session_id)
    if kept is None:
        return None
    reader = store.read(session_id)
    derived = snapshot.decode(kept.body, reader.header)
    if derived is None or derived.seq != kept.seq:
        return _result(kept.seq, "ignored", "not a sound snapshot of this session: not used")
    replayed = Derived()
    replayed.fold(record for record in reader.records() if record.seq < kept.seq)
    if replayed.seq < kept.seq:
        return _result(kept.seq, "ignored", "it covers more records than the log holds")
    if replayed.summary() != derived.summary():
        message = "it differs from a replay of the log: opening would use it; remove it"
        return _result(kept.seq, "differs", message)
    return _result(kept.seq, "matches", "it matches a replay of the log")


def _result(seq: int, status: str, message: str) -> dict[str, Any]:
    return {"seq": seq, "status": status, "message": message}


__all__ = ["snapshot_check"]
