"""A session's log file as its writer holds it: the lock, the descriptor, where frames end.

:meth:`LogFile.publish` makes a new log appear whole or not at all (see
:func:`~seamhost_persistence_jsonl.durable.publish`); :meth:`LogFile.append` adds whole frames
and syncs them. Every failure raises a `StorageError` after putting the file back as it was:
a failed publication leaves no log, a failed append is truncated back to the end of the last
complete frame (and, should even that fail, the next append truncates first).

It also keeps the chain digest of the last complete frame (:mod:`.binding`), which the next
frames are encoded after, and after every durable write overwrites the session's high-water
mark (:mod:`.mark`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs

from seamhost.store import SessionExists, StorageError, WriteFailed
from seamhost_persistence_jsonl.durable import make_directories, publish, sync_data, write_at
from seamhost_persistence_jsonl.locking import FileLock
from seamhost_persistence_jsonl.mark import Mark, MarkFile

if TYPE_CHECKING:
    from pathlib import Path

    from seamhost_persistence_jsonl.format import LogEncoder
    from seamhost_persistence_jsonl.layout import SessionPaths
    from seamhost_persistence_jsonl.tail import Tail

# What a commit encodes: the frames of its records (bytes: one frame), after the given digest.
Encode = Callable[[bytes], "bytes | Sequence[bytes]"]


@attrs.frozen
class OpenedLog:
    """A published log opened for writing: its path, descriptor, lock, and how it ends."""

    path: Path
    fd: int
    lock: FileLock
    tail: Tail


class LogFile:
    """The writer's side of one session log (used by one thread at a time)."""

    def __init__(
        self,
        paths: SessionPaths,
        encoder: LogEncoder,
        header_json: bytes,
        *,
        prepare_root: Callable[[], None],
        opened: OpenedLog | None = None,
        durable: int = 0,
    ) -> None:
        self.paths = paths
        self.path = opened.path if opened else paths.log(encoder.encoding)
        self._encoder = encoder
        self._header_json = header_json
        self._head: bytes | None = None  # the header frame, once made (a new log's first)
        self._prepare_root = prepare_root
        self._fd = opened.fd if opened else -1
        self._lock = opened.lock if opened else None
        self._length = opened.tail.clean_length if opened else 0
        self._dirty = opened.tail.torn_bytes > 0 if opened else False
        self._chain = opened.tail.chain if opened else b""
        self._durable = durable
        self._mark = MarkFile.open(paths.directory) if opened else None

    @property
    def published(self) -> bool:
        return self._fd >= 0

    @property
    def fd(self) -> int:
        return self._fd

    @property
    def length(self) -> int:
        """Where the last complete frame ends (the next append goes there)."""
        return self._length

    @property
    def chain(self) -> bytes:
        """The chain digest the next frame follows: the last complete frame's, or, before the
        log is published, its header frame's (made here, once, and published as made)."""
        if self._fd < 0:
            encoder = self._encoder
            if self._head is None:
                origin = encoder.origin(self.paths.session_id)
                self._head = encoder.header(self._header_json, origin)
            return encoder.chain_of(self._head)
        return self._chain

    def publish(self, data: bytes | Sequence[bytes], count: int) -> None:
        """Create the log holding `data` (its header frame first), or raise and leave none."""
        paths = self.paths
        step = "create the session directory"
        try:
            self._prepare_root()
            make_directories(paths.directory)
            if self._lock is None:
                self._lock = FileLock.acquire(paths.lock, paths.session_id)
            # Holding the lock, no one else is publishing: a temp file left is a crash's.
            step = "remove stale temp files"
            for name in os.listdir(paths.directory):
                if paths.is_temp(name):
                    os.unlink(paths.directory / name)
            step = "publish"
            temp = paths.temp(self._encoder.encoding, f"{os.getpid()}.{secrets.token_hex(4)}")
            try:
                self._fd = publish(temp, self.path, data)
            except FileExistsError:
                raise SessionExists(paths.session_id, str(self.path)) from None
            self._mark = MarkFile.open(paths.directory)
        except StorageError:
            raise
        except OSError as exc:
            raise self._failed(step, exc, count) from exc
        self._length = _size(data)

    def commit(self, encode: Encode, count: int) -> StorageError | None:
        """Make `count` records durable: the whole frames `encode(chain)` returns, appended, or
        the log published with them after its header frame if it is not yet. Returns the
        storage error if that failed, any other failure (of `encode`, say: a bug) too."""
        try:
            data = encode(self.chain)
            if self.published:
                self.append(data, count)
                written = data
            else:
                assert self._head is not None  # made by self.chain
                written = [self._head, *([data] if isinstance(data, bytes) else data)]
                self.publish(written, count)
            self._durable += count
            last = written if isinstance(written, bytes) else written[-1] if written else b""
            if last:
                self._chain = self._encoder.chain_of(last)
            if self._mark is not None:
                chain = self._chain or bytes(32)
                self._mark.write(Mark(self._durable, self._length, chain))
        except StorageError as exc:
            return exc
        except Exception as exc:  # a flush waiting for this must hear of any failure
            return WriteFailed(self.paths.session_id, "write", repr(exc), count, str(self.path))
        return None

    def append(self, data: bytes | Sequence[bytes], count: int) -> None:
        """Add `data` (whole frames) after the last complete frame and sync it."""
        offset = self._length
        step = "truncate"
        try:
            if self._dirty:
                os.ftruncate(self._fd, offset)
            step = "write"
            write_at(self._fd, data, offset)
            step = "sync"
            sync_data(self._fd)
        except OSError as exc:
            self._dirty = True
            with contextlib.suppress(OSError):  # if this fails too, the next append cuts first
                os.ftruncate(self._fd, offset)
                sync_data(self._fd)
                self._dirty = False
            raise self._failed(step, exc, count) from exc
        self._length = offset + _size(data)
        self._dirty = False

    def close(self) -> None:
        """Close the descriptors and give the lock up (the lock file stays)."""
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)
        if self._mark is not None:
            self._mark.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def forget(self) -> None:
        """In a fork of the writer's process: close this copy of the descriptor only."""
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)
        if self._mark is not None:
            self._mark.close()

    def _failed(self, step: str, exc: OSError, count: int) -> WriteFailed:
        cause = exc.strerror or str(exc)
        return WriteFailed(self.paths.session_id, step, cause, count, str(self.path))


def _size(data: bytes | Sequence[bytes]) -> int:
    return len(data) if isinstance(data, bytes) else sum(len(piece) for piece in data)
