"""What a reader checks of each layout-2 frame beyond its CRCs: the chain and the MAC.

See :mod:`.binding` for what they are. A check follows the frames of one scan in order; it
says what is wrong with a frame (the reader raises it as corruption with the frame's offset) or
takes the frame's digest as the next one's predecessor, and counts what it saw, which
``session verify`` reports as the session's binding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from seamhost_persistence_jsonl.binding import FLAG_MAC, MAC_SIZE, frame_digest
from seamhost_persistence_jsonl.format import CHAIN_AT, FRAME_PREFIX, MAC_AT

if TYPE_CHECKING:
    from seamhost_persistence_jsonl.binding import MacKey
    from seamhost_persistence_jsonl.mark import Mark

_INFO = slice(FRAME_PREFIX.size, CHAIN_AT)
_CHAIN = slice(CHAIN_AT, MAC_AT)
_MAC = slice(MAC_AT, MAC_AT + MAC_SIZE)
_FLAGS = FRAME_PREFIX.size + 1

BROKEN = (
    "chain broken: this frame's chain digest is not the one the frame before it gives (a frame "
    "spliced from another session or from elsewhere in this log, frames reordered, or a frame "
    "rewritten)"
)
NO_MAC = (
    "the frame carries no MAC, and a MAC key is configured: it was written without the key "
    "(forged, or written before the key was set)"
)
BAD_MAC = "MAC mismatch: the frame was written or changed by someone without the store's key"


class ChainCheck:
    """The chain of one scan: `prev`, the digest the next frame must follow."""

    __slots__ = ("key", "keyed", "prev", "unkeyed")

    def __init__(self, prev: bytes, key: MacKey | None) -> None:
        self.prev = prev
        self.key = key
        self.keyed = 0  # frames carrying a MAC
        self.unkeyed = 0  # frames without one

    def follow(self, head: bytes, payload: bytes | memoryview) -> str | None:
        """What is wrong with the frame of header `head` and `payload`, or None (then it is
        the predecessor of the next)."""
        chain = head[_CHAIN]
        if frame_digest(self.prev, head[_INFO], payload) != chain:
            return BROKEN
        if head[_FLAGS] & FLAG_MAC:
            self.keyed += 1
            if self.key is not None and not self.key.matches(chain, head[_MAC]):
                return BAD_MAC
        else:
            self.unkeyed += 1
            if self.key is not None:
                return NO_MAC
        self.prev = chain
        return None

    def binding(self) -> str:
        """How the frames seen are bound: "keyed" (every one carries a MAC, checked when the
        check has the key), "bound" (a chain, no MAC), or "unbound" (no frame seen)."""
        if self.keyed and not self.unkeyed:
            return "keyed" if self.key is not None else "keyed (MAC not checked: no key)"
        return "bound" if self.keyed or self.unkeyed else "unbound"


class ScannedLog(Protocol):
    """What :func:`describe_binding` reads of a scan (a :class:`~.reading.LogScan`)."""

    @property
    def encoding(self) -> str:
        """The encoding: "zstd" (framed) or "none" (plain)."""

    @property
    def layout(self) -> int:
        """The layout version the log's name gives."""

    @property
    def bound(self) -> bool:
        """Whether its frames are chained (a layout-2 framed log)."""

    @property
    def chain(self) -> ChainCheck:
        """The check its frames went through."""


def describe_binding(scan: ScannedLog, mark: Mark | None) -> str:
    """How the log `scan` read is bound to its session, as ``session verify`` reports it."""
    if scan.encoding != "zstd":
        found = "unbound (a plain log has no frames to bind)"
    elif not scan.bound:
        found = f"unbound (layout {scan.layout}, written before the binding)"
    else:
        found = scan.chain.binding()
    if mark is None:
        return found + "; no mark, so a rollback of the log cannot be told"
    return found
