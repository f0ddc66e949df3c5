"""The errors every session store raises alike, rooted in :class:`StorageError`.

A store keeps its sessions either as files (persistence-jsonl: a log per session under a root
directory) or as rows (persistence-postgres). The errors below mean the same thing in both; each
takes the *place* of the problem as optional fields (`path` and a byte `offset` for a file, a
`seq` for rows) and names what it knows, so one class renders each store's message. What only
one store can meet (its locks, leases, keys, encodings) stays in that store's own ``errors``
module, under the same root.
"""

from __future__ import annotations

from seamhost.errors import SeamhostError, SessionDamaged, SessionMissing


class StorageError(SeamhostError):
    """Base of every error a session store raises."""


class SessionNotFound(StorageError, SessionMissing):
    """No stored session has this id where the store keeps its sessions."""

    session_id: str
    where: str  # the store root (a directory) or the database and schema
    root: bool = False  # `where` is a directory, which `seamhost session ls --root` lists

    def __str__(self) -> str:
        if self.root:
            return (
                f"no session {self.session_id!r} under {self.where}; "
                f"`seamhost session ls --root {self.where}` lists the sessions stored there"
            )
        return f"no session {self.session_id!r} in {self.where}; `seamhost session ls` lists them"


class SessionExists(StorageError, FileExistsError):
    """A session with this id is already stored, so it cannot be created again."""

    session_id: str
    path: str | None = None  # the stored session's file, for a store of files

    def __str__(self) -> str:
        where = f" ({self.path})" if self.path is not None else ""
        return (
            f"session {self.session_id!r} already exists{where}; "
            "open it to continue it, or create a session with another id"
        )


class SessionCorrupted(StorageError, SessionDamaged):
    """A complete part of a stored session is damaged: it is refused, never repaired."""

    session_id: str
    problem: str
    path: str | None = None  # the damaged file, for a store of files
    offset: int | None = None  # the byte of `path` the damage starts at
    seq: int | None = None  # the first damaged record, for a store of rows

    def __str__(self) -> str:
        if self.path is not None:
            return (
                f"session {self.session_id!r} is corrupted at byte {self.offset} of {self.path}: "
                f"{self.problem}; the records before that byte are intact; restore the file from "
                "a backup or move it aside (it is never repaired by truncation)"
            )
        return (
            f"session {self.session_id!r} is corrupted at seq {self.seq}: {self.problem}; the "
            "records before it are intact; restore the rows from a backup"
        )


class UnsupportedFormat(StorageError, ValueError):
    """A session was written in a format newer than this seamhost reads."""

    session_id: str
    found: int
    supported: int
    path: str | None = None  # the session's file or directory, for a store of files

    def __str__(self) -> str:
        where = f" ({self.path})" if self.path is not None else ""
        return (
            f"session {self.session_id!r}{where} uses format {self.found}, newer than "
            f"format {self.supported} which this seamhost reads; upgrade seamhost to read it"
        )


class UnknownRecordType(StorageError, ValueError):
    """A stored record has a type the reader does not know and that is not marked ignorable."""

    session_id: str
    seq: int
    type: str
    path: str | None = None  # the session's file, for a store of files
    offset: int | None = None  # the byte of `path` where the record's frame starts

    def __str__(self) -> str:
        where = f" (frame at byte {self.offset} of {self.path})" if self.path is not None else ""
        return (
            f"session {self.session_id!r}: record seq {self.seq}{where} has the unknown type "
            f"{self.type!r} and is not marked ignorable; install the plugin that defines it "
            "or upgrade seamhost"
        )


class BatchRejected(StorageError, ValueError):
    """Records were handed over out of sequence: their first seq is not the next one stored."""

    session_id: str
    expected: int
    got: int
    why: str = ""  # what the store knows of how that happened, when it knows

    def __str__(self) -> str:
        why = f"{self.why}, " if self.why else ""
        return (
            f"session {self.session_id!r}: a record with seq {self.got} was handed over where "
            f"seq {self.expected} comes next; {why}reopen the session to continue it"
        )


class WriteFailed(StorageError, OSError):
    """Writing a batch failed; the store is as before it and the batch stays pending."""

    session_id: str
    operation: str  # what failed: "the commit", or "write" (of `path`), "fsync"...
    cause: str
    pending: int
    path: str | None = None  # the file `operation` wrote, for a store of files

    def __str__(self) -> str:
        what = f"{self.operation} of {self.path}" if self.path is not None else self.operation
        advice = (
            "; free disk space or fix the permissions of the store root"
            if self.path is not None
            else ""
        )
        return (
            f"session {self.session_id!r}: {what} failed ({self.cause}); {self.pending} "
            f"record(s) stay pending and the next flush retries them{advice}"
        )


class WriterClosed(StorageError, RuntimeError):
    """A writer was used after `close()`, or in a process it does not belong to."""

    session_id: str
    reason: str = "is closed"

    def __str__(self) -> str:
        return f"the writer of session {self.session_id!r} {self.reason}; open the session again"


class ForeignSession(StorageError, TypeError):
    """``session/flush`` was asked to flush a session another store's writer holds."""

    session_id: str
    writer: str  # the class of the writer that holds it
    store: str  # the store asked to flush it
    advice: str = ""  # what to do instead, when the store can say

    def __str__(self) -> str:
        advice = f"; {self.advice}" if self.advice else ""
        return (
            f"session {self.session_id!r} is written by {self.writer}, not by {self.store}, "
            f"so this store cannot make it durable{advice}"
        )


__all__ = [
    "BatchRejected",
    "ForeignSession",
    "SessionCorrupted",
    "SessionExists",
    "SessionNotFound",
    "StorageError",
    "UnknownRecordType",
    "UnsupportedFormat",
    "WriteFailed",
    "WriterClosed",
]
