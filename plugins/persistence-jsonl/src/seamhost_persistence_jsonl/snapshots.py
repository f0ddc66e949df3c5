"""Resume snapshots of persistence-jsonl: one side file per session, never the truth.

The kernel's snapshot document (``SnapshotWriter``, docs/design.md "Resume snapshots") is kept
next to the log as ``session.v1.resume``::

    <SHA-256, hex, of the next line>
    {"format": 2, "seq": n, "offset": o, "check_from": c, "check": "<SHA-256 hex>", "pieces": e,
     "chain": "<hex>"}
    <the kernel's document, as given>

The kernel's document carries its own digest of all its bytes (``seamhost.session.snapshot``),
which the kernel checks whenever it opens one, so this file's digest covers its own line only: a
damaged document is refused there, and hashing it here as well cost every snapshot of a long
open turn its window a second time (format 1 did; a file of format 1 is ignored, as any of
another format, and replaced by the next snapshot).

`seq` and `offset` are the durable point it covers: the records [0, n) end exactly at byte `o`
of the log, a frame boundary (framed logs) or a line boundary (plain logs). `check` is the
SHA-256 of the log's bytes [c, o), at most CHECK_BYTES of them, so that opening checks, with one
read of a few kilobytes, that the log still holds at that place what it held when the snapshot
was taken; the records from `o` on are then read as usual (a frame there must start at seq `n`,
and, in a layout-2 log, follow `chain`, the chain digest of the frame ending at `o`: empty for an
unbound log, and a snapshot of a bound log without it is ignored).

The snapshot's pieces (``SnapshotPiece``: what the conversation gained since the last snapshot)
are kept in ``session.v1.pieces``, one after the other; `pieces` is how many of its bytes are
this snapshot's (null: none). A piece that continues the kept snapshot's pieces is written at
their end, one that starts over at byte 0, and the file is cut after it: saving costs the
piece, not the file. The kernel checks the bytes it gets back against its document (a chain of
digests), so a lost, torn or stale pieces file only means the conversation is derived from the
log.

With a MAC key (:mod:`.binding`), the first line also carries, after a space, the hex of a MAC
of the meta line and the document's first line (which holds the digest covering the whole
document, its window and pieces included): a store with the key ignores a snapshot without a
valid one, since opening trusts a snapshot's state (an open turn, its approvals) without reading
the log it stands for.

A missing file, a digest, MAC or check that does not match, an `offset` past the end of the log:
the snapshot is ignored and the session is replayed in full. The file is written to a temp file
(``.session.v1.resume.<token>.tmp``) and renamed over the old one, without fsync: losing it, or
finding it torn after a crash, costs a full replay and nothing else. Deleting it (or every
snapshot of a root) changes nothing but the time opening takes.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
from typing import TYPE_CHECKING, Any

import attrs
import orjson

from seamhost_persistence_jsonl.durable import write_at
from seamhost_persistence_jsonl.format import PIECES_NAME, SNAPSHOT_NAME

if TYPE_CHECKING:
    from seamhost import SnapshotPiece, StoredSnapshot
    from seamhost_persistence_jsonl.binding import MacKey
    from seamhost_persistence_jsonl.layout import SessionPaths

SNAPSHOT_TEMP_PREFIX = f".{SNAPSHOT_NAME}."
SNAPSHOT_FORMAT = 2
CHECK_BYTES = 4096  # the log bytes before the covered point that a snapshot's check hashes


@attrs.frozen
class Point:
    """A durable point of a log: `seq` records ending at byte `offset`, after `chain`."""

    seq: int
    offset: int
    chain: bytes = b""


def save(  # noqa: PLR0917 (the writer passes its point, body and pieces in one call)
    paths: SessionPaths,
    fd: int,
    point: Point,
    body: bytes,
    piece: SnapshotPiece | None = None,
    kept: tuple[int, int] | None = None,
    key: MacKey | None = None,
) -> tuple[int, int] | None:
    """Keep `body` as the snapshot covering records [0, `point.seq`), which end at byte
    `point.offset`, with `piece` after the pieces `kept` names: (seq, bytes) of the kept
    snapshot's pieces. Returns what it now keeps: (seq, bytes of its pieces), or None."""
    seq, offset = point.seq, point.offset
    pieces = None if piece is None else _save_piece(paths, piece, kept)
    check_from = max(0, offset - CHECK_BYTES)
    covered = os.pread(fd, offset - check_from, check_from)
    if len(covered) != offset - check_from:
        raise OSError(f"the log is shorter than the {offset} bytes a snapshot would cover")
    meta = {
        "format": SNAPSHOT_FORMAT,
        "seq": seq,
        "offset": offset,
        "check_from": check_from,
        "check": hashlib.sha256(covered).hexdigest(),
        "pieces": pieces,
        "chain": point.chain.hex(),
    }
    line = orjson.dumps(meta) + b"\n"
    digest = hashlib.sha256(line).hexdigest().encode()  # the body has its own
    if key is not None:
        digest += b" " + key.snapshot_tag(line + _first_line(body)).hex().encode()
    head = digest + b"\n" + line
    temp = paths.directory / f"{SNAPSHOT_TEMP_PREFIX}{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        out = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            write_at(out, (head, body), 0)  # one call, the body not joined to the head
        finally:
            os.close(out)
        os.replace(temp, paths.directory / SNAPSHOT_NAME)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return (seq, pieces) if pieces is not None else None


