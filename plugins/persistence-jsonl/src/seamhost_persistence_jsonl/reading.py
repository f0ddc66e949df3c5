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

import orjson

from seamhost import (
    FORMAT_VERSION,
    MalformedRecord,
    Record,
    SessionHeader,
    parse_envelope,
    plain_records,
)
from seamhost.store import SessionCorrupted, UnknownRecordType, UnsupportedFormat
from seamhost_persistence_jsonl.binding import origin
from seamhost_persistence_jsonl.format import (
    FRAME_CHECK,
    FRAME_HEADER_SIZE,
    FRAME_INFO,
    FRAME_PREFIX,
    KIND_HEADER,
    KIND_RECORDS,
    LOG_NAME,
    SKIPPABLE_MAGIC,
    V1_FRAME_HEADER_SIZE,
    Encoding,
)
from seamhost_persistence_jsonl.frame_chain import NO_MAC, ChainCheck
from seamhost_persistence_jsonl.plain import PLAIN_CHUNK, PlainLog
from seamhost_persistence_jsonl.tail import Tail, decode_torn

if TYPE_CHECKING:
    import zstandard

    from seamhost import EventCatalog
    from seamhost_persistence_jsonl.binding import MacKey
    from seamhost_persistence_jsonl.mark import Mark

# Bytes of lines parsed in one call when decoding a frame (bounds what a read holds at once).
PARSE_CHUNK = 1 << 15
_HEADER_FIELDS: tuple[tuple[str, type], ...] = (
    ("session_id", str),
    ("created", int),
    ("cwd", str),
    ("bundle", dict),
    ("durability", dict),
)


