"""The errors only persistence-postgres raises, under :class:`seamhost.store.StorageError`.

Those every store raises alike (a missing or corrupted session, a rejected batch, a failed
commit...) are :mod:`seamhost.store`'s; these are about what only a shared database has: its
address and schema, leases and fencing, snapshot pieces kept as rows. Each names the session (or
the database and schema) and says what to do. What an operator must fix before anything can run
(a DSN that is refused, a schema that is missing or too new) is a
:class:`~seamhost.errors.ConfigError` (exit 2); what fails while running is exit 1.
"""

from __future__ import annotations

from seamhost.errors import ConfigError, LeaseLost, SessionHeld
from seamhost.store import StorageError


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