def _save_piece(paths: SessionPaths, piece: SnapshotPiece, kept: tuple[int, int] | None) -> int:
    """Write `piece` where it belongs in the pieces file, cut the file after it; its new size."""
    if piece.start == 0:
        at = 0
    elif kept is not None and piece.start == kept[0]:
        at = kept[1]
    else:
        raise OSError(
            errno.EINVAL,
            f"a snapshot piece must start at seq 0 or {kept[0] if kept else 0} (where the kept "
            f"snapshot's pieces end), not {piece.start}",
        )
    out = os.open(paths.directory / PIECES_NAME, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        write_at(out, piece.data, at)
        os.ftruncate(out, at + len(piece.data))
    finally:
        os.close(out)
    return at + len(piece.data)


class KeptPieces:
    """A kept snapshot's pieces, the first `size` bytes of the pieces file: read on call (fewer
    bytes when the file is shorter; the kernel checks them). ``StoredSnapshot.pieces``."""

    __slots__ = ("_paths", "seq", "size")

    def __init__(self, paths: SessionPaths, seq: int, size: int) -> None:
        self._paths, self.seq, self.size = paths, seq, size

    def __call__(self) -> bytes:
        with open(self._paths.directory / PIECES_NAME, "rb") as file:
            return file.read(self.size)


def kept_pieces(stored: StoredSnapshot | None) -> tuple[int, int] | None:
    """(seq, bytes) of the pieces of the snapshot a writer was opened from, or None."""
    pieces = stored.pieces if stored is not None else None
    return (pieces.seq, pieces.size) if isinstance(pieces, KeptPieces) else None


def find(
    paths: SessionPaths, fd: int, size: int, key: MacKey | None = None
) -> tuple[Point, bytes, int | None] | None:
    """The kept snapshot's (point, body, bytes of its pieces or None) when it still matches
    the log, else None.

    `fd` reads the log, `size` is its length. Reads the snapshot file and at most CHECK_BYTES
    of the log, whatever the log's length.
    """
    try:
        with open(paths.directory / SNAPSHOT_NAME, "rb") as file:
            data = file.read()
    except OSError:
        return None
    first, _, rest = data.partition(b"\n")
    line, newline, body = rest.partition(b"\n")
    digest, _, tag = first.partition(b" ")
    if not newline or digest != hashlib.sha256(line + newline).hexdigest().encode():
        return None  # the body is the kernel's document, which checks its own digest
    if key is not None and not key.snapshot_matches(line + newline + _first_line(body), tag):
        return None  # a store with a key trusts no state its writers could have made
    try:
        meta: Any = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if type(meta) is not dict or meta.get("format") != SNAPSHOT_FORMAT:
        return None
    fields: list[Any] = [meta.get(key) for key in ("seq", "offset", "check_from")]
    if not all(type(v) is int and v >= 0 for v in fields):
        return None
    seq, offset, check_from = (int(v) for v in fields)
    if not check_from <= offset <= size or offset - check_from > CHECK_BYTES:
        return None
    covered = os.pread(fd, offset - check_from, check_from)
    if hashlib.sha256(covered).hexdigest() != meta.get("check"):
        return None
    pieces, chain = meta.get("pieces"), meta.get("chain", "")
    if type(chain) is not str or len(chain) not in (0, 64):
        return None
    try:
        point = Point(seq, offset, bytes.fromhex(chain))
    except ValueError:
        return None
    return point, body, pieces if type(pieces) is int and pieces > 0 else None


def _first_line(body: bytes) -> bytes:
    """The kernel document's first line: its version and the digest that covers all of it."""
    return body[: body.find(b"\n") + 1]
