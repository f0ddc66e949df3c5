"""Deleting a session: under its writer lock, by moving its directory aside, then emptying it.

The order is what makes a deletion safe against a writer and against a crash:

1. claim the session in this process and take its ``flock`` (a live writer refuses the deletion,
   with the same error a second writer gets);
2. run the caller's check with the session held (it may read the session; if it raises,
   nothing is touched);
3. refuse a directory that holds anything persistence-jsonl did not write there (a file
   someone put beside the log is never deleted with it);
4. rename the directory to ``.deleted-<name>-<token>`` in the root (atomic: the session is
   listed and readable until this instant, never after), fsync the root;
5. unlink the log, temps and lock file inside the renamed directory, remove it, fsync the root.

A writer that opened the lock file before step 4 finds it locked; one that looks after it finds
no session. A crash between 4 and 5 leaves a ``.deleted-*`` directory, which no session id
escapes to (ids never begin with a ``.``), so it is never listed; the next deletion under the
root removes it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from seamhost.store import SessionNotFound
from seamhost_persistence_jsonl import locking
from seamhost_persistence_jsonl.durable import sync_directory
from seamhost_persistence_jsonl.errors import UnexpectedFiles
from seamhost_persistence_jsonl.format import (
    LOCK_NAME,
    LOG_NAME,
    PIECES_NAME,
    SNAPSHOT_NAME,
    TEMP_SUFFIX,
)
from seamhost_persistence_jsonl.layout import SessionPaths
from seamhost_persistence_jsonl.mark import MARK_NAME

TRASH_PREFIX = ".deleted-"


def delete_session(paths: SessionPaths, check: Callable[[], None] | None) -> None:
    """Remove the session at `paths` (see the module docstring for the order of steps)."""
    claim = locking.claim(paths.directory, paths.session_id)
    lock: locking.FileLock | None = None
    try:
        if not _published(paths.directory):
            raise SessionNotFound(paths.session_id, str(paths.root), root=True)
        lock = locking.FileLock.acquire(paths.lock, paths.session_id)
        if check is not None:
            check()
        strangers = [name for name in sorted(os.listdir(paths.directory)) if not _ours(name)]
        if strangers:
            raise UnexpectedFiles(paths.session_id, str(paths.directory), tuple(strangers))
        trash = paths.root / f"{TRASH_PREFIX}{paths.directory.name}-{secrets.token_hex(4)}"
        os.rename(paths.directory, trash)
        sync_directory(paths.root)
        _empty(trash)
        sync_directory(paths.root)
    finally:
        if lock is not None:
            lock.release()
        locking.release(claim)
    sweep_trash(paths.root)


def sweep_trash(root: Path) -> None:
    """Finish deletions a crash interrupted: remove the ``.deleted-*`` directories of `root`."""
    try:
        names = [name for name in os.listdir(root) if name.startswith(TRASH_PREFIX)]
    except FileNotFoundError:
        return
    for name in names:
        with contextlib.suppress(OSError):  # another deletion may be emptying it right now
            _empty(root / name)


def _published(directory: Path) -> bool:
    """The directory holds a log (of any layout version: deleting one needs no reading)."""
    try:
        return any(LOG_NAME.match(name) for name in os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return False


def _ours(name: str) -> bool:
    return (
        name in (LOCK_NAME, MARK_NAME, SNAPSHOT_NAME, PIECES_NAME)
        or LOG_NAME.match(name) is not None
        or (name.startswith(".session.") and name.endswith(TEMP_SUFFIX))
    )


def _empty(directory: Path) -> None:
    """Unlink the regular files of `directory` (never following a link), then remove it."""
    with os.scandir(directory) as entries:
        for entry in entries:
            if _ours(entry.name) and not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.path)
    os.rmdir(directory)
