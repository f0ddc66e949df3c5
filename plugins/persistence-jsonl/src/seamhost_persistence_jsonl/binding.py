"""How a layout-2 log is bound to its session: the chain of frame digests and the optional MAC.

Chain
=====

Every frame of a layout-2 framed log carries a chain digest (:mod:`.format`, bytes 32..64 of
its header)::

    origin = BLAKE2b-256(session id, UTF-8; person "seamhost-origin")
    d_0    = BLAKE2b-256(origin  || info_0 || payload_0; person "seamhost-frame")  header frame
    d_k    = BLAKE2b-256(d_(k-1) || info_k || payload_k; person "seamhost-frame")

where ``info_k`` is bytes 8..32 of frame k's header: its kind, flags, payload length, first seq,
record count and payload CRC. A frame is so bound to its session (through the origin), to its
place (its seqs and everything before it) and to its bytes. A frame spliced from another
session or another point of the same log, two frames swapped, one rewritten: its digest is not
the one its predecessor gives, and the reader refuses it with its byte offset.

The chain alone is evidence against accident and against a writer who does not recompute it;
whoever can write the store can recompute every digest. With a **key** (``mac_key_file``),
every frame also carries ``MAC_k = BLAKE2b-128(d_k; key; person "seamhost-mac")`` and the
FLAG_MAC flag: since ``d_k`` stands for the whole log up to frame k, a MAC over it authenticates
that whole prefix, and the write path pays one hash of 32 bytes per frame for it. A reader with
the key refuses a frame without a MAC or with a wrong one; a reader without it checks the chain
and reports the MACs as not checked.

What neither can see is a log cut back to one of its own earlier frame boundaries: that prefix
is a valid log. :mod:`.mark` keeps the evidence of how far the log had been durable.

The frame payload is hashed in pieces below hashlib's GIL threshold by the writing thread, for
the reason :func:`~seamhost_persistence_jsonl.format.crc32_holding_gil` gives.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from pathlib import Path

from seamhost_persistence_jsonl.errors import MacKeyRefused

DIGEST_SIZE = 32
MAC_SIZE = 16
FLAG_MAC = 1  # in a frame header's flags: the frame carries a MAC
NO_MAC = bytes(MAC_SIZE)
_ORIGIN, _FRAME, _MAC, _KEY = (
    b"seamhost-origin",
    b"seamhost-frame",
    b"seamhost-mac",
    b"seamhost-key",
)
_SNAP = b"seamhost-snap"
# hashlib gives the GIL up while it hashes 2048 bytes or more at once.
_HASH_PIECE = 2047
MIN_KEY_BYTES = 16


def origin(session_id: str) -> bytes:
    """The digest that comes before a session's header frame: it binds the chain to the id."""
    return hashlib.blake2b(session_id.encode(), digest_size=DIGEST_SIZE, person=_ORIGIN).digest()


# Copying a hash made once costs a small frame less than making one with its parameters.
_FRAME_HASH = hashlib.blake2b(digest_size=DIGEST_SIZE, person=_FRAME)


def frame_digest(prev: bytes, info: bytes, payload: bytes | memoryview) -> bytes:
    """``d_k`` of a frame whose header's bytes 8..32 are `info`, after the digest `prev`."""
    digest = _FRAME_HASH.copy()
    if len(payload) <= _HASH_PIECE - 64:  # one call for a small frame, its parts joined
        digest.update(prev + info + payload)
    else:
        digest.update(prev + info)
        view = memoryview(payload)
        for start in range(0, len(view), _HASH_PIECE):
            digest.update(view[start : start + _HASH_PIECE])
    return digest.digest()


class MacKey:
    """The store's MAC key, read from a file outside the store that only its owner may read."""

    __slots__ = ("_key", "path")

    def __init__(self, secret: bytes, path: str) -> None:
        # Derived, so that a key file of any length (at least MIN_KEY_BYTES) makes a BLAKE2b key.
        self._key = hashlib.blake2b(secret, digest_size=64, person=_KEY).digest()
        self.path = path

    def __repr__(self) -> str:
        return f"MacKey({self.path!r})"  # never the key

    def tag(self, digest: bytes) -> bytes:
        """The MAC of the chain digest `digest`."""
        return hashlib.blake2b(digest, digest_size=MAC_SIZE, key=self._key, person=_MAC).digest()

    def matches(self, digest: bytes, tag: bytes) -> bool:
        return hmac.compare_digest(self.tag(digest), tag)

    def snapshot_tag(self, data: bytes) -> bytes:
        """The MAC of a resume snapshot's `data` (.snapshots), apart from any frame's."""
        return hashlib.blake2b(data, digest_size=MAC_SIZE, key=self._key, person=_SNAP).digest()

    def snapshot_matches(self, data: bytes, tag_hex: bytes) -> bool:
        return hmac.compare_digest(self.snapshot_tag(data).hex().encode(), tag_hex)

    @classmethod
    def load(cls, path: Path, store_root: Path) -> MacKey:
        """Read the key file at `path`; raises `MacKeyRefused` naming what is wrong with it.

        The file must be a regular file of the current user, readable by no one else (mode 0600
        or 0400), of at least MIN_KEY_BYTES bytes, and outside the store root: a key the store's
        writers can read proves nothing against them.
        """
        shown = str(path)
        real, root = os.path.realpath(path), os.path.realpath(store_root)
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            raise MacKeyRefused(shown, f"it lies inside the store root {store_root}")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError as exc:
            raise MacKeyRefused(shown, exc.strerror or str(exc)) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise MacKeyRefused(shown, "it is not a regular file")
            if info.st_mode & 0o077:
                mode = f"{stat.S_IMODE(info.st_mode):04o}"
                raise MacKeyRefused(shown, f"its mode is {mode}; run `chmod 600 {shown}`")
            if info.st_uid != os.geteuid():
                raise MacKeyRefused(shown, f"it belongs to uid {info.st_uid}, not to this user")
            secret = os.read(fd, 1 << 16)
        finally:
            os.close(fd)
        if len(secret) < MIN_KEY_BYTES:
            raise MacKeyRefused(
                shown, f"it holds {len(secret)} bytes; a key needs at least {MIN_KEY_BYTES} random"
            )
        return cls(secret, shown)
