"""What a `session/store` provider supplies: the storage protocols and the session header.

A store creates and opens sessions, lists them, reads them and deletes them. A writer is the one
handle that may add records to a session: ``submit`` hands records over without waiting
(write-behind), and ``flush`` returns once every submitted record has crossed the storage
boundary or raises, leaving what failed pending for the next flush. ``delete`` takes the session
the way a writer would, so a live writer refuses it, and nothing is removed unless everything is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import attrs

from seamhost.jsonvalue import FrozenDict, freeze, thaw
from seamhost.session.record import Record

if TYPE_CHECKING:
    from pathlib import Path

FORMAT_VERSION = 1


@attrs.frozen
class SessionHeader:
    """What a session is: its id, when and where it was created, and which bundle writes it.

    `durability` says whether checkpoint barriers were on (``{"barriers": true}``); repair treats
    every unfinished call of a session written without them as outcome-unknown.
    """

    session_id: str  # the session's id, unique in its store
    created: int  # when it was created (Unix ms)
    cwd: str  # the workspace it was created for
    bundle: FrozenDict = attrs.field(converter=freeze)  # the writing bundle's snapshot
    durability: FrozenDict = attrs.field(converter=freeze)  # barriers on or off, and the store
    format: int = FORMAT_VERSION  # the log format version it was written with

    @property
    def barriers(self) -> bool:
        return bool(self.durability.get("barriers", False))

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "session_id": self.session_id,
            "created": self.created,
            "cwd": self.cwd,
            "bundle": thaw(self.bundle),
            "durability": thaw(self.durability),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SessionHeader:
        return cls(
            session_id=data["session_id"],
            created=data["created"],
            cwd=data["cwd"],
            bundle=data["bundle"],
            durability=data["durability"],
            format=data["format"],
        )


@attrs.frozen
class SessionStat:
    """A listing entry: the header and what the store knows cheaply about the session.

    `modified` is when the session was last written (Unix ms), or None when the store cannot
    tell without reading the whole session.
    """

    header: SessionHeader  # the session's header record
    location: str  # where the store keeps it (a path, a table row)
    size: int  # bytes stored
    modified: int | None = None  # when it was last written (Unix ms), when the store knows


@attrs.frozen
class SessionCheck:
    """What an integrity check of one stored session found.

    `records` counts the records that read back intact (up to the damage, when there is any).
    A torn tail (`torn_bytes` past the last complete write, `torn_records` of them recovered) is
    the normal trace of a crash, not damage; `problem` (with its byte `offset`, when the store
    knows it) says what is damaged, and is None for an intact session.
    """

    session_id: str  # the session checked
    records: int  # records that read back intact
    size: int  # bytes stored
    location: str  # where the store keeps it
    torn_records: int = 0  # records recovered from a torn tail
    torn_bytes: int = 0  # bytes past the last complete write
    problem: str | None = None  # what is damaged; None for an intact session
    offset: int | None = None  # the byte offset of the damage, when known

    @property
    def intact(self) -> bool:
        return self.problem is None


@runtime_checkable
class SessionWriter(Protocol):
    """The exclusive write handle of one session.

    `torn_records` is how many records the writer recovered from a torn tail when it opened
    the session (0 for a new session, or when the tail was whole); repair reports it.
    """

    torn_records: int

    @property
    def header(self) -> SessionHeader: ...

    def existing(self) -> list[Record]:
        """The records already stored when the writer was opened (empty for a new session)."""
        ...

    def submit(self, record: Record) -> None:
        """Hand a committed record over for writing; never blocks on storage."""
        ...

    async def flush(self) -> None:
        """Return once every submitted record is durable; raise on failure."""
        ...

    def close(self) -> None:
        """Release the session (its lock); records not flushed may be lost."""
        ...


@runtime_checkable
class SessionReader(Protocol):
    """A lock-free, streaming view of a stored session."""

    @property
    def header(self) -> SessionHeader: ...

    def records(self) -> Iterator[Record]: ...


@runtime_checkable
class SessionStore(Protocol):
    """A storage backend, as returned by the `session/store` provider."""

    name: str
    durable: bool

    @property
    def location(self) -> Path | None:
        """The local directory its sessions live in (where `seamhost doctor` checks writes and
        fsync), or None when they live elsewhere: in memory, in a remote service."""
        ...

    def create(self, header: SessionHeader) -> SessionWriter: ...

    def open(self, session_id: str) -> SessionWriter: ...

    def read(self, session_id: str) -> SessionReader: ...

    def ids(self) -> Iterator[str]:
        """The id of every stored session, including those that cannot be read."""
        ...

    def list(self) -> Iterator[SessionStat]: ...

    def stat(self, session_id: str) -> SessionStat: ...

    def verify(self, session_id: str) -> SessionCheck:
        """Read the whole session; damage is reported in the check, not raised."""
        ...

    def delete(self, session_id: str, *, check: Callable[[], None] | None = None) -> None:
        """Remove a stored session and everything stored for it, for good.

        The store first takes the session as a writer would: a writer holding it, in this
        process or another, refuses the deletion with the store's "already open" error, and so
        does a missing session with its "no such session" error. `check`, when given, is then
        called with the session held (it may read the session); if it raises, the exception
        propagates and nothing is removed. A session being deleted is never half-visible: it is
        listed and readable until it is gone.
        """
        ...
