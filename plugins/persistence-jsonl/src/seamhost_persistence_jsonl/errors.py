"""The errors of the persistence-jsonl store, rooted in :class:`StorageError`.

Each names the session (and the file or offset where it knows them) and says what to do.
"""

from __future__ import annotations

from seamhost.errors import SeamhostError, SessionDamaged, SessionMissing


class StorageError(SeamhostError):
    """Base of every error the persistence-jsonl store raises."""


class InvalidSessionId(StorageError, ValueError):
    """A session id cannot name a session directory."""

    session_id: str
    problem: str

    def __str__(self) -> str:
        return f"session id {self.session_id!r} cannot be stored: {self.problem}; use another id"


class SessionNotFound(StorageError, SessionMissing):
    """No published session has this id under the store root."""

    session_id: str
    root: str

    def __str__(self) -> str:
        return (
            f"no session {self.session_id!r} under {self.root}; "
            f"`seamhost session ls --root {self.root}` lists the sessions stored there"
        )


class SessionExists(StorageError, FileExistsError):
    """A session with this id is already stored, so it cannot be created again."""

    session_id: str
    path: str

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r} already exists ({self.path}); "
            "open it to continue it, or create a session with another id"
        )


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


class SessionCorrupted(StorageError, SessionDamaged):
    """A complete part of a session log is damaged: the log is refused, not truncated."""

    session_id: str
    path: str
    offset: int
    problem: str

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r} is corrupted at byte {self.offset} of {self.path}: "
            f"{self.problem}; the records before that byte are intact; restore the file from "
            "a backup or move it aside (it is never repaired by truncation)"
        )


class UnsupportedFormat(StorageError, ValueError):
    """A session was written in a format newer than this seamhost reads."""

    session_id: str
    path: str
    found: int
    supported: int

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r} ({self.path}) uses format {self.found}, newer than "
            f"format {self.supported} which this seamhost reads; upgrade seamhost to read it"
        )


class UnknownRecordType(StorageError, ValueError):
    """A stored record has a type the reader does not know and that is not marked ignorable."""

    session_id: str
    path: str
    offset: int
    seq: int
    type: str

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r}: record seq {self.seq} (frame at byte {self.offset} "
            f"of {self.path}) has the unknown type {self.type!r} and is not marked ignorable; "
            "install the plugin that defines it or upgrade seamhost"
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


class BatchRejected(StorageError, ValueError):
    """Records were handed over out of sequence: their first seq is not the next one stored."""

    session_id: str
    expected: int
    got: int

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r}: a record with seq {self.got} was handed over where "
            f"seq {self.expected} comes next; records were lost or submitted twice upstream, "
            "reopen the session to continue it"
        )


class WriteFailed(StorageError, OSError):
    """Writing or syncing a batch failed; the file was cut back and the batch stays pending."""

    session_id: str
    path: str
    operation: str
    cause: str
    pending: int

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r}: {self.operation} of {self.path} failed ({self.cause}); "
            f"{self.pending} record(s) stay pending and the next flush retries them; "
            "free disk space or fix the permissions of the store root"
        )


class WriterClosed(StorageError, RuntimeError):
    """A writer was used after `close()`, or in a process it does not belong to."""

    session_id: str
    reason: str

    def __str__(self) -> str:
        return f"the writer of session {self.session_id!r} {self.reason}; open the session again"


class ForeignSession(StorageError, TypeError):
    """``session/flush`` was asked to flush a session this store does not hold."""

    session_id: str
    writer: str

    def __str__(self) -> str:
        return (
            f"session {self.session_id!r} is written by {self.writer}, not by persistence-jsonl, "
            "so this store cannot make it durable; open the session on the bundle's own store"
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
