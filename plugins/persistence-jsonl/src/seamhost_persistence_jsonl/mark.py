"""The high-water mark: how far a session's log had been durable, kept beside it.

A log cut back to one of its own frame (or line) boundaries is a valid log: its chain checks
out, and a writer that opens it continues it, so an approved call whose ``tool/dispatch`` was
cut away would run again. The mark is the evidence against that: after every durable write the
writer overwrites ``session.mark`` (fixed size, in place, no fsync: the log's own sync already
happened, so the mark never claims more than was durable; a crash may leave it behind the log,
never ahead of it)::

    offset size  field
    0      4     MARK_MAGIC, b"SHMK"
    4      1     MARK_VERSION (1)
    5      3     zero
    8      8     records durable (the next seq)
    16     8     where they end in the log: a frame or line boundary
    24     32    the chain digest of the frame ending there (zero where frames are unbound)
    56     4     CRC-32 of bytes 0..56

A reader reads the mark *before* it measures the log (a writer appends, syncs, then marks), and
refuses a log that ends before the mark, or in which no frame with the mark's chain digest ends
there: the log was rolled back or rewritten. A mark that is missing or does not check out is
ignored, so the mark is evidence against a rollback of the log alone (a restored backup of the
log file, a copy of an earlier state put back), not against whoever rolls back the whole
session directory or store: that takes an anchor outside the store (design.md §7).
"""

from __future__ import annotations

import contextlib
import os
import struct
import zlib
from pathlib import Path

import attrs

MARK_NAME = "session.mark"
MARK_MAGIC = b"SHMK"
MARK_VERSION = 1
MARK_FIELDS = struct.Struct("<4sB3xQQ32s")
MARK_CHECK = struct.Struct("<I")
MARK_SIZE = MARK_FIELDS.size + MARK_CHECK.size
UNBOUND = bytes(32)


@attrs.frozen
class Mark:
    """A session's high-water mark: `seq` records ending at byte `offset`, after `chain`."""

    seq: int
    offset: int
    chain: bytes = UNBOUND

    def pack(self) -> bytes:
        fields = MARK_FIELDS.pack(MARK_MAGIC, MARK_VERSION, self.seq, self.offset, self.chain)
        return fields + MARK_CHECK.pack(zlib.crc32(fields))


def read_mark(directory: Path) -> Mark | None:
    """The session's mark, or None when there is none that checks out."""
    try:
        with open(directory / MARK_NAME, "rb") as file:
            data = file.read(MARK_SIZE + 1)
    except OSError:
        return None
    if len(data) != MARK_SIZE:
        return None
    fields = data[: MARK_FIELDS.size]
    if zlib.crc32(fields) != MARK_CHECK.unpack_from(data, MARK_FIELDS.size)[0]:
        return None
    magic, version, seq, offset, chain = MARK_FIELDS.unpack(fields)
    if magic != MARK_MAGIC or version != MARK_VERSION:
        return None
    return Mark(seq, offset, chain)


class MarkFile:
    """The writer's side: the mark's descriptor, overwritten after each durable write."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    @classmethod
    def open(cls, directory: Path) -> MarkFile | None:
        """The mark of the session in `directory`, created if missing; None if it cannot be
        opened (then no mark is kept, and a reader finds the last one, or none)."""
        try:
            fd = os.open(directory / MARK_NAME, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return None
        return cls(fd)

    def write(self, mark: Mark) -> None:
        # Evidence, not the truth: a mark that cannot be written leaves the previous one (behind
        # the log, which a reader accepts), and the write that made the log durable stands.
        with contextlib.suppress(OSError):
            os.pwrite(self._fd, mark.pack(), 0)

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)
