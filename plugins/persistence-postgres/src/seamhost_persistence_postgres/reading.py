"""Reading stored sessions: the header row, and the records in pages of one index range.

Each page is ``seq >= N AND seq < end`` on the ``(session_id, seq)`` key, so reading the records
after seq N costs what is read, not the session's length. Every row is checked as it is read:
its seq must be the next one, its CRC-32 must match its bytes, and the bytes must be an envelope
of the same seq whose type the reader knows (or that is marked ignorable); anything else is
:class:`~.errors.SessionCorrupted`, never skipped.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import orjson

from seamhost import FORMAT_VERSION, MalformedRecord, SessionHeader, parse_envelope
from seamhost.store import SessionCorrupted, SessionNotFound, UnknownRecordType, UnsupportedFormat

if TYPE_CHECKING:
    from seamhost import Record
    from seamhost_persistence_postgres.database import Database
    from seamhost_persistence_postgres.queries import Queries

PAGE = 2000


def parse_header(session_id: str, raw: bytes) -> SessionHeader:
    data = orjson.loads(raw)
    found = data.get("format") if isinstance(data, dict) else None
    if isinstance(found, int) and found > FORMAT_VERSION:
        raise UnsupportedFormat(session_id, found, FORMAT_VERSION)
    try:
        return SessionHeader.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        problem = f"the header does not read back: {exc}"
        raise SessionCorrupted(session_id, problem, seq=-1) from exc


def header_row(db: Database, q: Queries, session_id: str) -> tuple[Any, ...]:
    rows = db.rows(q["header"], (session_id,))
    if not rows:
        raise SessionNotFound(session_id, db.where)
    return rows[0]


def records(
    db: Database,
    q: Queries,
    session_id: str,
    known: frozenset[str],
    *,
    start: int,
    end: int,
) -> Iterator[Record]:
    """The records with seq in [start, end), checked, in order."""
    expected = start
    while expected < end:
        rows = db.rows(q["records_after"], (session_id, expected, end, PAGE))
        if not rows:
            break
        for seq, crc, body in rows:
            yield _checked(session_id, known, expected, (seq, crc, bytes(body)))
            expected += 1
    if expected < end:
        problem = f"records {expected} to {end - 1} are missing"
        raise SessionCorrupted(session_id, problem, seq=expected)


def _checked(
    session_id: str, known: frozenset[str], expected: int, row: tuple[int, int, bytes]
) -> Record:
    seq, crc, body = row
    if seq != expected:
        problem = f"the next stored record is seq {seq}"
        raise SessionCorrupted(session_id, problem, seq=expected)
    if zlib.crc32(body) != crc:
        problem = "the record's bytes do not match its checksum"
        raise SessionCorrupted(session_id, problem, seq=seq)
    try:
        record = parse_envelope(body)
    except MalformedRecord as exc:
        raise SessionCorrupted(session_id, f"not a record envelope: {exc}", seq=seq) from exc
    if record.seq != seq:
        raise SessionCorrupted(session_id, f"the envelope says seq {record.seq}", seq=seq)
    if record.type not in known and not record.ignorable:
        raise UnknownRecordType(session_id, seq, record.type)
    return record


class PostgresReader:
    """A lock-free view of one stored session, as far as it was stored when the view was made."""

    def __init__(self, db: Database, q: Queries, session_id: str, known: frozenset[str]) -> None:
        raw, self._end, _size, _modified, _id = header_row(db, q, session_id)
        self._header = parse_header(session_id, bytes(raw))
        self._args = (db, q, session_id, known)

    @property
    def header(self) -> SessionHeader:
        return self._header

    def records(self, after: int = -1) -> Iterator[Record]:
        """The records, or only those after seq `after` (one index range, see the module)."""
        return records(*self._args, start=after + 1, end=self._end)
