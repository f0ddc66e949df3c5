"""The storage core's errors say what each store said before they were shared.

A store of files (persistence-jsonl) names the file and the byte; a store of rows
(persistence-postgres) names the seq or the database. One class renders both, word for word what
each store's own class rendered, so that the command line prints the same lines whatever store
it reads.
"""

from __future__ import annotations

import pytest

from seamhost.errors import SeamhostError, SessionDamaged, SessionMissing
from seamhost.store import (
    BatchRejected,
    ForeignSession,
    SessionCorrupted,
    SessionExists,
    SessionNotFound,
    StorageError,
    UnknownRecordType,
    UnsupportedFormat,
    WriteFailed,
    WriterClosed,
)

AGAIN = "open it to continue it, or create a session with another id"
UNKNOWN = "and is not marked ignorable; install the plugin that defines it or upgrade seamhost"
PENDING = "3 record(s) stay pending and the next flush retries them"

CASES = {
    "not-found-under-a-root": (
        SessionNotFound("s", "/r", root=True),
        "no session 's' under /r; `seamhost session ls --root /r` lists the sessions stored there",
    ),
    "not-found-in-a-database": (
        SessionNotFound("s", "db schema=x"),
        "no session 's' in db schema=x; `seamhost session ls` lists them",
    ),
    "exists-as-a-file": (SessionExists("s", "/p"), f"session 's' already exists (/p); {AGAIN}"),
    "exists-as-rows": (SessionExists("s"), f"session 's' already exists; {AGAIN}"),
    "corrupted-file": (
        SessionCorrupted("s", "bad", "/p", 7),
        "session 's' is corrupted at byte 7 of /p: bad; the records before that byte are intact; "
        "restore the file from a backup or move it aside (it is never repaired by truncation)",
    ),
    "corrupted-rows": (
        SessionCorrupted("s", "bad", seq=3),
        "session 's' is corrupted at seq 3: bad; the records before it are intact; restore the "
        "rows from a backup",
    ),
    "newer-format-file": (
        UnsupportedFormat("s", 3, 2, "/p"),
        "session 's' (/p) uses format 3, newer than format 2 which this seamhost reads; "
        "upgrade seamhost to read it",
    ),
    "newer-format-rows": (
        UnsupportedFormat("s", 3, 2),
        "session 's' uses format 3, newer than format 2 which this seamhost reads; "
        "upgrade seamhost to read it",
    ),
    "unknown-type-file": (
        UnknownRecordType("s", 4, "x/y", "/p", 9),
        f"session 's': record seq 4 (frame at byte 9 of /p) has the unknown type 'x/y' {UNKNOWN}",
    ),
    "unknown-type-rows": (
        UnknownRecordType("s", 4, "x/y"),
        f"session 's': record seq 4 has the unknown type 'x/y' {UNKNOWN}",
    ),
    "rejected-why": (
        BatchRejected("s", 2, 5, "records were lost or submitted twice upstream"),
        "session 's': a record with seq 5 was handed over where seq 2 comes next; records were "
        "lost or submitted twice upstream, reopen the session to continue it",
    ),
    "rejected": (
        BatchRejected("s", 2, 5),
        "session 's': a record with seq 5 was handed over where seq 2 comes next; reopen the "
        "session to continue it",
    ),
    "write-of-a-file": (
        WriteFailed("s", "fsync", "EIO", 3, "/p"),
        f"session 's': fsync of /p failed (EIO); {PENDING}; free disk space or fix the "
        "permissions of the store root",
    ),
    "commit": (
        WriteFailed("s", "the commit", "gone", 3),
        f"session 's': the commit failed (gone); {PENDING}",
    ),
    "closed": (WriterClosed("s"), "the writer of session 's' is closed; open the session again"),
    "closed-why": (
        WriterClosed("s", "was closed"),
        "the writer of session 's' was closed; open the session again",
    ),
    "foreign-advice": (
        ForeignSession("s", "W", "persistence-jsonl", "open the session on the bundle's own store"),
        "session 's' is written by W, not by persistence-jsonl, so this store cannot make it "
        "durable; open the session on the bundle's own store",
    ),
    "foreign": (
        ForeignSession("s", "W", "persistence-postgres"),
        "session 's' is written by W, not by persistence-postgres, so this store cannot make it "
        "durable",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_store_keeps_its_words(case: str) -> None:
    error, message = CASES[case]
    assert str(error) == message
    assert isinstance(error, StorageError)
    assert isinstance(error, SeamhostError)


def test_the_cli_exit_codes_follow_the_kernel_bases() -> None:
    """Not found exits 2 and damage 3 through these bases, whatever store raised them."""
    assert issubclass(SessionNotFound, SessionMissing)
    assert issubclass(SessionCorrupted, SessionDamaged)
