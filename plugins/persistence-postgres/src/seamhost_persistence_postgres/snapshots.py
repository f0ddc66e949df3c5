"""Resume snapshots of persistence-postgres: one row per session, never the truth.

The kernel's snapshot document (``SnapshotWriter``, docs/design.md "Resume snapshots") is kept
in ``snapshots`` (:mod:`.schema`), one row per session: ``seq`` (it covers the records
[0, seq)), ``last_digest`` (the SHA-256 of the stored bytes of record ``seq - 1``), the
``epoch`` of the writer that saved it, and ``body``, the document as given.

Opening checks it against the log with one index lookup, whatever the session's length: the row
of record ``seq - 1`` must be there, its bytes must hash to ``last_digest`` (its envelope names
its seq and session, so another log, or the same log cut short or rewritten there, does not
match), and ``seq`` must not pass the session's ``next_seq``. Anything else is ignored: the
session is replayed in full. Records are never rewritten once committed, so a snapshot that
matched stays valid until its session is deleted, which deletes it too (``ON DELETE CASCADE``).

Saving is fenced like a flush: one statement that writes the row only through the session row
locked at the writer's epoch (``FOR SHARE``, so a takeover waits for it or it sees the
takeover), so a writer fenced out saves nothing. It commits without waiting for the WAL flush
(``synchronous_commit = off`` for that transaction only): a snapshot lost in a crash costs a
full replay and nothing else.

Pieces (``SnapshotPiece``, version 3) are rows of ``snapshot_pieces`` keyed ``(session_id,
start)``; the snapshot's pieces are the rows with ``start`` below its ``seq``, joined in order.
Saving a snapshot with a piece writes, in the same transaction as its row and behind the same
fence, only that piece: it deletes the rows from ``piece.start`` on and inserts the piece, so the
work is the piece's size, never the whole. ``piece.start`` must be 0 (the pieces start over) or
the ``seq`` of the row being replaced, read in that transaction (an append): anything else is
refused with :class:`~.errors.PieceRefused` and the transaction rolls back, the kept snapshot
and its pieces untouched. A snapshot saved without a piece deletes every piece row: it has none.
They are read only when the kernel asks (:func:`pieces`), on a pooled connection.
"""

from __future__ import annotations

import hashlib
import time
from typing import TYPE_CHECKING, Any

import psycopg

from seamhost_persistence_postgres.errors import PieceRefused, QueryFailed, cause_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from seamhost import SnapshotMark, SnapshotPiece
    from seamhost_persistence_postgres.database import Database
    from seamhost_persistence_postgres.queries import Queries


def digest(body: bytes) -> str:
    """What a snapshot row keeps of the last record it covers: the SHA-256 of its bytes."""
    return hashlib.sha256(body).hexdigest()


def find(db: Database, q: Queries, session_id: str, end: int) -> tuple[int, bytes] | None:
    """The kept snapshot's (seq, body) when it still matches the log of `end` records."""
    rows = db.rows(q["snapshot_find"], (session_id,))
    if not rows:
        return None
    seq, last_digest, body, last = rows[0]
    if not 0 < seq <= end or last is None:
        return None
    if digest(bytes(last)) != last_digest:
        return None
    return int(seq), bytes(body)


def last_body(db: Database, q: Queries, session_id: str, end: int) -> bytes | None:
    """The stored bytes of the last of `end` records (None for an empty session)."""
    if end <= 0:
        return None
    rows = db.rows(q["record_body"], (session_id, end - 1))
    return bytes(rows[0][0]) if rows else None


def pieces(db: Database, q: Queries, session_id: str, seq: int) -> Callable[[], bytes]:
    """What reads the pieces of the snapshot of `seq` when called (b"" when it has none)."""

    def read() -> bytes:
        try:
            rows = db.rows(q["pieces"], (session_id, seq))
        except psycopg.Error as exc:  # db.rows retries a dropped connection, not the rest
            raise QueryFailed(db.where, cause_of(exc)) from exc
        return b"".join(bytes(row[0]) for row in rows)

    return read


def save(
    conn: psycopg.Connection[tuple[Any, ...]],
    q: Queries,
    session_id: str,
    mark: SnapshotMark,
    body: bytes,
    *,
    epoch: int,
    piece: SnapshotPiece | None = None,
) -> bool:
    """Write the snapshot row of `mark` at lease `epoch`, and its piece, in one transaction;
    False when the fence let nothing through (the lease is another epoch's, or the mark is past
    the stored records). A piece that does not continue the kept ones raises `PieceRefused`."""
    params = {
        "id": session_id,
        "epoch": epoch,
        "seq": mark.seq,
        "digest": mark.token["digest"],
        "body": body,
        "saved": int(time.time() * 1000),
    }
    with conn.transaction():
        conn.execute("SET LOCAL synchronous_commit = off")
        kept: int | None = None
        if piece is not None and piece.start != 0:
            row = conn.execute(q["snapshot_seq"], (session_id,)).fetchone()
            kept = int(row[0]) if row else None
        if conn.execute(q["snapshot_save"], params).rowcount != 1:
            return False
        if piece is not None and piece.start not in (0, kept):
            raise PieceRefused(session_id, piece.start, kept)  # rolls the row back
        conn.execute(q["pieces_drop"], (session_id, piece.start if piece is not None else 0))
        if piece is not None:
            conn.execute(q["piece_add"], (session_id, piece.start, piece.data))
        return True
