"""Where a path really leads, resolved component by component as the kernel resolves it.

Every symlink is followed (at most as many as Linux follows) and every ``..`` is applied to the
directory actually reached, so the path policy judges a write by where it lands, not by how it
is spelled.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_FILESYSTEM_ROOT = Path("/")
_MAX_LINKS = 40  # symlinks followed in one resolution, as Linux allows


def real_target(lexical: Path) -> tuple[Path, bool]:
    """Where a write to `lexical` lands, and whether a final symlink was followed to get there."""
    if lexical.name in ("", ".."):
        return resolve(lexical), False
    via_link = (resolve(lexical.parent) / lexical.name).is_symlink()
    return resolve(lexical), via_link


def resolve(path: Path) -> Path:
    """The real path the operating system reaches through `path`, whose tail may not exist yet.

    Resolution goes as the kernel's does, one component at a time: a symlink is replaced by its
    target (at most `_MAX_LINKS` of them), ``..`` goes up from the directory reached so far, and
    a missing component starts a tail that is kept by name. ``os.path.realpath`` differs where
    the kernel refuses, and so this raises what the kernel would: ``..`` after a missing
    component (``ENOENT``), anything after a non-directory (``ENOTDIR``), a loop (``ELOOP``).
    """
    pending = list(reversed(path.parts[1:]))
    real = _FILESYSTEM_ROOT
    missing = False  # `real` does not exist; what follows is kept by name
    links = 0
    while pending:
        part = pending.pop()
        if part == "..":
            if missing:
                raise FileNotFoundError(errno.ENOENT, "no such directory before '..'", str(path))
            real = real.parent
            continue
        real = real / part
        if missing:
            continue
        try:
            info = os.lstat(real)
        except FileNotFoundError:
            missing = True
            continue
        if stat.S_ISLNK(info.st_mode):
            links += 1
            if links > _MAX_LINKS:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
            target = Path(os.readlink(real))
            real = _FILESYSTEM_ROOT if target.is_absolute() else real.parent
            pending.extend(reversed(target.parts[1:] if target.is_absolute() else target.parts))
        elif pending and not stat.S_ISDIR(info.st_mode):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(real))
    return real


def hard_links(path: Path) -> int:
    """The link count of `path` when it is an existing regular file, else 1."""
    try:
        info = path.lstat()
    except OSError:
        return 1
    return info.st_nlink if stat.S_ISREG(info.st_mode) else 1


def is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False
