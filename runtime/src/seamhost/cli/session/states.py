"""The states ``session ls --state`` tells apart, read from a session's last records.

* ``closed``: its last turn ended (or it has none);
* ``open``: its last turn has not ended: a writer is in it now, or the writer crashed (then
  ``session repair`` or ``run --resume`` closes it); the log alone cannot tell the two apart,
  and a listing never takes the writer's lock to find out;
* ``awaits-approval``: its turn is parked on a deferred approval, answered or not, until
  ``run --resume`` continues it;
* ``unreadable``: the store cannot read it (damaged, or written by a newer seamhost).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost.errors import SeamhostError
from seamhost.session.repair import open_turn
from seamhost.session.suspension import find_suspension

if TYPE_CHECKING:
    from seamhost.session.store import SessionStore

STATES = ("open", "closed", "awaits-approval", "unreadable")


def session_state(store: SessionStore, session_id: str) -> str:
    """What the session's records say it is waiting for (see the module's list of states)."""
    try:
        records = list(store.read(session_id).records())
    except SeamhostError:
        return "unreadable"
    if find_suspension(records) is not None:
        return "awaits-approval"
    return "open" if open_turn(records) is not None else "closed"
