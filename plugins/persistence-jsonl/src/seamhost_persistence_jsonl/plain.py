"""Reading a plain log (``compression = "none"``): the line-by-line half of a log scan.

Mixed into :class:`~seamhost_persistence_jsonl.reading.LogScan`, whose descriptor, size and
error helpers it uses; the rules are :mod:`~seamhost_persistence_jsonl.format`'s "Plain log".
A plain log carries no checksums and no binding: it detects structural damage (and, through
the mark, a log cut back), not a changed string or a spliced line.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from seamhost import MalformedRecord, parse_envelope
from seamhost_persistence_jsonl.tail import Tail

if TYPE_CHECKING:
    from seamhost import Record, SessionHeader
    from seamhost.store import SessionCorrupted, UnknownRecordType

# A plain log is read in chunks of this size; a line longer than a chunk grows the buffer.
PLAIN_CHUNK = 1 << 20
# Bytes of a plain log's first line read before giving up on finding the header record's end.
MAX_HEADER_LINE = 1 << 24


class PlainLog:
    """The plain-log methods of a log scan."""

    _fd: int
    size: int
    _known: frozenset[str]

    if TYPE_CHECKING:  # provided by LogScan

        def corrupted(self, offset: int, problem: str) -> SessionCorrupted: ...

        def unknown_type(self, record: Record, offset: int) -> UnknownRecordType: ...

        def close(self) -> None: ...

        def _parse_header(self, line: bytes) -> SessionHeader: ...

        def _end(self, tail: Tail) -> None: ...

    def _plain_header(self) -> tuple[SessionHeader, int]:
        buffer = b""
        while b"\n" not in buffer:
            if len(buffer) >= min(self.size, MAX_HEADER_LINE):
                raise self.corrupted(0, "the header record's line is incomplete")
            chunk = os.pread(self._fd, PLAIN_CHUNK, len(buffer))
            if not chunk:
                raise self.corrupted(0, "the header record's line is incomplete")
            buffer += chunk
        end = buffer.index(b"\n")
        return self._parse_header(buffer[:end]), end + 1

    def _plain_records(self, offset: int, expected: int) -> Iterator[Record]:
        known = self._known
        # `offset` is the file offset of buffer[0]
        buffer = b""
        position = offset
        try:
            while True:
                chunk = os.pread(self._fd, min(PLAIN_CHUNK, self.size - position), position)
                position += len(chunk)
                if chunk:
                    buffer = buffer + chunk if buffer else chunk
                start = 0
                while True:
                    stop = buffer.find(b"\n", start)
                    if stop < 0:
                        break
                    line_offset = offset + start
                    try:
                        record = parse_envelope(buffer[start:stop])
                    except MalformedRecord as exc:
                        problem = f"line is not a record: {exc.problem}"
                        raise self.corrupted(line_offset, problem) from None
                    if record.seq != expected:
                        problem = f"seq gap: record seq {record.seq} where {expected} belongs"
                        raise self.corrupted(line_offset, problem)
                    if record.type not in known and not record.ignorable:
                        raise self.unknown_type(record, line_offset)
                    yield record
                    expected += 1
                    start = stop + 1
                buffer = buffer[start:]
                offset += start
                if not chunk or position >= self.size:
                    break
            self._end(Tail(offset, offset + len(buffer)))
        finally:
            self.close()
