"""The resume snapshot document: a :class:`~seamhost.session.derived.Derived` written down.

The kernel makes the bytes and reads them back; a store only keeps them (``SnapshotWriter``).
The document is lines of JSON::

    seamhost-snapshot 3 <SHA-256, hex, of the meta line and the last records' lines>
    {"session_id": ..., "created": ..., "seq": n, "last_time": ..., "window_start": ...,
     "usage": {...}, "last": <count>, "window": <count>, "window_digest": <SHA-256, hex>}
    <count> envelope lines: the last record of each type
    <count> envelope lines: the records [window_start, n)

The window's lines have their own digest, in the meta line, so that the first line's covers
everything. (Version 2 had one digest of every byte; version 3 gave the window its own so that a
live session could keep it as a long open turn grew. A live session now snapshots a turn only
once its window has moved, `resumed.Snapshots`, so each document's window is hashed once; the
format stays, and version 3 documents written before remain valid.)

The meta line's ``"pieces"`` is null or ``[k, "<chain>"]``: the snapshot has `k` pieces (kept by
the store beside it, ``SnapshotPiece``), which together hold every record of the
:data:`~seamhost.session.derived.SHOWN` types before `n`: the conversation the model is shown,
in time linear in the session (each snapshot adds one piece: the records since the last). A
piece is a line ``piece <start> <stop> <count> <size>`` and `size` bytes, a zstd frame of a line
for each of the `count` records of those types in [start, stop): its seq, type, time,
ignorable (0 or 1) and data JSON, separated by tabs (reading one back parses no JSON; its data
is parsed when used). Uncompressed, the pieces of a session of tool calls were four times its
compressed log (34 against 8.4 MB at 100k steps); compressed, a fifth of it (1.8 MB). The
chain is ``c_k = SHA-256(c_(k-1) + piece_k)`` over the hex digests (``c_0`` empty), so that a
snapshot names all its pieces in a fixed size, and a new piece costs its own bytes.
:func:`shown_records` checks the pieces a store returns against it: pieces that do not check
out mean "derive the conversation from the log".

`decode` returns None for anything it cannot trust: another version, a digest that does not
match, another session (id or creation time), or contents that do not hang together (a window
that is not contiguous up to seq n - 1, a last record that is not the window's last of its
type, ...). None means "replay the log in full": a snapshot is never a reason to refuse a session.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import orjson

from seamhost.session.derived import BOUNDARIES, SHOWN, Derived, usage_of
from seamhost.session.record import MalformedRecord, Record, parse_envelope

if TYPE_CHECKING:
    from seamhost.session.record import Columns
    from seamhost.session.store import SessionHeader

MAGIC = b"seamhost-snapshot"
PIECE_LEVEL = 3  # zstd level of a piece's lines: the log's own
_PIECE_LINE = b"%d\t%b\t%d\t%d\t%b\n"  # seq, type, time, ignorable (0 or 1), data JSON
_SHOWN = frozenset(kind.encode() for kind in SHOWN)  # as a piece's lines spell them
VERSION = 3  # bump when Derived's contents or meaning change: older snapshots then replay
# 2: pieces (the records the conversation is derived from); 3: the window's own digest


def encode(derived: Derived, header: SessionHeader) -> bytes:
    """The snapshot document of `derived`, for the session `header` names."""
    window = window_lines(derived.window)
    window_digest = hashlib.sha256(window).hexdigest()
    meta = {
        "session_id": header.session_id,
        "created": header.created,
        "seq": derived.seq,
        "last_time": derived.last_time,
        "window_start": derived.window_start,
        "usage": derived.usage,
        "last": len(derived.last),
        "window": len(derived.window),
        "pieces": list(derived.chain) if derived.chain is not None else None,
        "window_digest": window_digest,
    }
    lasts = sorted(derived.last.values(), key=lambda r: r.seq)
    head = orjson.dumps(meta) + b"\n" + window_lines(lasts)
    first = b"%b %d %b\n" % (MAGIC, VERSION, hashlib.sha256(head).hexdigest().encode())
    return b"".join((first, head, window))


def window_lines(records: Iterable[Record]) -> bytes:
    """The envelope lines of `records`, each ended by a newline: how the document holds them."""
    return b"".join([r.envelope() + b"\n" for r in records])


def decode(body: bytes, header: SessionHeader) -> Derived | None:
    """The state `body` holds, or None when it is not a sound snapshot of this session."""
    first, _, rest = body.partition(b"\n")
    if not first.startswith(b"%b %d " % (MAGIC, VERSION)):
        return None
    lines = rest.split(b"\n")
    if lines.pop() != b"":
        return None
    try:
        meta: Any = orjson.loads(lines[0])
    except orjson.JSONDecodeError:
        return None
    if type(meta) is not dict or type(meta.get("last")) is not int or meta["last"] < 0:
        return None
    # The head: the meta line and the last records' lines; the window's lines follow it.
    head_size = sum(len(line) + 1 for line in lines[: 1 + meta["last"]])
    head, window = memoryview(rest)[:head_size], memoryview(rest)[head_size:]
    if first != b"%b %d %b" % (MAGIC, VERSION, hashlib.sha256(head).hexdigest().encode()):
        return None
    if hashlib.sha256(window).hexdigest() != meta.get("window_digest"):
        return None
    try:
        records = [parse_envelope(line) for line in lines[1:]]
    except (MalformedRecord, IndexError):
        return None
    if (meta.get("session_id"), meta.get("created")) != (header.session_id, header.created):
        return None
    return _assemble(meta, records)


def _assemble(meta: dict[str, Any], records: list[Record]) -> Derived | None:
    fields: list[Any] = [
        meta.get(key) for key in ("seq", "last_time", "window_start", "last", "window")
    ]
    usage = usage_of(meta["usage"]) if type(meta.get("usage")) is dict else None
    if usage is None or not all(type(v) is int and v >= 0 for v in fields):
        return None
    pieces: Any = meta.get("pieces", False)
    chain: tuple[int, str] | None = None
    if pieces is not None:
        if not (type(pieces) is list and len(pieces) == 2 and type(pieces[0]) is int):
            return None
        if pieces[0] < 1 or type(pieces[1]) is not str or len(pieces[1]) != 64:
            return None
        chain = (pieces[0], pieces[1])
    seq, last_time, start, *counts = (int(v) for v in fields)
    if counts[0] + counts[1] != len(records):
        return None
    lasts, window = records[: counts[0]], records[counts[0] :]
    last = {r.type: r for r in lasts}
    if len(last) != len(lasts) or any(r.seq >= seq for r in lasts):
        return None
    if [r.seq for r in window] != list(range(start, seq)):
        return None
    if window:
        if last_time != window[-1].time or (start > 0 and window[0].type not in BOUNDARIES):
            return None
        if any(r.type in BOUNDARIES for r in window[1:]):
            return None
        if any(last.get(r.type) != r for r in {r.type: r for r in window}.values()):
            return None
    elif seq != 0 or last:
        return None
    return Derived(seq, last_time, last, start, window, usage, chain)


# -- pieces ------------------------------------------------------------------------------------


def piece(records: Iterable[Record], start: int, stop: int) -> bytes:
    """The piece of the records [start, stop) (given all, in order): those of the shown types,
    a line each: seq, type, time, 1 if ignorable else 0, and the data's JSON, tab-separated (no
    JSON is parsed to read one back: a record's data is parsed only when it is used); the lines
    compressed as one zstd frame, after a header line that gives its size."""
    return pack(piece_lines(records), start, stop)


def piece_lines(records: Iterable[Record]) -> list[bytes]:
    """The piece lines of those of `records` of the shown types (bytes, which the garbage
    collector does not track: a live session keeps them until its next snapshot)."""
    return [
        _PIECE_LINE % (r.seq, r.type.encode(), r.time, r.ignorable, r.data_json)
        for r in records
        if r.type in SHOWN
    ]


def column_piece_lines(columns: Columns) -> list[bytes]:
    """:func:`piece_lines` of committed records given as columns, without making the records."""
    first, times, data_json = columns.first, columns.times, columns.data_json
    return [
        _PIECE_LINE
        % (first + i, kind.encode(), times[i], first + i in columns.ignorable, data_json(i))
        for i, kind in enumerate(columns.types)
        if kind in SHOWN
    ]


def pack(lines: list[bytes], start: int, stop: int) -> bytes:
    """The piece of [start, stop) whose lines (:func:`piece_lines`) are `lines`."""
    import zstandard  # here: a session that keeps no snapshot never loads it

    body = zstandard.ZstdCompressor(level=PIECE_LEVEL).compress(b"".join(lines))
    return b"piece %d %d %d %d\n%b" % (start, stop, len(lines), len(body), body)


def chain(previous: str, piece: bytes) -> str:
    """The chain digest after `piece`, from the one before it ("" before the first piece)."""
    digest = hashlib.sha256(previous.encode())
    digest.update(piece)
    return digest.hexdigest()


def shown_records(data: bytes, derived: Derived) -> Iterator[Record] | None:
    """The records of the shown types before ``derived.seq``, from its snapshot's `data` (what
    the store's ``StoredSnapshot.pieces`` returned), or None when they do not check out: not
    exactly ``derived.chain``'s pieces, not contiguous from seq 0 to ``derived.seq``, or a line
    that is not such a record in its piece's range.

    Everything is checked before the first record is made; the records are then made one at a
    time, as they are read: a session's worth of them alive at once made the garbage collector
    walk them all again and again (half the time of deriving a conversation of 100k steps).
    """
    pieces = _checked(data, derived)
    return None if pieces is None else _records(pieces)


def _checked(data: bytes, derived: Derived) -> list[list[bytes]] | None:
    """The lines of each piece in `data`, when all of it checks out against `derived`: the
    chain and the ranges first, so that nothing is decompressed before the bytes are known to
    be the ones the kernel made, then every line."""
    import zstandard  # here: a session that keeps no snapshot never loads it

    if derived.chain is None:
        return None
    count, expected = derived.chain
    digest, at, covered, bodies = "", 0, 0, []
    try:
        for _ in range(count):
            end = data.index(b"\n", at)
            words = data[at:end].split(b" ")
            if len(words) != 5 or words[0] != b"piece":
                return None
            first, stop, lines, size = (int(word) for word in words[1:])
            body = data[end + 1 : end + 1 + size]
            if first != covered or stop < first or len(body) != size:
                return None
            digest = chain(digest, data[at : end + 1 + size])
            bodies.append((first, stop, lines, body))
            at, covered = end + 1 + size, stop
    except ValueError:  # a header without its line break, a count that is not a number
        return None
    if at != len(data) or digest != expected or covered != derived.seq:
        return None
    decompress, last, pieces = zstandard.ZstdDecompressor().decompress, -1, []
    try:
        for first, stop, lines, body in bodies:
            chunk = decompress(body).split(b"\n")
            if chunk.pop() != b"" or len(chunk) != lines:  # each line ends with a line break
                return None
            for line in chunk:
                seq_, kind, time, ignorable, _ = line.split(b"\t", 4)
                seq = int(seq_)
                if kind not in _SHOWN or not first <= seq < stop or seq <= last:
                    return None
                if int(time) < 0 or ignorable not in {b"0", b"1"}:
                    return None
                last = seq
            pieces.append(chunk)
    except (ValueError, zstandard.ZstdError):  # a line that does not split in five, bad zstd
        return None
    return pieces


def _records(pieces: list[list[bytes]]) -> Iterator[Record]:
    # Each line is split again here rather than kept split by `_checked`: its parts kept for a
    # whole session would be a container per line for the collector to walk (`shown_records`).
    for chunk in pieces:
        for line in chunk:
            seq, kind, time, ignorable, data_json = line.split(b"\t", 4)
            yield Record(
                int(seq), kind.decode(), int(time), data_json=data_json, ignorable=ignorable == b"1"
            )


__all__ = [
    "chain",
    "column_piece_lines",
    "decode",
    "encode",
    "pack",
    "piece",
    "piece_lines",
    "shown_records",
    "window_lines",
]
