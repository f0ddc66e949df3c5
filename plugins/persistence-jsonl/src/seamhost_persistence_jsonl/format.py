"""The on-disk format of persistence-jsonl, layout version 2 (and 1, still read), and its encoders.

Files
=====

One directory per session under the store root::

    <root>/seamhost-sessions.json               root marker: {"format": 1, "encoding": "zstd"}
    <root>/<escaped id>/session.v2.jsonl.zst    the log, compression = "zstd" (framed)
    <root>/<escaped id>/session.v2.jsonl        the log, compression = "none" (plain JSONL)
    <root>/<escaped id>/session.lock            the writer lock; deleted only with its session
    <root>/<escaped id>/session.mark            the high-water mark (see .mark)
    <root>/<escaped id>/.session.v2.jsonl*.tmp  a first write being published
    <root>/<escaped id>/session.v1.resume       the resume snapshot, optional (see .snapshots)
    <root>/<escaped id>/session.v1.pieces       the resume snapshot's pieces, likewise

A session id becomes a directory name by percent-encoding (``%XX``, upper-case hex, of its UTF-8
bytes) every byte outside ``[A-Za-z0-9._-]``, and a leading ``.``. One root holds one encoding,
recorded in the root marker when the root's first session is published.

The ``v2`` in the log's name is the layout version. It is the first gate: a reader that finds
only ``session.vN.*`` with ``N > LAYOUT_VERSION`` refuses the session as *unsupported, upgrade
seamhost*, before reading a byte of it. The second gate is the ``format`` field of the header
record (:data:`seamhost.session.store.FORMAT_VERSION`), read before any event record.

New sessions are written in layout 2. A session of layout 1 (``session.v1.*``: frames with a
36-byte header, no binding) is still read, and a writer that opens one appends layout-1 frames
to it: it stays *unbound* (``session verify`` says so) until ``seamhost store migrate``
publishes it in layout 2 beside the old log (:mod:`.migration`); where both are there, the newest
is the session's log. Layout 2 changes the framed log only: a plain log of layout 2 is a plain
log of layout 1 under the new name, and is unbound too.

Framed log (``session.v2.jsonl.zst``)
=====================================

A sequence of frames. Every frame is an 84-byte frame header followed by its payload; all
integers are little-endian::

    offset size  field
    0      4     SKIPPABLE_MAGIC, 0x184D2A5E: the frame header is a zstd *skippable frame*,
                 so ``zstd -d`` skips it and decodes the log into plain JSONL
    4      4     FRAME_HEADER_SIZE - 8 (76): the skippable frame's length
    8      1     kind: KIND_HEADER (1) or KIND_RECORDS (2)
    9      1     flags: FLAG_MAC (1) when bytes 64..80 hold a MAC; no other bit is set
    10     2     zero
    12     4     payload length n, in bytes
    16     8     seq of the payload's first record (0 in the header frame)
    24     4     number of records in the payload
    28     4     CRC-32 of the payload
    32     32    chain digest: BLAKE2b-256 of the previous frame's chain digest, bytes 8..32
                 and the payload (the header frame's "previous" digest is the session's
                 origin, a BLAKE2b-256 of its id): see .binding
    64     16    MAC of the chain digest under the store's key (FLAG_MAC), else zero
    80     4     CRC-32 of bytes 8..80
    84     n     payload: one zstd frame, written with its content size and content checksum,
                 whose content is the records, one JSON document per line, each ending "\\n"

A layout-1 frame header is bytes 0..32 above with the skippable length 28, no flags, then the
CRC-32 of its bytes 8..32 (36 bytes in all).

Frame 1 (kind 1) holds exactly one line, the header record (``SessionHeader.to_json()``: format,
session id, creation time, cwd, bundle identity, durability). Every later frame (kind 2) holds
event records (design.md §4 envelopes) with contiguous seqs continuing the previous frame's. A
durable batch is one frame; a batch past FRAME_TARGET bytes of JSON is cut into several frames,
written and synced together, so that a reader never holds more than one frame of about that size.

Reading a framed log from byte 0 to the file's size, frame by frame:

* The header frame is published whole (see below), so any damage to it is corruption.
* Fewer than 36 bytes left, a frame header that checks out but a payload running past the end of
  the file, or only zero bytes left (a crash may extend a file before its data lands): this is a
  **torn tail**, the end of a write that did not finish. The complete records that decode from a
  torn payload are kept; a writer cuts the torn bytes and writes those records again before its
  next batch.
* Otherwise a frame header whose magic, length or CRC is wrong, a payload whose CRC is wrong or
  that does not decompress, a line that is not an envelope, a record count, kind or seq that
  does not follow: **corruption**, refused with the frame's byte offset. Because the frame header
  carries its own CRC, a damaged length can never make a complete frame pass for a torn one and
  silently drop the frames after it.
* Layout 2: a chain digest that is not the one computed from the previous frame (a frame
  spliced from another session or another place, frames reordered, a frame rewritten), and,
  with a key configured, a frame without a MAC or whose MAC does not match: **corruption** too,
  with the frame's byte offset. With a key, a torn frame's records are not kept: its MAC
  cannot be checked before its payload is whole. A key refuses layout-1 logs as a whole.

Plain log (``session.v1.jsonl``)
================================

The header record on the first line, then one envelope per line, each line ending ``"\\n"``:
exactly what ``zstd -d`` makes of a framed log. A last line without its ``"\\n"`` is a torn tail
(cut by a writer before its next batch); an earlier line that is not an envelope, or a seq that
does not follow, is corruption. Plain logs carry no checksums: they detect structural damage,
not a flipped bit inside a string.

Publishing and appending
========================

A session's first write (its header frame and first batch) goes to a new temp file in the
session directory (``O_EXCL``, mode 0600), is fsynced, published with ``link()`` (which never
replaces an existing log), the directory is fsynced and the temp removed. Later batches are
appended at the end of the last complete frame and synced; when a write or sync fails, the file
is truncated back to that length and the batch stays pending.
"""

