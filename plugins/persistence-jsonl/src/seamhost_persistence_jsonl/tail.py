"""How a scanned log ends: what a writer that opens it continues from."""

from __future__ import annotations

import attrs

from seamhost import MalformedRecord, Record, parse_envelope


@attrs.frozen
class Tail:
    """How a log ends: where its last complete write ends, and what follows it."""

    clean_length: int  # a writer appends here (after cutting what follows)
    size: int  # the bytes the scan looked at
    torn_records: tuple[Record, ...] = ()  # decoded from a torn frame: to be written again
    chain: bytes = b""  # the chain digest of the frame ending at clean_length (layout 2)

    @property
    def torn_bytes(self) -> int:
        return self.size - self.clean_length


def decode_torn(partial: bytes, first: int, count: int) -> list[Record]:
    """The complete records that decode from `partial`, the payload bytes of a torn frame
    holding records `first` to ``first + count`` (maybe none)."""
    import zstandard

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
        records.append(record)
        start = end + 1
    return records
