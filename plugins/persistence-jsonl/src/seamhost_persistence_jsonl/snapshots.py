"""Resume snapshots of persistence-jsonl: one side file per session, never the truth.

The kernel's snapshot document (``SnapshotWriter``, docs/design.md "Resume snapshots") is kept
next to the log as ``session.v1.resume``::

    <SHA-256, hex, of every byte after this line>
    {"format": 1, "seq": n, "offset": o, "check_from": c, "check": "<SHA-256 hex>"}
    <the kernel's document, as given>

`seq` and `offset` are the durable point it covers: the records [0, n) end exactly at byte `o`
of the log, a frame boundary (framed logs) or a line boundary (plain logs). `check` is the
SHA-256 of the log's bytes [c, o), at most CHECK_BYTES of them, so that opening checks, with one
read of a few kilobytes, that the log still holds at that place what it held when the snapshot
was taken; the records from `o` on are then read as usual (a frame there must start at seq `n`).

A missing file, a digest or check that does not match, an `offset` past the end of the log: the
snapshot is ignored and the session is replayed in full. The file is written to a temp file
(``.session.v1.resume.<token>.tmp``) and renamed over the old one, without fsync: losing it, or
finding it torn after a crash, costs a full replay and nothing else. Deleting it (or every
snapshot of a root) changes nothing but the time opening takes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
from typing import TYPE_CHECKING, Any

import orjson

from seamhost_persistence_jsonl.durable import write_at

if TYPE_CHECKING:
    from seamhost_persistence_jsonl.layout import SessionPaths

SNAPSHOT_NAME = "session.v1.resume"
SNAPSHOT_TEMP_PREFIX = f".{SNAPSHOT_NAME}."
SNAPSHOT_FORMAT = 1
CHECK_BYTES = 4096  # the log bytes before the covered point that a snapshot's check hashes


def save(paths: SessionPaths, fd: int, seq: int, offset: int, body: bytes) -> None:
    """Keep `body` as the snapshot covering records [0, `seq`), which end at byte `offset`."""
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
    }
    line = orjson.dumps(meta) + b"\n"
    digest = hashlib.sha256(line)
    digest.update(body)  # the digest of line + body, without copying the body to make it
    head = digest.hexdigest().encode() + b"\n" + line
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


def find(paths: SessionPaths, fd: int, size: int) -> tuple[int, int, bytes] | None:
    """The kept snapshot's (seq, offset, body) when it still matches the log, else None.

    `fd` reads the log, `size` is its length. Reads the snapshot file and at most CHECK_BYTES
    of the log, whatever the log's length.
    """
    try:
        with open(paths.directory / SNAPSHOT_NAME, "rb") as file:
            data = file.read()
    except OSError:
        return None
    digest, _, rest = data.partition(b"\n")
    if digest != hashlib.sha256(rest).hexdigest().encode():
        return None
    line, _, body = rest.partition(b"\n")
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
    return seq, offset, body


def is_snapshot_file(name: str) -> bool:
    """Whether `name` is a session's snapshot or one being written."""
    return name == SNAPSHOT_NAME or (
        name.startswith(SNAPSHOT_TEMP_PREFIX) and name.endswith(".tmp")
    )
