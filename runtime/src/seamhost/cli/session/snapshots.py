"""What `seamhost session verify` says of a session's resume snapshot (docs/design.md).

The log is replayed up to the seq the kept snapshot covers and the two states compared. A
snapshot the kernel would not trust is only a note (opening replays the log in full); one it
would trust that differs from the replay is damage: opening from it would give another state.
Its pieces are compared with the log's records of the conversation the same way: pieces that do
not check out are a note (the conversation is then read from the log), pieces that check out
but hold other records are damage (the model would be shown another conversation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from seamhost.errors import SeamhostError
from seamhost.session import snapshot
from seamhost.session.derived import SHOWN, Derived
from seamhost.session.store import SnapshotStore

if TYPE_CHECKING:
    from collections.abc import Callable

    from seamhost.session.store import SessionStore


def snapshot_check(store: SessionStore, session_id: str) -> dict[str, Any] | None:
    """``{"seq", "status", "message", "pieces"}`` for the kept snapshot, or None without one.

    `status` is ``matches``, ``ignored`` (opening does not use it) or ``differs`` (damage);
    `pieces` (of a snapshot that matches or differs) is ``matches``, ``none`` (it has none),
    ``ignored`` (they do not check out) or ``differs`` (damage, and `status` says so too).
    """
    if not isinstance(store, SnapshotStore):
        return None
    kept = store.kept_snapshot(session_id)
    if kept is None:
        return None
    reader = store.read(session_id)
    derived = snapshot.decode(kept.body, reader.header)
    if derived is None or derived.seq != kept.seq:
        return _result(kept.seq, "ignored", "not a sound snapshot of this session: not used")
    replayed, shown = Derived(), []
    for record in reader.records():
        if record.seq >= kept.seq:
            break
        replayed.fold((record,))
        if record.type in SHOWN:
            shown.append(record.envelope())
    if replayed.seq < kept.seq:
        return _result(kept.seq, "ignored", "it covers more records than the log holds")
    pieces = _pieces(kept.pieces, derived, shown)
    if replayed.summary() != derived.summary():
        message = "it differs from a replay of the log: opening would use it; remove it"
        return _result(kept.seq, "differs", message, pieces)
    if pieces == "differs":
        message = "its pieces hold another conversation than the log: remove the snapshot"
        return _result(kept.seq, "differs", message, pieces)
    return _result(kept.seq, "matches", "it matches a replay of the log", pieces)


def _pieces(read: Callable[[], bytes] | None, derived: Derived, shown: list[bytes]) -> str:
    """How the snapshot's pieces compare with the log's records of the conversation."""
    if derived.chain is None or read is None:
        return "none"
    try:
        found = snapshot.shown_records(read(), derived)
    except (SeamhostError, OSError):
        found = None
    if found is None:
        return "ignored"
    return "matches" if [r.envelope() for r in found] == shown else "differs"


def _result(seq: int, status: str, message: str, pieces: str | None = None) -> dict[str, Any]:
    return {"seq": seq, "status": status, "message": message, "pieces": pieces}


__all__ = ["snapshot_check"]
