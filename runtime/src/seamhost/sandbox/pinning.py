"""One pinned directory or file: where it was when pinned, and a descriptor that keeps it.

A :class:`Pin` holds an ``O_PATH`` descriptor opened by walking from ``/`` one component at a
time with ``O_NOFOLLOW``, so nothing on the way is a symlink, and the ``(st_dev, st_ino)`` it
showed. The descriptor names that object for the session's life, whatever happens to its path:
the sandbox backends bind it (bubblewrap's ``--bind-fd``) or put it in their rules (Landlock
opens ``/proc/self/fd/N``), never the path. :meth:`Pin.holds` tells whether the path still
leads, with no symlink on the way, to the very same object; a pin that does not hold is
dropped for the call (it never widens anything).
"""

from __future__ import annotations

import errno
import os
import stat
import weakref
from pathlib import Path

import attrs

_WALK = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_LAST = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC  # a read-only path may be a file


def open_beneath_root(path: Path, *, directory: bool = True) -> int:
    """An ``O_PATH`` descriptor of the real path `path`; raises ``OSError`` at any symlink.

    `path` is absolute, without ``..``. A symlink on the way fails ``ENOTDIR`` (``O_DIRECTORY``
    with ``O_NOFOLLOW``); a final symlink, when `directory` is false, is opened as the link
    itself and refused here with ``ELOOP``.
    """
    fd = os.open("/", _WALK)
    try:
        parts = path.parts[1:]
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            child = os.open(part, _LAST if last and not directory else _WALK, dir_fd=fd)
            os.close(fd)
            fd = child
        if not directory and stat.S_ISLNK(os.fstat(fd).st_mode):
            raise OSError(errno.ELOOP, "a symlink", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


@attrs.frozen(eq=False)
class Pin:
    """A path resolved once; `fd` is ``None`` when nothing was there then."""

    path: Path  # the real path when it was pinned
    fd: int | None = None  # an O_PATH descriptor of what was there (closed with the pin)
    identity: tuple[int, int] | None = None  # (st_dev, st_ino) of what was there

    @classmethod
    def take(cls, real: Path, *, directory: bool = True) -> Pin:
        """Pin the real path `real` (missing: an empty pin); raises ``OSError`` at a symlink."""
        try:
            fd = open_beneath_root(real, directory=directory)
        except FileNotFoundError:
            return cls(real)
        info = os.fstat(fd)
        pin = cls(real, fd, (info.st_dev, info.st_ino))
        _CLOSERS[pin] = weakref.finalize(pin, os.close, fd)
        return pin

    def release(self) -> None:
        """Close the descriptor now, not when the pin is collected (once; later calls do
        nothing). Only once nothing will use the pin again: its `fd` number may be reused."""
        closer = _CLOSERS.pop(self, None)
        if closer is not None:
            closer()

    def holds(self) -> bool:
        """Whether `path` still leads, through no symlink, to what was pinned."""
        if self.fd is None:
            return False
        try:
            fd = open_beneath_root(self.path, directory=False)
        except OSError:
            return False
        try:
            info = os.fstat(fd)
        finally:
            os.close(fd)
        return (info.st_dev, info.st_ino) == self.identity


# Each pin's closer, so that `release` can close its descriptor before the pin is collected (a
# session's pipeline may sit in a reference cycle until the collector runs).
_CLOSERS: weakref.WeakKeyDictionary[Pin, weakref.finalize[[int], Pin]] = weakref.WeakKeyDictionary()
