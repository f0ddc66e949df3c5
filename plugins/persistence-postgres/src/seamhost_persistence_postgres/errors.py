"""The errors of the persistence-postgres store, rooted in :class:`StorageError`.

Each names the session (or the database and schema) and says what to do. What an operator must
fix before anything can run (a DSN that is refused, a schema that is missing or too new) is a
:class:`~seamhost.errors.ConfigError` (exit 2); what fails while running is exit 1.
"""

from __future__ import annotations

from seamhost.errors import (
    ConfigError,
    LeaseLost,
    SeamhostError,
    SessionDamaged,
    SessionHeld,
    SessionMissing,
)


class StorageError(SeamhostError):
    """Base of every error the persistence-postgres store raises."""


class StoreUnusable(StorageError, ConfigError):
    """The database cannot be used as configured: refused credentials, a missing or newer schema."""

    def __str__(self) -> str:
        return f"persistence-postgres {self.key} ({self.file}): {self.problem}"


class DatabaseUnreachable(StorageError, ConnectionError):
    """No PostgreSQL server answered at the configured address."""

    where: str
    cause: str

    def __str__(self) -> str:
        return (
            f"persistence-postgres: cannot reach the database at {self.where} ({self.cause}); "
            "start the server or fix the dsn (host, port) in the profile"
        )


class QueryFailed(StorageError, ConnectionError):
    """A statement failed twice on a broken connection (the server restarted, or dropped it)."""

    where: str
    cause: str

    def __str__(self) -> str:
        return f"persistence-postgres: the database at {self.where} failed ({self.cause}); retry"


def cause_of(exc: BaseException) -> str:
    """What a failed statement's error says, for `QueryFailed`: its first line (its type's name
    when it says nothing)."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class SessionNotFound(StorageError, SessionMissing):
    """No session has this id in the store's schema."""

    where: str

    def __str__(self) -> str:
        return f"no session {self.session_id!r} in {self.where}; `seamhost session ls` lists them"


class SessionExists(StorageError, FileExistsError):
    """A session with this id is already stored, so it cannot be created again."""

    session_id: str

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r} already exists; open it to continue it, "
            "or create a session with another id"
        )


class SessionLeased(StorageError, SessionHeld):
    """Another writer holds the session's lease, which has not expired yet."""

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r} is held by writer {self.owner} (its lease runs for "
            f"{self.seconds_left:.1f} s more); close that writer, or wait for the lease to lapse"
        )


class FencedOut(StorageError, LeaseLost):
    """A writer's lease epoch was taken over: its records are refused, for good."""

    epoch: int
    current: int
    owner: str | None

    def __str__(self) -> str:
        holder = f" by {self.owner}" if self.owner else ""
        return (
            f"LEASE_LOST: session {self.session_id!r} was taken over{holder} (epoch "
            f"{self.current}, this writer held {self.epoch}); this writer stopped and wrote "
            "nothing more: the new owner repairs and continues the session"
        )


class SessionCorrupted(StorageError, SessionDamaged):
    """A stored record does not read back as written (checksum, sequence, envelope)."""

    seq: int
    problem: str

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r} is corrupted at seq {self.seq}: {self.problem}; the "
            "records before it are intact; restore the rows from a backup"
        )


class UnsupportedFormat(StorageError, ValueError):
    """A session was written in a log format newer than this seamhost reads."""

    session_id: str
    found: int
    supported: int

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r} uses format {self.found}, newer than format "
            f"{self.supported} which this seamhost reads; upgrade seamhost to read it"
        )


class UnknownRecordType(StorageError, ValueError):
    """A stored record has a type the reader does not know and that is not marked ignorable."""

    session_id: str
    seq: int
    type: str

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r}: record seq {self.seq} has the unknown type "
            f"{self.type!r} and is not marked ignorable; install the plugin that defines it "
            "or upgrade seamhost"
        )


class BatchRejected(StorageError, ValueError):
    """Records were handed over out of sequence: their seq is not the next one."""

    session_id: str
    expected: int
    got: int

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r}: a record with seq {self.got} was handed over where "
            f"seq {self.expected} comes next; reopen the session to continue it"
        )


class WriteFailed(StorageError, OSError):
    """A batch could not be committed; it stays pending and the next flush retries it."""

    session_id: str
    cause: str
    pending: int

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r}: the commit failed ({self.cause}); {self.pending} "
            "record(s) stay pending and the next flush retries them"
        )


class WriterClosed(StorageError, RuntimeError):
    """A writer was used after `close()`."""

    session_id: str

    def __str__(self) -> str:
        return f"the writer of session {self.session_id!r} is closed; open the session again"


class ForeignSession(StorageError, TypeError):
    """``session/flush`` was asked to flush a session this store does not hold."""

    session_id: str
    writer: str

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r} is written by {self.writer}, not by "
            "persistence-postgres, so this store cannot make it durable"
        )


class PieceRefused(StorageError, ValueError):
    """A snapshot piece starts neither at 0 nor where the kept pieces end: nothing was saved."""

    session_id: str
    start: int
    kept: int | None

    def __str__(self) -> str:
        where = f"seq {self.kept}" if self.kept is not None else "nothing (no pieces are kept)"
        return (
            f"session {self.session_id!r}: a snapshot piece starting at seq {self.start} does "
            f"not continue the pieces kept, which end at {where}; start the pieces over at 0"
        )