from __future__ import annotations

import re
import struct
import zlib
from bisect import bisect_left
from itertools import accumulate, islice
from typing import TYPE_CHECKING, Literal

from seamhost_persistence_jsonl.binding import FLAG_MAC, NO_MAC, frame_digest, origin

if TYPE_CHECKING:
    from collections.abc import Sequence

    import zstandard

    from seamhost_persistence_jsonl.binding import MacKey

LAYOUT_VERSION = 2
READABLE_LAYOUTS = (1, 2)  # every layout a reader opens (and a writer appends to, in its own)
Encoding = Literal["zstd", "none"]
ENCODINGS: tuple[Encoding, ...] = ("zstd", "none")


def log_name(encoding: Encoding, layout: int = LAYOUT_VERSION) -> str:
    """The file name of a log of `encoding` in layout `layout`."""
    return f"session.v{layout}.jsonl" + (".zst" if encoding == "zstd" else "")


LOG_NAMES: dict[str, str] = {encoding: log_name(encoding) for encoding in ENCODINGS}
LOG_NAME = re.compile(r"^session\.v([0-9]+)\.jsonl(\.zst)?$")
LOCK_NAME = "session.lock"
SNAPSHOT_NAME = "session.v1.resume"  # the resume snapshot, read and written by .snapshots
PIECES_NAME = "session.v1.pieces"  # the resume snapshot's pieces, likewise
TEMP_SUFFIX = ".tmp"
ROOT_MARKER = "seamhost-sessions.json"
ROOT_MARKER_FORMAT = 1  # the marker's own format: layout 2 did not change it

