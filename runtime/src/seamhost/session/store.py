"""What a `session/store` provider supplies: the storage protocols and the session header.

A store creates and opens sessions, lists them, reads them and deletes them. A writer is the one
handle that may add records to a session: ``submit`` hands records over without waiting
(write-behind), and ``flush`` returns once every submitted record has crossed the storage
boundary or raises, leaving what failed pending for the next flush. ``delete`` takes the session
the way a writer would, so a live writer refuses it, and nothing is removed unless everything is.

A writer may also keep **resume snapshots** (:class:`SnapshotWriter`, optional; docs/design.md,
"Resume snapshots"): the kernel hands it, from time to time, a snapshot of the state derived from
the records before a durable point, and on the next open the store gives it back with the
records after that point, so that opening does not read the whole log. A store without them
works unchanged: every open is a full replay.

What the first-party stores share beyond these protocols (one error tree, the writer's sequence
and closed checks, their settings) is the storage core, :mod:`seamhost.store`.
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
    knows it) says what is damaged, and is None for an intact session. `binding`, when the
    store binds its logs to their session, says how this one is (e.g. "bound", "keyed",
    "unbound (...)"); None from a store that does not say.
    """

    session_id: str  # the session checked
    records: int  # records that read back intact
    size: int  # bytes stored
    location: str  # where the store keeps it
    torn_records: int = 0  # records recovered from a torn tail
    torn_bytes: int = 0  # bytes past the last complete write
    problem: str | None = None  # what is damaged; None for an intact session
    offset: int | None = None  # the byte offset of the damage, when known
    binding: str | None = None  # how the log is bound to the session, when the store says

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
        """The records already stored when the writer was opened (empty for a new session).

        A `SnapshotWriter` opened from a snapshot may read them only when this is first called.
        """
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


@attrs.frozen
class SnapshotMark:
    """A durable point of one session's log that a resume snapshot may cover.

    Every record with a seq below `seq` is durable. `token` is the store's own (JSON) proof of
    where that point is and what the log holds just before it, enough for the store to check,
    later and in time that does not grow with the log, that the log still holds exactly those
    records there (persistence-jsonl: the byte offset and a digest of the bytes before it).
    """

    seq: int  # the records [0, seq) are durable and covered
    token: FrozenDict = attrs.field(converter=freeze)  # the store's proof of the point


@attrs.frozen
class SnapshotPiece:
    """What a snapshot adds to the part of its state that only grows: the conversation.

    A snapshot's **pieces** are bytes the kernel hands over one piece per snapshot, kept in
    order, so that keeping them costs work linear in the session (a copy of the whole in every
    snapshot would be quadratic). `start` is the seq the piece starts at: the pieces kept for the
    records [0, start) come first, then `data`. It is 0 (the pieces start over) or the seq of the
    last snapshot saved with pieces, or of the one the writer was opened from.
    """

    start: int  # the records [0, start) are covered by the pieces kept before this one
    data: bytes  # the piece, as the kernel made it (the store never looks inside)


@attrs.frozen
class StoredSnapshot:
    """A resume snapshot a store found valid when it opened a session, and the records after it.

    `body` is exactly what the kernel saved (the store never looks inside); `tail` holds every
    stored record from `seq` on, in order, torn-tail records recovered included. `pieces`, when
    the snapshot was saved with a piece, reads the snapshot's pieces: every piece it and its
    predecessors were saved with, in order, as one byte string (read only when called; it may
    raise `OSError` or a `SeamhostError`, or return damaged bytes: the kernel checks them).
    """

    seq: int  # the records the snapshot covers: [0, seq)
    body: bytes  # the kernel's snapshot document, as saved
    tail: tuple[Record, ...]  # the stored records [seq, ...)
    pieces: Callable[[], bytes] | None = None  # the snapshot's pieces, read on call