class LogScan(PlainLog):
    """One pass over one session log: `header` at once, then `records()`, then `tail`.

    The log's layout is the one its name gives. In layout 2 every frame's chain (and, with
    `key`, its MAC) is checked (:mod:`.frame_chain`); `chain.binding()` says what was seen.
    `mark`, the session's high-water mark read before the scan began, is checked when the scan
    reaches it (:mod:`.mark`): a log that ends before it, or holds another frame there, is
    refused as rolled back or rewritten.
    """

    def __init__(
        self,
        session_id: str,
        path: Path,
        encoding: Encoding,
        catalog: EventCatalog,
        *,
        key: MacKey | None = None,
        mark: Mark | None = None,
    ) -> None:
        self.session_id = session_id
        self.path = path
        self.encoding = encoding
        found = LOG_NAME.match(path.name)
        self.layout = int(found.group(1)) if found else 1
        self.bound = encoding == "zstd" and self.layout >= 2
        self._head_size = FRAME_HEADER_SIZE if self.bound else V1_FRAME_HEADER_SIZE
        self.chain = ChainCheck(origin(session_id) if self.bound else b"", key)
        self._mark = mark
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

    def records(self, start: tuple[int, int, bytes] | None = None) -> Iterator[Record]:
        """Every record after the header, in seq order; sets `tail` once exhausted.

        `start`, a (byte offset, seq, chain digest) triple where a frame (or line) begins and
        the digest of the frame before it, reads from there on instead: a resume snapshot
        covers what is before it (:mod:`.snapshots`). The scan closes its file when the
        iteration ends (or the iterator is dropped).
        """
        offset, seq = (start[0], start[1]) if start is not None else (self._start, 0)
        if start is not None:
            self.chain.prev = start[2]
        if self.chain.key is not None and not self.bound:  # else a forger writes layout 1
            self.close()
            raise self.corrupted(offset, NO_MAC + f" (a layout-{self.layout} {self.encoding} log)")
        if self.encoding == "zstd":
            return self._framed_records(offset, seq)
        return self._plain_records(offset, seq)

    # -- errors -----------------------------------------------------------------------------

    def corrupted(self, offset: int, problem: str) -> SessionCorrupted:
        return SessionCorrupted(self.session_id, problem, str(self.path), offset)

    def unknown_type(self, record: Record, offset: int) -> UnknownRecordType:
        return UnknownRecordType(self.session_id, record.seq, record.type, str(self.path), offset)

    def _end(self, tail: Tail) -> None:
        """Take `tail` as how the log ends, once the mark agrees that nothing was cut away."""
        mark = self._mark
        if mark is not None and tail.clean_length < mark.offset:
            raise self.corrupted(
                tail.clean_length,
                f"rolled back: the log ends here, after {tail.clean_length} bytes, but "
                f"{mark.offset} bytes ({mark.seq} records) had been durable (session.mark); "
                "records were cut away, and resuming could run an approved call again",
            )
        self.tail = tail

    def _passed(self, offset: int, end: int) -> None:
        """Check the frame [offset, end) against the mark, which may lie at its end or in it."""
        mark = self._mark
        if mark is None or not offset < mark.offset <= end:
            return
        bound = self.bound and any(mark.chain)
        if mark.offset != end or (bound and self.chain.prev != mark.chain):
            raise self.corrupted(
                offset,
                f"rewritten: the log held another frame ending at byte {mark.offset} when "
                f"{mark.seq} records were durable (session.mark)",
            )

    def _parse_header(self, line: bytes) -> SessionHeader:
        """The header record; its format version is checked before anything else in it."""
        try:
            data: Any = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise self.corrupted(0, "the header record is not JSON") from None
        if type(data) is not dict or type(data.get("format")) is not int:
            raise self.corrupted(0, "the header record has no format version")
        if data["format"] > FORMAT_VERSION:
            raise UnsupportedFormat(self.session_id, data["format"], FORMAT_VERSION, str(self.path))
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
        size = self._head_size
        if len(head) < size:
            return None
        magic, length = FRAME_PREFIX.unpack_from(head)
        problem = None
        if magic != SKIPPABLE_MAGIC:
            problem = f"no frame header here (magic {magic:#010x})"
        elif length != size - FRAME_PREFIX.size:
            problem = f"frame header of length {length}"
        elif zlib.crc32(head[8 : size - 4]) != FRAME_CHECK.unpack_from(head, size - 4)[0]:
            problem = "frame header checksum mismatch"
        elif head[9] and not self.bound:  # layout 1 has no flags
            problem = f"frame flags {head[9]:#04x} in a layout-{self.layout} log"
        if problem is not None:
            if self._only_zeros_from(offset):
                return None
            raise self.corrupted(offset, problem)
        kind, _flags, length, first, count, crc = FRAME_INFO.unpack_from(head, 8)
        return kind, length, first, count, crc

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
        size = self._head_size
        head = self._read(0, size)
        info = self._frame_info(0, head) if self.size >= size else None
        if info is None:
            raise self.corrupted(0, "the header frame is incomplete")
        kind, length, first, count, _ = info
        if kind != KIND_HEADER or first != 0 or count != 1:
            raise self.corrupted(0, "the first frame is not a header frame")
        if size + length > self.size:
            raise self.corrupted(0, "the header frame is incomplete")
        # Its chain starts at the origin: bound to the id the store keeps the session under.
        content = self._payload(0, head, self._read(size, length), length)
        if not content.endswith(b"\n") or content.count(b"\n") != 1:
            raise self.corrupted(0, "the header frame does not hold exactly one record")
        self._passed(0, size + length)
        return self._parse_header(content[:-1]), size + length

    def _payload(self, offset: int, head: bytes, payload: bytes | memoryview, length: int) -> bytes:
        """The content of the frame at `offset`, its `payload` checked (its CRC, and in layout
        2 its chain and MAC) and decompressed."""
        if len(payload) != length or zlib.crc32(payload) != FRAME_INFO.unpack_from(head, 8)[5]:
            raise self.corrupted(offset, "frame checksum mismatch")
        if self.bound:
            problem = self.chain.follow(head, payload)
            if problem is not None:
                raise self.corrupted(offset, problem)
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
        known, size, chain = self._known, self._head_size, self.chain
        head = self._read(offset, size)
        try:
            while offset < self.size:
                info = self._frame_info(offset, head)
                if info is None:
                    self._end(Tail(offset, self.size, chain=chain.prev))
                    return
                kind, length, first, count, _ = info
                if kind != KIND_RECORDS or count == 0:
                    raise self.corrupted(offset, f"frame of kind {kind} with {count} records")
                if first != expected:
                    problem = f"seq gap: frame starts at seq {first}, not {expected}"
                    raise self.corrupted(offset, problem)
                end = offset + size + length
                if end > self.size:
                    yield from self._torn(offset, first, count)
                    return
                # The payload and the next frame's header, in one read.
                block = self._read(offset + size, length + size)
                content = self._payload(offset, head, memoryview(block)[:length], length)
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
                self._passed(offset, end)
                expected = last
                offset = end
            self._end(Tail(offset, self.size, chain=chain.prev))
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

    def _torn(self, offset: int, first: int, count: int) -> list[Record]:
        """The records kept of the torn frame at `offset`, once the tail is taken. With a key
        none are: the frame's MAC cannot be checked before its payload is whole."""
        torn: list[Record] = []
        if self.chain.key is None:
            partial = os.pread(self._fd, self.size - offset, offset + self._head_size)
            torn = decode_torn(partial, first, count)
        for record in torn:
            if record.type not in self._known and not record.ignorable:
                raise self.unknown_type(record, offset)
        self._end(Tail(offset, self.size, tuple(torn), self.chain.prev))
        return torn
