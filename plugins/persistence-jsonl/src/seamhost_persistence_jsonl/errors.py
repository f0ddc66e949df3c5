"""The errors only persistence-jsonl raises, under :class:`seamhost.store.StorageError`.

Those every store raises alike (a missing or corrupted session, a rejected batch, a failed
write...) are :mod:`seamhost.store`'s; these are about what only a store of files has: session
directories, writer locks, one encoding per root, a MAC key file. Each names the session (or the
file) and says what to do.
"""

from __future__ import annotations

from seamhost.store import StorageError


class InvalidSessionId(StorageError, ValueError):
    """A session id cannot name a session directory."""

    session_id: str
    problem: str

    def __str__(self) -> str:
        return f"session id {self.session_id!r} cannot be stored: {self.problem}; use another id"


class SessionLocked(StorageError, RuntimeError):
    """Another writer holds the session: in this process, or another one (`pid` when known)."""

    session_id: str
    lock: str
    pid: int | None = None
    in_process: bool = False

    def __str__(self) -> str:
        if self.in_process:
            holder = f"by another writer in this process (pid {self.pid})"
        elif self.pid is not None:
            holder = f"by process {self.pid}"
        else:
            holder = "by another process"
        return (
            f"session {self.session_id!r} is already open for writing {holder} "
            f"(lock {self.lock}); close that writer or wait for that process to exit"
        )


class UnexpectedFiles(StorageError, OSError):
    """A session directory holds files persistence-jsonl did not write, so it is not deleted."""

    session_id: str
    directory: str
    names: tuple[str, ...]

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r} was not deleted: {self.directory} also holds "
            f"{', '.join(self.names)}, which persistence-jsonl did not write; move them "
            "elsewhere, then delete the session again"
        )


class MixedEncoding(StorageError, ValueError):
    """A store would write one encoding into a root that holds the other."""

    root: str
    found: str
    configured: str

    def __str__(self) -> str:
        return (
            f"{self.root} holds sessions encoded as {self.found!r} but this store writes "
            f"{self.configured!r}; one root holds one encoding: set "
            f'compression = "{self.found}" or use another root'
        )


class MacKeyRefused(StorageError, ValueError):
    """The MAC key file cannot serve as the store's key (`problem` says why)."""

    path: str
    problem: str

    def __str__(self) -> str:
        return (
            f"the MAC key file {self.path} is refused: {self.problem}; a key file is a regular "
            "file of this user, mode 0600, outside the store root, holding at least 16 random "
            "bytes (e.g. `head -c 32 /dev/urandom > FILE && chmod 600 FILE`)"
        )