@runtime_checkable
class SnapshotWriter(Protocol):
    """What a `SessionWriter` implements to keep resume snapshots (optional; docs/design.md).

    A writer that does not implement these three methods is opened by a full replay, always.
    One that does is held to this contract (:mod:`seamhost.testing.persistence_snapshots`):

    * `snapshot_interval` is how many records should become durable between two snapshots
      (0: keep none); the kernel saves one after the first flush past it.

    * `snapshot_mark` names the latest durable point (None while nothing is durable, or when
      the store cannot name one right now, e.g. a write is in flight). It never blocks on
      storage.
    * `save_snapshot(mark, body, piece)` keeps `body` as the snapshot covering `mark`, replacing
      the one kept before; it is called on the writer's owner thread after a flush, must be
      cheap (no fsync is needed: a lost or torn snapshot only costs a full replay), and may raise
      a `SeamhostError` or `OSError`, which the kernel ignores (the log is untouched). With a
      `piece` (:class:`SnapshotPiece`), the snapshot's pieces are those kept for the records
      before ``piece.start`` followed by ``piece.data``; writing them costs the piece's size,
      not the pieces' (a store appends it, dropping any piece kept from ``piece.start`` on). A
      ``piece.start`` other than 0 or the seq of the kept snapshot's pieces may be refused
      (raise). Without one, the new snapshot has no pieces.
    * When the session was opened (`SessionStore.open`), `opened_from` returns the newest kept
      snapshot that still matches the log (its mark's token checks out against the stored log,
      without reading the log before that point) with every record after it; else None. A
      missing, damaged, stale or foreign snapshot is None, never an error; damage *after* the
      mark is the log's damage and raises exactly as a full read would.
    * With a snapshot returned, `existing()` may read the whole log lazily, on its first call
      (the kernel calls it only when something needs the records before the snapshot); it
      returns every record stored when the writer was opened, and raises the store's
      corruption error (a `SessionDamaged`) if that read finds damage.
    * Deleting a session deletes its snapshots; a snapshot never changes what a read returns.
    """

    snapshot_interval: int

    def snapshot_mark(self) -> SnapshotMark | None: ...

    def save_snapshot(
        self, mark: SnapshotMark, body: bytes, piece: SnapshotPiece | None = None
    ) -> None: ...

    def opened_from(self) -> StoredSnapshot | None: ...


def snapshot_writer(writer: object) -> SnapshotWriter | None:
    """`writer` as a :class:`SnapshotWriter` when it keeps resume snapshots by this protocol,
    else None: the kernel then opens its sessions by a full replay and saves no snapshot.

    A writer whose ``save_snapshot`` cannot take a piece (the protocol before pieces) is None,
    with a warning naming its class: saving to it would raise ``TypeError`` from every flush
    after the first snapshot fell due. (The contract, ``seamhost.testing.persistence_snapshots``,
    fails on such a writer.)"""
    if not isinstance(writer, SnapshotWriter):
        return None
    cls = type(writer)
    takes = _TAKES_PIECE.get(cls)
    if takes is None:
        takes = _TAKES_PIECE[cls] = _takes_piece(writer)
    return writer if takes else None


_TAKES_PIECE: dict[type, bool] = {}  # by writer class: whether `save_snapshot` takes a piece


def _takes_piece(writer: SnapshotWriter) -> bool:
    import inspect  # here: only once per writer class

    try:
        inspect.signature(writer.save_snapshot).bind(None, None, None)  # mark, body, piece
    except TypeError:
        import logging

        logging.getLogger("seamhost.session").warning(
            "%s.save_snapshot does not take (mark, body, piece): its sessions keep no resume "
            "snapshots and open by a full replay (docs/design.md, 'Resume snapshots')",
            type(writer).__qualname__,
        )
        return False
    except ValueError:  # no signature to read (a built-in): taken at its word
        pass
    return True


@runtime_checkable
class SnapshotStore(Protocol):
    """A store whose writers keep resume snapshots, as `seamhost session verify` checks them."""

    def kept_snapshot(self, session_id: str) -> StoredSnapshot | None:
        """The snapshot `open` would offer now (its `tail` left empty), read without the lock;
        None when none is kept or the kept one does not match the log."""
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
