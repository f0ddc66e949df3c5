"""Reading a session log: the header gate, then the records, streamed frame by frame.

Implements the reading rules of :mod:`seamhost_persistence_jsonl.format`. A scan holds one frame
(or one chunk of a plain log) at a time, never the whole file. It reads each frame's payload and
the next frame's header in one call, decompresses with one decompressor for the whole scan, and
parses a chunk of lines at a time, building the records of a chunk in bulk when every line is a
plain envelope with the expected seq and a known type (any doubt goes record by record, which
alone words what is wrong). It tells a torn tail (kept as far
as it decodes, reported in :attr:`LogScan.tail`) from corruption (raised as `SessionCorrupted`
with the byte offset). Readers never lock: a scan sees the log as it was when the scan began,
and a write in progress past that point is just a torn tail to it.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import orjson

from seamhost import (
    FORMAT_VERSION,
    MalformedRecord,
    Record,
    SessionHeader,
    parse_envelope,
    plain_records,
)
from seamhost_persistence_jsonl.errors import (
    SessionCorrupted,
    UnknownRecordType,
    UnsupportedFormat,
)
from seamhost_persistence_jsonl.format import (
    FRAME_CHECK,
    FRAME_HEADER_SIZE,
    FRAME_INFO,
    FRAME_PREFIX,
    KIND_HEADER,
    KIND_RECORDS,
    SKIPPABLE_MAGIC,
    Encoding,
)

if TYPE_CHECKING:
    import zstandard

    from seamhost import EventCatalog

# A plain log is read in chunks of this size; a line longer than a chunk grows the buffer.
PLAIN_CHUNK = 1 << 20
# Bytes of lines parsed in one call when decoding a frame (bounds what a read holds at once).
PARSE_CHUNK = 1 << 15
# Bytes of a plain log's first line read before giving up on finding the header record's end.
MAX_HEADER_LINE = 1 << 24
_HEADER_FIELDS: tuple[tuple[str, type], ...] = (
    ("session_id", str),
    ("created", int),
    ("cwd", str),
    ("bundle", dict),
    ("durability", dict),
)


@attrs.frozen
class Tail:
    """How a log ends: where its last complete write ends, and what follows it."""

    clean_length: int  # a writer appends here (after cutting what follows)
    size: int  # the bytes the scan looked at
    torn_records: tuple[Record, ...] = ()  # decoded from a torn frame: to be written again

    @property
    def torn_bytes(self) -> int:
        return self.size - self.clean_length


class LogScan:
    """One pass over one session log: `header` at once, then `records()`, then `tail`."""

    def __init__(
        self,
        session_id: str,
        path: Path,
        encoding: Encoding,
        catalog: EventCatalog,
    ) -> None:
        self.session_id = session_id
        self.path = path
        self.encoding = encoding
        self._known = frozenset(catalog.names())
        self._decompressor: zstandard.ZstdDecompressor | None = None
        self._fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            self.size = os.fstat(self._fd).st_size
            if encoding == "zstd":
                self.header, self._start = self._framed_header()
            else:
                self.header, self._start = self._plain_header()
        except BaseException:
            self.close()
            raise
        self.tail: Tail | None = None

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)

    def __enter__(self) -> LogScan:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def records(self, start: tuple[int, int] | None = None) -> Iterator[Record]:
        """Every record after the header, in seq order; sets `tail` once exhausted.

        `start`, a (byte offset, seq) pair where a frame (or line) begins, reads from there on
        instead: a resume snapshot covers what is before it (:mod:`.snapshots`). The scan
        closes its file when the iteration ends (or the iterator is dropped).
        """
        offset, seq = start if start is not None else (self._start, 0)
        if self.encoding == "zstd":
            return self._framed_records(offset, seq)
        return self._plain_records(offset, seq)

    # -- errors -----------------------------------------------------------------------------

    def corrupted(self, offset: int, problem: str) -> SessionCorrupted:
        return SessionCorrupted(self.session_id, str(self.path), offset, problem)

    def unknown_type(self, record: Record, offset: int) -> UnknownRecordType:
        return UnknownRecordType(self.session_id, str(self.path), offset, record.seq, record.type)

    def _parse_header(self, line: bytes) -> SessionHeader:
        """The header record; its format version is checked before anything else in it."""
        try:
            data: Any = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise self.corrupted(0, "the header record is not JSON") from None
        if type(data) is not dict or type(data.get("format")) is not int:
            raise self.corrupted(0, "the header record has no format version")
        if data["format"] > FORMAT_VERSION:
            raise UnsupportedFormat(self.session_id, str(self.path), data["format"], FORMAT_VERSION)
        for key, kind in _HEADER_FIELDS:
            if type(data.get(key)) is not kind:
                problem = f"the header record's {key!r} is missing or not a {kind.__name__}"
                raise self.corrupted(0, problem)
        if data["format"] < 1:
            raise self.corrupted(0, f"the header record's format {data['format']} does not exist")
        header = SessionHeader.from_json(data)
        if header.session_id != self.session_id:
            raise self.corrupted(
                0, f"the header names session {header.session_id!r}, stored here as another id"
            )
        return header

    # -- framed logs ------------------------------------------------------------------------

    def _read(self, offset: int, size: int) -> bytes:
        """Up to `size` bytes at `offset`, never past the size the scan began with."""
        return os.pread(self._fd, max(0, min(size, self.size - offset)), offset)

    def _frame_info(self, offset: int, head: bytes) -> tuple[int, int, int, int, int] | None:
        """The checked fields of the frame header `head` read at `offset`; None on a torn tail."""
        if len(head) < FRAME_HEADER_SIZE:
            return None
        magic, length = FRAME_PREFIX.unpack_from(head)
        problem = None
        if magic != SKIPPABLE_MAGIC:
            problem = f"no frame header here (magic {magic:#010x})"
        elif length != FRAME_INFO.size + FRAME_CHECK.size:
            problem = f"frame header of length {length}"
        elif zlib.crc32(head[8:32]) != FRAME_CHECK.unpack_from(head, 32)[0]:
            problem = "frame header checksum mismatch"
        if problem is not None:
            if self._only_zeros_from(offset):
                return None
            raise self.corrupted(offset, problem)
        fields: tuple[int, int, int, int, int] = FRAME_INFO.unpack_from(head, 8)
        return fields

    def _only_zeros_from(self, offset: int) -> bool:
        while offset < self.size:
            chunk = os.pread(self._fd, min(PLAIN_CHUNK, self.size - offset), offset)
            if not chunk:
                break  # the file shrank under the scan: nothing but zeros was seen
            if chunk.count(0) != len(chunk):
                return False
            offset += len(chunk)
        return True

    def _framed_header(self) -> tuple[SessionHeader, int]:
        # The header frame is published whole, so anything short of it is damage, never a tear.
        head = self._read(0, FRAME_HEADER_SIZE)
        info = self._frame_info(0, head) if self.size >= FRAME_HEADER_SIZE else None
        if info is None:
            raise self.corrupted(0, "the header frame is incomplete")
        kind, length, first, count, crc = info
        if kind != KIND_HEADER or first != 0 or count != 1:
            raise self.corrupted(0, "the first frame is not a header frame")
        if FRAME_HEADER_SIZE + length > self.size:
            raise self.corrupted(0, "the header frame is incomplete")
        content = self._payload(0, self._read(FRAME_HEADER_SIZE, length), length, crc)
        if not content.endswith(b"\n") or content.count(b"\n") != 1:
            raise self.corrupted(0, "the header frame does not hold exactly one record")
        return self._parse_header(content[:-1]), FRAME_HEADER_SIZE + length

    def _payload(self, offset: int, payload: bytes | memoryview, length: int, crc: int) -> bytes:
        """The content of the frame at `offset`, its `payload` checked and decompressed."""
        if len(payload) != length or zlib.crc32(payload) != crc:
            raise self.corrupted(offset, "frame checksum mismatch")
        import zstandard

        decompressor = self._decompressor
        if decompressor is None:  # one for the whole scan: making one costs a small frame 8 us
            decompressor = self._decompressor = zstandard.ZstdDecompressor()
        try:
            content: bytes = decompressor.decompress(payload)
        except zstandard.ZstdError as exc:
            raise self.corrupted(offset, f"frame does not decompress: {exc}") from None
        return content

    def _framed_records(self, offset: int, expected: int) -> Iterator[Record]:
        # This loop runs once per frame of every read, and a replay may be thousands of small
        # frames: it stays lean on purpose (one read per frame, records checked in bulk).
        known = self._known
        head = self._read(offset, FRAME_HEADER_SIZE)
        try:
            while offset < self.size:
                info = self._frame_info(offset, head)
                if info is None:
                    self.tail = Tail(offset, self.size)
                    return
                kind, length, first, count, crc = info
                if kind != KIND_RECORDS or count == 0:
                    raise self.corrupted(offset, f"frame of kind {kind} with {count} records")
                if first != expected:
                    problem = f"seq gap: frame starts at seq {first}, not {expected}"
                    raise self.corrupted(offset, problem)
                end = offset + FRAME_HEADER_SIZE + length
                if end > self.size:
                    torn = self._torn_frame(offset, first, count)
                    yield from torn
                    self.tail = Tail(offset, self.size, tuple(torn))
                    return
                # The payload and the next frame's header, in one read.
                block = self._read(offset + FRAME_HEADER_SIZE, length + FRAME_HEADER_SIZE)
                content = self._payload(offset, memoryview(block)[:length], length, crc)
                head = block[length:]
                del block
                last = first + count
                seq = first
                for chunk, checked in self._decode(content, first, offset, known):
                    if checked and seq + len(chunk) <= last:
                        yield from chunk  # seqs and types already checked, in bulk
                        seq += len(chunk)
                        continue
                    for record in chunk:
                        if seq == last:
                            problem = f"frame holds more than its {count} records"
                            raise self.corrupted(offset, problem)
                        if record.seq != seq:
                            problem = f"seq gap: record seq {record.seq} where {seq} belongs"
                            raise self.corrupted(offset, problem)
                        if record.type not in known and not record.ignorable:
                            raise self.unknown_type(record, offset)
                        yield record
                        seq += 1
                if seq != last:
                    raise self.corrupted(offset, f"frame holds {seq - first} records, not {count}")
                del content  # before the next frame is read: one frame in memory at a time
                expected = last
                offset = end
            self.tail = Tail(offset, self.size)
        finally:
            self.close()

    def _decode(
        self, content: bytes, first: int, offset: int, known: frozenset[str]
    ) -> Iterator[tuple[list[Record], bool]]:
        """The records of a complete frame's content, parsed a chunk of lines at a time, each
        chunk with whether its seqs (from `first` on) and types were checked in bulk.

        A chunk of lines is parsed as one JSON array (one call instead of one per line); any
        line that does not plainly hold an envelope sends its chunk through the kernel's
        `parse_envelope`, line by line, which accepts it or says what is wrong with it.
        """
        if not content.endswith(b"\n"):
            raise self.corrupted(offset, "the frame's content does not end with a line break")
        seq = first
        start = 0
        end = len(content) - 1
        view = memoryview(content)  # chunks are views: plain_records copies what it parses
        while start <= end:
            stop = content.find(b"\n", start + PARSE_CHUNK) if end - start > PARSE_CHUNK else -1
            chunk = view[start : stop if stop >= 0 else end]
            start = (stop if stop >= 0 else end) + 1
            records = plain_records(chunk, seq, known)
            if records is None:
                records = [
                    self._line_record(line, seq + index, offset)
                    for index, line in enumerate(bytes(chunk).split(b"\n"))
                ]
                yield records, False
            else:
                yield records, True
            seq += len(records)

    def _line_record(self, line: bytes, seq: int, offset: int) -> Record:
        try:
            return parse_envelope(line)
        except MalformedRecord as exc:
            raise self.corrupted(offset, f"record seq {seq} is broken: {exc.problem}") from None

    def _torn_frame(self, offset: int, first: int, count: int) -> list[Record]:
        """The complete records that decode from the torn frame at `offset` (maybe none)."""
        import zstandard

        partial = os.pread(self._fd, self.size - offset, offset + FRAME_HEADER_SIZE)
        try:
            content = zstandard.ZstdDecompressor().decompressobj().decompress(partial)
        except zstandard.ZstdError:
            return []
        records: list[Record] = []
        start = 0
        for seq in range(first, first + count):
            end = content.find(b"\n", start)
            if end < 0:
                break
            try:
                record = parse_envelope(content[start:end])
            except MalformedRecord:
                break
            if record.seq != seq:
                break
            if record.type not in self._known and not record.ignorable:
                raise self.unknown_type(record, offset)
            records.append(record)
            start = end + 1
        return records

    # -- plain logs -------------------------------------------------------------------------

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
            self.tail = Tail(offset, offset + len(buffer))
        finally:
            self.close()
