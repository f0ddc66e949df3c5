"""The run queue: `seamhost submit` adds runs, `seamhost worker` claims and drives them.

A run is a row of ``runs`` (:mod:`.schema`): the session it drives (its id chosen at submit
time), what drives it (a scenario's bytes and file name, or a prompt), the workspace it was
submitted with (every owner works there; NULL: each worker's own per-run directory), its ``state``
(``queued``, ``running``, then ``completed``, ``interrupted``, ``parked`` or ``failed``), the
worker holding it and until when (``claim_expires``, database clock), how many times it was
claimed (``claims``, which also fences the run's row: a worker renews or hands back its claim
only while the count is the one it claimed), and its ``progress`` and ``outcome`` as text for
`seamhost runs`. Each claim is also a row of ``run_attempts``: who claimed the run, when, and
how that claim ended (completed, handed back and why, lost to a new owner; none when the
worker died), for `seamhost runs show`.

A claim takes the oldest run that is queued (and not held back: a run handed back waits out
its delay) or running under a claim that expired (its worker died or stalled), with
``FOR UPDATE SKIP LOCKED``, so that workers never wait on each other and
never claim the same row at once. The session's own lease (:mod:`.writing`) is what keeps two
workers from writing one session: a worker that claims a run whose session another worker still
holds gives the claim back and moves on.
"""

from __future__ import annotations

import builtins
import datetime
from typing import TYPE_CHECKING, Any

import attrs
from psycopg import sql

if TYPE_CHECKING:
    from seamhost_persistence_postgres.database import Database

# Each statement that ends a claim also notes, in ``run_attempts``, how that claim ended (an
# attempt's row is its worker's alone, so the note needs no fence); the run's own row is fenced.
_NOTE = (
    "WITH noted AS (UPDATE {s}.run_attempts SET ended = clock_timestamp(), how = %(how)s "
    "WHERE run_id = %(id)s AND claim = %(claims)s AND ended IS NULL) "
)
_SQL = {
    "submit": (
        "INSERT INTO {s}.runs (session_id, state, scenario, scenario_name, prompt, workspace) "
        "VALUES (%s, 'queued', %s, %s, %s, %s) RETURNING id"
    ),
    "claim": (
        "WITH claimed AS (UPDATE {s}.runs SET state = 'running', worker = %(worker)s, claims = "
        "claims + 1, started = coalesce(started, clock_timestamp()), claim_expires = "
        "clock_timestamp() + %(claim)s * interval '1 second' WHERE id = (SELECT id FROM {s}.runs "
        "WHERE state IN ('queued', 'running') AND (claim_expires IS NULL OR claim_expires < "
        "clock_timestamp()) ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING {columns}), "
        "noted AS (INSERT INTO {s}.run_attempts (run_id, claim, worker, claimed) SELECT id, "
        "claims, worker, clock_timestamp() FROM claimed) SELECT {columns} FROM claimed"
    ),
    "heartbeat": (
        "UPDATE {s}.runs SET claim_expires = clock_timestamp() + %(claim)s * interval '1 second',"
        " progress = %(progress)s WHERE id = %(id)s AND claims = %(claims)s AND state = 'running'"
    ),
    "finish": _NOTE
    + (
        "UPDATE {s}.runs SET state = %(state)s, outcome = %(outcome)s, finished = "
        "clock_timestamp(), claim_expires = NULL, worker = %(worker)s WHERE id = %(id)s AND "
        "state IN ('queued', 'running')"
    ),
    "hand_back": _NOTE
    + (
        "UPDATE {s}.runs SET state = 'queued', worker = NULL, claim_expires = clock_timestamp() "
        "+ %(delay)s * interval '1 second', progress = %(progress)s WHERE id = %(id)s AND "
        "claims = %(claims)s AND state = 'running'"
    ),
    "note": _NOTE + "SELECT 1",
    "list": "SELECT {columns} FROM {s}.runs ORDER BY id",
    "get": "SELECT {columns} FROM {s}.runs WHERE id::text = %s OR session_id LIKE %s ORDER BY id",
    "attempts": (
        "SELECT claim, worker, claimed, ended, how FROM {s}.run_attempts WHERE run_id = %s "
        "ORDER BY claim"
    ),
}
_COLUMNS = (
    "id",
    "session_id",
    "state",
    "scenario",
    "scenario_name",
    "prompt",
    "claims",
    "worker",
    "progress",
    "outcome",
    "submitted",
    "started",
    "finished",
    "workspace",
)


