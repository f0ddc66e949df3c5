"""Replacing a file atomically and durably, once the path policy has opened it.

A file is replaced, never written in place (:meth:`Replacement.commit`). The new bytes go to a
temporary file in the same directory, ``.<name>.<16 random hex digits>.seamhost-tmp``, created
exclusively and never through a symlink, mode 0600 while it is written. It then takes the old
file's mode, and its owner and group as far as the process may set them (a new file takes the
mode ``open(path, "w")`` would give it under the process's umask), is fsynced, renamed over the
target, and the directory is fsynced so the rename itself survives a crash. So after a crash, a
kill or a full disk at any point the target holds its old bytes or its new ones, never a mix or
nothing; a failure before the rename removes the temporary file and leaves the target
untouched. A process killed mid-write can leave its temporary file behind, which is safe to
delete.

What a replacement does not keep: the inode (the file is a new one; a descriptor open on the old
file keeps reading the old content), extended attributes and ACLs (not copied; the new file gets
whatever the directory gives new files), and other names: a file with more than one hard link is
refused in every mode, since replacing one name would leave the others with the old content
(`PathDenied` when confining, `HardLinkedFile` in ``danger-full-access``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from types import TracebackType


@attrs.define(eq=False)
class Replacement:
    """A file about to be replaced, from :meth:`PathPolicy.open_for_replace`.

    It holds the directory the policy walked to and, when the file exists, the descriptor the
    policy checked; a context manager that closes both. :meth:`read` gives the content the file
    had when it was opened; :meth:`commit` replaces it atomically and durably. Not a value but
    a holder of descriptors, so not frozen: closing it is a change of state.
    """

    path: Path  # the real path that was judged
    _dir_fd: int = attrs.field(alias="dir_fd")
    _name: str = attrs.field(alias="name")
    _fd: int | None = attrs.field(alias="fd")  # None: there is no file yet
    _info: os.stat_result | None = attrs.field(alias="info")  # of `_fd`, taken when checked
    _closed: bool = attrs.field(default=False, init=False)

    @property
    def created(self) -> bool:
        """Whether the commit makes a new file: there was none when it was opened."""
        return self._fd is None

    @property
    def size(self) -> int:
        """The size of the file when it was opened (0 when there was none)."""
        return 0 if self._info is None else self._info.st_size

    def read(self) -> bytes:
        """The whole content of the file that was opened (empty when there was none)."""
        self._check_open()
        if self._fd is None:
            return b""
        chunks = []
        offset = 0
        while chunk := os.pread(self._fd, _READ_CHUNK, offset):
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks)

    def commit(self, data: bytes) -> None:
        """Replace the file with `data`: after a crash at any point it holds the old or the new.

        Writes a temporary file beside it, gives it the old file's mode (and owner and group,
        when the process may set them; a new file gets the umask's mode), fsyncs it, renames it
        over the target and fsyncs the directory. Any failure before the rename removes the
        temporary file and leaves the target untouched. A failure of the final directory fsync
        is raised with the new content already in place but not known to be durable.
        """
        self._check_open()
        temp = _temp_name(self._name)
        fd = os.open(temp, _TEMP_FLAGS, 0o600, dir_fd=self._dir_fd)
        try:
            try:
                _write_all(fd, data)
                self._give_attributes(fd)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(temp, self._name, src_dir_fd=self._dir_fd, dst_dir_fd=self._dir_fd)
        except BaseException:
            # After a rename that did happen there is nothing left under `temp` to remove.
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=self._dir_fd)
            raise
        os.fsync(self._dir_fd)

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError(f"the replacement of {self.path} is closed; open it again")

    def _give_attributes(self, fd: int) -> None:
        """Give the temporary file `fd` what the replaced file had, or a new file's mode."""
        if self._info is None:
            os.fchmod(fd, _NEW_FILE_MODE & ~_umask())
            return
        own = os.fstat(fd)
        wanted = (self._info.st_uid, self._info.st_gid)
        if (own.st_uid, own.st_gid) != wanted:
            _change_owner(fd, *wanted)
        # After the owner: changing it clears the set-user-ID and set-group-ID bits.
        os.fchmod(fd, stat.S_IMODE(self._info.st_mode))

    def close(self) -> None:
        """Close the descriptors (once; again does nothing); nothing can be committed after."""
        if self._closed:
            return
        self._closed = True
        if self._fd is not None:
            os.close(self._fd)
        os.close(self._dir_fd)

    def __enter__(self) -> Replacement:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP_SUFFIX = ".seamhost-tmp"
_TEMP_NAME_BYTES = 80  # of the target's name kept in the temporary one, well under NAME_MAX
_NEW_FILE_MODE = 0o666  # what open() asks for, before the umask
_READ_CHUNK = 1 << 20
_UMASK_LOCK = threading.Lock()


def _temp_name(name: str) -> str:
    """A fresh name beside `name`: hidden, naming the file it replaces, random, ours by suffix."""
    kept = os.fsencode(name)[:_TEMP_NAME_BYTES].decode("utf-8", "ignore")
    return f".{kept}.{os.urandom(8).hex()}{_TEMP_SUFFIX}"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _umask() -> int:
    """The process's umask, read without changing it when ``/proc`` shows it."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    # No /proc here: the only other way is to set it and put it back. The lock keeps two
    # replacements from reading each other's value; meanwhile the stricter mask can only narrow
    # what another thread creates, never widen it.
    with _UMASK_LOCK:
        mask = os.umask(0o077)
        os.umask(mask)
    return mask


def _change_owner(fd: int, uid: int, gid: int) -> None:
    """Give `fd` this owner and group, or as much of them as the process may set."""
    # Without the right to give the owner, the group may still be given: the process's own.
    for owner in (uid, -1):
        try:
            os.fchown(fd, owner, gid)
        except OSError as exc:
            if exc.errno != errno.EPERM:
                raise
        else:
            return
