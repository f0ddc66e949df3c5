"""One writer per session: an in-process claim, and ``flock`` on ``session.lock`` across processes.

The claim (keyed by the session directory's real path) refuses a second writer in this process,
including one for a session not yet published. The lock is an exclusive, non-blocking ``flock``
on a file that is never deleted while its session exists (deleting it would let two writers lock
two different files); deleting the session removes it, under the lock, after the directory has
been moved aside, so no writer can find it again.
The kernel releases it when its holder exits however it exits, and keeps it while a stuck holder
lives. Its descriptor is close-on-exec, and a forked child closes its copy at once, so no child
process ever holds a session. The holder writes its pid into the file for the error message of
the next writer that tries.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import weakref
from pathlib import Path

from seamhost_persistence_jsonl.errors import SessionLocked


class _Holdings:
    """What this process holds: claimed session directories and open locks."""

    def __init__(self) -> None:
        self.guard = threading.Lock()
        self.claims: set[str] = set()
        self.locks: weakref.WeakSet[FileLock] = weakref.WeakSet()
        self.fork_hook = False

    def after_fork_in_child(self) -> None:
        # The parent still owns its writers: the child must neither hold their locks (a dead
        # parent would stay "alive" to the next writer) nor believe it may write. The guard may
        # have been held by another thread of the parent at the fork, so the child gets a new one.
        self.guard = threading.Lock()
        for lock in list(self.locks):
            lock.forget()
        self.locks = weakref.WeakSet()
        self.claims = set()


_holdings = _Holdings()


def claim(directory: Path, session_id: str) -> str:
    """Claim the session in `directory` for a writer of this process; returns the claim key."""
    key = os.path.realpath(directory)
    with _holdings.guard:
        if key in _holdings.claims:
            raise SessionLocked(
                session_id, str(directory / "session.lock"), os.getpid(), in_process=True
            )
        _holdings.claims.add(key)
    return key


def release(key: str) -> None:
    with _holdings.guard:
        _holdings.claims.discard(key)


class FileLock:
    """A held ``flock`` on a session's lock file."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def acquire(cls, path: Path, session_id: str) -> FileLock:
        """Lock `path` (created if missing, mode 0600) or raise `SessionLocked` at once."""
        with _holdings.guard:
            if not _holdings.fork_hook:
                os.register_at_fork(after_in_child=_holdings.after_fork_in_child)
                _holdings.fork_hook = True
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            raise SessionLocked(session_id, str(path), pid) from None
        except BaseException:
            os.close(fd)
            raise
        # The pid is a courtesy to the next writer's error message, not part of the lock.
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        lock = cls(path, fd)
        _holdings.locks.add(lock)
        return lock

    def release(self) -> None:
        """Give the lock up (closing the descriptor releases the ``flock``)."""
        fd, self._fd = self._fd, -1
        _holdings.locks.discard(self)
        if fd >= 0:
            os.close(fd)

    def forget(self) -> None:
        """In a forked child: drop this process's copy of the descriptor, not the lock."""
        fd, self._fd = self._fd, -1
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None