@attrs.frozen
class RunRow:
    """One run as the queue holds it."""

    id: int
    session_id: str
    state: str
    scenario: bytes | None
    scenario_name: str | None
    prompt: str | None
    claims: int
    worker: str | None
    progress: str
    outcome: str
    submitted: datetime.datetime | None
    started: datetime.datetime | None
    finished: datetime.datetime | None
    workspace: str | None

    @classmethod
    def of(cls, row: tuple[Any, ...]) -> RunRow:
        values = list(row)
        values[3] = bytes(values[3]) if values[3] is not None else None
        return cls(*values)


@attrs.frozen
class RunAttemptRow:
    """One claim of a run: who, when, and how it ended (None: its worker died or stalled)."""

    claim: int
    worker: str
    claimed: datetime.datetime
    ended: datetime.datetime | None
    how: str | None


class RunTable:
    """The runs of one schema."""

    def __init__(self, db: Database) -> None:
        self._db = db
        ident = sql.Identifier(db.schema)
        columns = sql.SQL(", ").join(map(sql.Identifier, _COLUMNS))
        self._q = {
            name: sql.SQL(text).format(s=ident, columns=columns).as_bytes(None)
            for name, text in _SQL.items()
        }

    @property
    def where(self) -> str:
        return self._db.where

    def submit(
        self,
        session_id: str,
        *,
        scenario: bytes | None = None,
        scenario_name: str | None = None,
        prompt: str | None = None,
        workspace: str | None = None,
    ) -> int:
        params = (session_id, scenario, scenario_name, prompt, workspace)
        (row,) = self._db.rows(self._q["submit"], params)
        return int(row[0])

    def claim(self, worker: str, claim_s: float) -> RunRow | None:
        rows = self._db.rows(self._q["claim"], {"worker": worker, "claim": claim_s})
        return RunRow.of(rows[0]) if rows else None

    def heartbeat(self, run: RunRow, claim_s: float, progress: str) -> bool:
        """Extend the claim; False when the run is no longer this claim's."""
        params = {"id": run.id, "claims": run.claims, "claim": claim_s, "progress": progress}
        return self._update("heartbeat", params)

    def finish(self, run: RunRow, state: str, outcome: str) -> bool:
        """Record how the run ended. Not fenced by the claim: whoever drove the session to its
        end did so under the session's lease (a fenced-out driver never gets here), even if
        its claim lapsed and another worker, finding the session held, stepped back."""
        params = {
            "id": run.id,
            "state": state,
            "outcome": outcome,
            "worker": run.worker,
            "claims": run.claims,
            "how": f"{state}: {outcome}" if outcome else state,
        }
        return self._update("finish", params)

    def hand_back(self, run: RunRow, progress: str, delay_s: float = 0.0) -> bool:
        """Queue the run again, claimable after `delay_s` (so a run whose session is still
        held, or whose database fails, is not claimed again and again meanwhile)."""
        params = {
            "id": run.id,
            "claims": run.claims,
            "progress": progress,
            "delay": delay_s,
            "how": progress,
        }
        return self._update("hand_back", params)

    def note_end(self, run: RunRow, how: str) -> None:
        """Note how this claim of the run ended when the run itself stays as it is (the
        worker lost the session to a new owner, which now drives the run)."""
        self._db.rows(self._q["note"], {"id": run.id, "claims": run.claims, "how": how})

    def attempts(self, run: RunRow) -> builtins.list[RunAttemptRow]:
        """Every claim of the run, oldest first."""
        return [RunAttemptRow(*row) for row in self._db.rows(self._q["attempts"], (run.id,))]

    def all(self) -> list[RunRow]:
        return [RunRow.of(row) for row in self._db.rows(self._q["list"])]

    def find(self, ref: str) -> builtins.list[RunRow]:
        """The runs whose id is `ref`, or whose session id starts with it."""
        pattern = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return [RunRow.of(row) for row in self._db.rows(self._q["get"], (ref, pattern))]

    def _update(self, name: str, params: dict[str, Any]) -> bool:
        # Fenced by the claim count, so running it twice (after a dropped connection) is safe.
        return self._db.rowcount(self._q[name], params) == 1
