"""The resume snapshot document: a :class:`~seamhost.session.derived.Derived` written down.

The kernel makes the bytes and reads them back; a store only keeps them (``SnapshotWriter``).
The document is lines of JSON::

    seamhost-snapshot 1 <SHA-256, hex, of every byte after this line>
    {"session_id": ..., "created": ..., "seq": n, "last_time": ..., "window_start": ...,
     "usage": {...}, "last": <count>, "window": <count>}
    <count> envelope lines: the last record of each type
    <count> envelope lines: the records [window_start, n)

`decode` returns None for anything it cannot trust: another version, a digest that does not
match, another session (id or creation time), or contents that do not hang together (a window
that is not contiguous up to seq n - 1, a last record that is not the window's last of its
type, ...). None means "replay the log in full": a snapshot is never a reason to refuse a session.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import orjson

from seamhost.session.derived import BOUNDARIES, Derived, usage_of
from seamhost.session.record import MalformedRecord, Record, parse_envelope

if TYPE_CHECKING:
    from seamhost.session.store import SessionHeader

MAGIC = b"seamhost-snapshot"
VERSION = 1  # bump when Derived's contents or meaning change: older snapshots then replay


def encode(
    derived: Derived, header: SessionHeader, window: bytes | bytearray | None = None
) -> bytes:
    """The snapshot document of `derived`, for the session `header` names.

    `window` may give the window's part of it ready made: :func:`window_lines` of
    ``derived.window`` (a live session keeps it as the window grows, so that a snapshot of a
    long open turn does not format its records again every time).
    """
    meta = {
        "session_id": header.session_id,
        "created": header.created,
        "seq": derived.seq,
        "last_time": derived.last_time,
        "window_start": derived.window_start,
        "usage": derived.usage,
        "last": len(derived.last),
        "window": len(derived.window),
    }
    lasts = sorted(derived.last.values(), key=lambda r: r.seq)
    head = orjson.dumps(meta) + b"\n" + window_lines(lasts)
    if window is None:
        window = window_lines(derived.window)
    digest = hashlib.sha256(head)
    digest.update(window)
    first = b"%b %d %b\n" % (MAGIC, VERSION, digest.hexdigest().encode())
    return b"".join((first, head, window))


def window_lines(records: Iterable[Record]) -> bytes:
    """The envelope lines of `records`, each ended by a newline: how the document holds them."""
    return b"".join([r.envelope() + b"\n" for r in records])


def decode(body: bytes, header: SessionHeader) -> Derived | None:
    """The state `body` holds, or None when it is not a sound snapshot of this session."""
    first, _, rest = body.partition(b"\n")
    if first != b"%b %d %b" % (MAGIC, VERSION, hashlib.sha256(rest).hexdigest().encode()):
        return None
    lines = rest.split(b"\n")
    if lines.pop() != b"":
        return None
    try:
        meta: Any = orjson.loads(lines[0])
        records = [parse_envelope(line) for line in lines[1:]]
    except (orjson.JSONDecodeError, MalformedRecord, IndexError):
        return None
    if type(meta) is not dict or (meta.get("session_id"), meta.get("created")) != (
        header.session_id,
        header.created,
    ):
        return None
    return _assemble(meta, records)


def _assemble(meta: dict[str, Any], records: list[Record]) -> Derived | None:
    fields: list[Any] = [
        meta.get(key) for key in ("seq", "last_time", "window_start", "last", "window")
    ]
    usage = usage_of(meta["usage"]) if type(meta.get("usage")) is dict else None
    if usage is None or not all(type(v) is int and v >= 0 for v in fields):
        return None
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
    return Derived(seq, last_time, last, start, window, usage)


__all__ = ["decode", "encode", "window_lines"]