SKIPPABLE_MAGIC = 0x184D2A5E
ZSTD_MAGIC = 0xFD2FB528
FRAME_PREFIX = struct.Struct("<II")  # skippable magic, skippable length
# kind, flags, payload length, first seq, count, payload CRC (layout 1: flags always zero)
FRAME_INFO = struct.Struct("<BB2xIQII")
FRAME_BINDING = struct.Struct("<32s16s")  # chain digest, MAC (layout 2)
FRAME_CHECK = struct.Struct("<I")  # CRC-32 of the packed FRAME_INFO (and FRAME_BINDING)
FRAME_HEADER_SIZE = FRAME_PREFIX.size + FRAME_INFO.size + FRAME_BINDING.size + FRAME_CHECK.size
V1_FRAME_HEADER_SIZE = FRAME_PREFIX.size + FRAME_INFO.size + FRAME_CHECK.size
CHAIN_AT = FRAME_PREFIX.size + FRAME_INFO.size  # where the chain digest lies in a frame header
MAC_AT = CHAIN_AT + 32
KIND_HEADER = 1
KIND_RECORDS = 2
# Content bytes after which a batch is cut into another frame: bounds what a reader holds.
FRAME_TARGET = 1 << 20
MAX_PAYLOAD = (1 << 32) - 1
DEFAULT_LEVEL = 3


def _check_constants() -> None:
    """The layout above, held against the constants that implement it (run at import)."""
    problems = []
    if SKIPPABLE_MAGIC & 0xFFFFFFF0 != 0x184D2A50:
        problems.append("SKIPPABLE_MAGIC is not a zstd skippable-frame magic (0x184D2A5?)")
    if FRAME_PREFIX.size != 8 or FRAME_INFO.size != 24 or FRAME_CHECK.size != 4:
        problems.append("the frame header fields do not add up to 8 + 24 + 4 bytes")
    if FRAME_BINDING.size != 48 or (CHAIN_AT, MAC_AT) != (32, 64):
        problems.append("the binding is not 32 bytes of chain digest then 16 of MAC at byte 32")
    if (V1_FRAME_HEADER_SIZE, FRAME_HEADER_SIZE) != (36, 84):
        problems.append("the frame headers are not 36 (layout 1) and 84 (layout 2) bytes")
    if max(READABLE_LAYOUTS) != LAYOUT_VERSION:
        problems.append("the layout written is not the newest layout read")
    if not all(LOG_NAME.match(name) for name in LOG_NAMES.values()):
        problems.append("a log name does not match LOG_NAME")
    if LOG_NAME.match(LOG_NAMES["zstd"] + TEMP_SUFFIX) or LOG_NAME.match(LOCK_NAME):
        problems.append("a temp or lock file name could pass for a log")
    if FRAME_TARGET >= MAX_PAYLOAD // 2:
        problems.append("FRAME_TARGET leaves no room for a record past it")
    if problems:
        raise ImportError(
            "persistence-jsonl format constants are inconsistent: " + "; ".join(problems)
        )


_check_constants()


def frame_cuts(lines: Sequence[bytes], start: int = 0, *, full_only: bool = False) -> list[int]:
    """Where the frames of the lines from `start` end, in order (relative to `start`): a full
    frame ends just after the line that brings its content to FRAME_TARGET bytes; then (unless
    `full_only`) the end of the lines when a partial frame is left. Sizes are summed and
    searched in C (accumulate, bisect): a writing thread runs this over every line it packs,
    holding the GIL."""
    # through[i]: the content bytes of lines start..start+i, each with its line break.
    through = list(accumulate(map(_ONE.__add__, map(len, islice(lines, start, None)))))
    cuts = []
    before = 0  # the bytes of the frames cut so far
    at = 0
    while at < len(through):
        end = bisect_left(through, before + FRAME_TARGET, at)
        if end == len(through):
            if not full_only:
                cuts.append(len(through))
            break
        cuts.append(end + 1)
        before = through[end]
        at = end + 1
    return cuts


_ONE = 1


