"""Text for the model: bytes decoded as UTF-8, and markers that say what was cut and why."""

from __future__ import annotations

import codecs


def decode(data: bytes, *, cut: bool = False) -> str:
    """`data` as text, invalid UTF-8 replaced by U+FFFD.

    When `data` was cut at a byte limit, a character the cut split in two is dropped instead of
    showing up as a replacement character.
    """
    if not cut:
        return data.decode("utf-8", "replace")
    return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=False)


def cap(data: bytes, limit: int) -> tuple[bytes, bool]:
    """At most `limit` bytes of `data`, and whether anything was left out."""
    return data[:limit], len(data) > limit


def marker(note: str) -> str:
    """The line appended to content that was cut, so a reader can never miss it."""
    return f"[... {note}]"


def size(count: int) -> str:
    """A byte count for people: ``512 bytes``, ``64 KiB``, ``1.5 MiB``."""
    if count < 1024:
        return f"{count} bytes"
    value = float(count)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            break
    return f"{value:.0f} {unit}" if value >= 100 else f"{value:.3g} {unit}"