def content_size(lines: Sequence[bytes]) -> int:
    """The bytes of `lines` as a frame's content holds them, each with its line break."""
    return sum(map(len, lines)) + len(lines)


# zlib.crc32 releases the GIL for buffers over 5 KiB; a writing thread that gives the GIL up must
# wait its turn to get it back (up to the switch interval, 5 ms) while an appender keeps the
# main thread busy. Pieces below that size are summed with the GIL held: a 1 MiB frame's CRC
# then holds it ~0.1 ms instead of costing a wait (measured: a pack took 23 ms, 4 ms of it work).
_CRC_PIECE = 4096


def crc32_holding_gil(data: bytes) -> int:
    """zlib.crc32 of `data`, computed in pieces small enough that the GIL is never released."""
    if len(data) <= _CRC_PIECE:
        return zlib.crc32(data)
    view = memoryview(data)
    crc = 0
    for start in range(0, len(data), _CRC_PIECE):
        crc = zlib.crc32(view[start : start + _CRC_PIECE], crc)
    return crc


def frame_header(
    kind: int,
    payload: bytes,
    first_seq: int,
    count: int,
    *,
    prev: bytes | None = None,
    key: MacKey | None = None,
) -> bytes:
    """The header of a frame holding `payload`: of layout 2 (84 bytes, chained after the digest
    `prev`, with a MAC under `key` if given) or, without `prev`, of layout 1 (36 bytes)."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"a frame payload of {len(payload)} bytes does not fit the format")
    crc = crc32_holding_gil(payload)
    if prev is None:
        info = FRAME_INFO.pack(kind, 0, len(payload), first_seq, count, crc)
        return FRAME_PREFIX.pack(SKIPPABLE_MAGIC, 28) + info + FRAME_CHECK.pack(zlib.crc32(info))
    flags = 0 if key is None else FLAG_MAC
    info = FRAME_INFO.pack(kind, flags, len(payload), first_seq, count, crc)
    chain = frame_digest(prev, info, payload)
    bound = info + chain + (NO_MAC if key is None else key.tag(chain))  # FRAME_BINDING's bytes
    return _PREFIX + bound + FRAME_CHECK.pack(zlib.crc32(bound))


_PREFIX = FRAME_PREFIX.pack(SKIPPABLE_MAGIC, FRAME_HEADER_SIZE - FRAME_PREFIX.size)


class LogEncoder:
    """Turns the header and batches of record lines into the bytes of one log encoding.

    `layout` is the layout of the log it appends to (a session of layout 1 stays in it);
    `key` makes a layout-2 framed log's frames carry a MAC. Each method that makes frames takes
    `prev`, the chain digest of the frame they follow (:meth:`chain_of` of it, or the session's
    :meth:`origin` before the header frame); it is ignored where frames are not bound.
    Not thread-safe: a writer uses its encoder from its writing thread only.
    """

    def __init__(
        self,
        encoding: Encoding,
        level: int = DEFAULT_LEVEL,
        *,
        layout: int = LAYOUT_VERSION,
        key: MacKey | None = None,
    ) -> None:
        self.encoding = encoding
        self.level = level
        self.layout = layout
        self.bound = encoding == "zstd" and layout >= 2  # whether its frames carry a chain
        self.key = key if self.bound else None
        self._compressor: zstandard.ZstdCompressor | None = None

    def origin(self, session_id: str) -> bytes:
        """The chain digest before the session's header frame (b"" where frames are unbound)."""
        return origin(session_id) if self.bound else b""

    def chain_of(self, frame: bytes) -> bytes:
        """The chain digest of `frame` (which starts with its header), b"" if unbound."""
        return frame[CHAIN_AT:MAC_AT] if self.bound else b""

    def header(self, header_json: bytes, prev: bytes = b"") -> bytes:
        """The bytes that start a log: the header record (a frame of its own when framed)."""
        line = header_json + b"\n"
        if self.encoding == "none":
            return line
        return self._frame(KIND_HEADER, line, 0, 1, prev)

    def batch(self, lines: Sequence[bytes], first_seq: int, prev: bytes = b"") -> bytes:
        """The bytes of one batch of envelope lines (each without its ``"\\n"``): one frame,
        or one per FRAME_TARGET bytes of lines."""
        return b"".join(self.batch_pieces(lines, first_seq, prev))

    def batch_pieces(
        self, lines: Sequence[bytes], first_seq: int, prev: bytes = b"", *, threads: int = 0
    ) -> list[bytes]:
        """`batch`'s bytes as pieces to write in order (a frame each), not joined: a writer
        hands them to one ``pwritev`` instead of copying megabytes into one buffer. `threads`
        as for `frames`."""
        if self.encoding == "none":
            return [b"\n".join([*lines, b""])] if lines else []
        return self.frames(lines, first_seq, frame_cuts(lines), prev, threads=threads)

    def small_batch(self, lines: Sequence[bytes], first_seq: int, prev: bytes = b"") -> bytes:
        """`batch`'s bytes for lines known to fit one frame (their content, each line with its
        break, under FRAME_TARGET bytes): a small flush's, made without looking for cuts."""
        content = b"\n".join([*lines, b""])
        if self.encoding == "none":
            return content
        payload = self._compress([content])[0]
        return self._header(KIND_RECORDS, payload, first_seq, len(lines), prev) + payload

    def frame(self, lines: Sequence[bytes], first_seq: int, prev: bytes = b"") -> bytes:
        """One records frame holding `lines`."""
        return self.frames(lines, first_seq, [len(lines)], prev)[0]

    def frames(
        self,
        lines: Sequence[bytes],
        first_seq: int,
        cuts: Sequence[int],
        prev: bytes = b"",
        *,
        threads: int = 0,
    ) -> list[bytes]:
        """The records frames of `lines`, the k-th ending just before line ``cuts[k]`` (the
        last cut is ``len(lines)``; a writer packs full frames ahead of their write), chained
        after `prev`.

        All of them are compressed in one call where zstandard's C backend offers it: a
        writing thread then gives up the GIL once for every frame, not once each (it waits up
        to the switch interval to get it back while an appender keeps the main thread busy).
        With several frames, ``threads`` (-1: one per CPU) compresses them side by side, for a
        write that someone waits for; the frames are the same bytes either way.
        """
        contents = []
        start = 0
        for end in cuts:
            contents.append(b"\n".join([*lines[start:end], b""]))  # one copy, newline ended
            start = end
        payloads = self._compress(contents, threads)
        out = []
        start = 0
        for end, payload in zip(cuts, payloads, strict=True):
            header = self._header(KIND_RECORDS, payload, first_seq + start, end - start, prev)
            out.append(header + payload)
            prev = self.chain_of(header)
            start = end
        return out

    def _header(self, kind: int, payload: bytes, first_seq: int, count: int, prev: bytes) -> bytes:
        if not self.bound:
            return frame_header(kind, payload, first_seq, count)
        return frame_header(kind, payload, first_seq, count, prev=prev, key=self.key)

    def _frame(self, kind: int, content: bytes, first_seq: int, count: int, prev: bytes) -> bytes:
        payload = self._compress([content])[0]
        return self._header(kind, payload, first_seq, count, prev) + payload

    def _compress(self, contents: list[bytes], threads: int = 0) -> list[bytes]:
        compressor = self._compressor
        if compressor is None:
            import zstandard

            compressor = self._compressor = zstandard.ZstdCompressor(
                level=self.level, write_checksum=True, write_content_size=True
            )
        many = getattr(compressor, "multi_compress_to_buffer", None)
        if many is None or len(contents) <= 1:
            return [compressor.compress(content) for content in contents]
        return [segment.tobytes() for segment in many(contents, threads=threads)]
