"""Publishing a session's log in the current layout beside its older generation.

A log of layout 1 (``session.v1.*``) is read as it is (:mod:`.reading` migrates it in memory)
and a writer that opens it keeps appending layout-1 frames: nothing rewrites a log on its own.
``seamhost store migrate`` publishes generation 2 explicitly, one session at a time:

1. The session's writer lock is taken (non-blocking): a session being written is refused, and
   no well-behaved writer can start while the copy runs.
2. The old log's size and BLAKE2b digest are taken; its records are read (with the records of a
   torn tail, which a writer would have written again) and encoded in layout 2, chained to the
   session and, in a keyed store, MAC'd under its key, into a new temp file (``O_EXCL``), which
   is synced.
3. The old log's size and digest are taken again: if either changed (a writer that does not
   honour the lock appended, a copy was put back), the temp file is removed and the session is
   refused; nothing was published, nothing overwritten.
4. The session's mark (:mod:`.mark`, which names the old log's offsets) is removed, the temp
   file is linked as ``session.v2.*`` (``link()`` never replaces a log: a generation 2 that
   appeared meanwhile refuses the session), the directory is synced, and a mark for the new log
   written. A resume snapshot (offsets in the old log) is removed: the next writer makes one.
5. The old generation stays, untouched, unless ``--remove-old`` asks: then it is removed once
   the new log is published, or, on a later run, once the new log is found to hold exactly the
   old one's records. Readers take the newest layout they read, so from step 4 on the session is
   read, resumed and verified in layout 2; the old log is a frozen copy (for a seamhost that
   reads layout 1 only).

A crash at any step leaves either no ``session.v2.*`` (a temp file the next writer removes) or a
complete, synced one; a missing mark is ignored by readers. Running it again is idempotent.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

import attrs

from seamhost import jsonvalue
from seamhost.store import StorageError
from seamhost_persistence_jsonl import locking
from seamhost_persistence_jsonl.durable import create_exclusive, sync_data, sync_directory, write_at
from seamhost_persistence_jsonl.errors import SessionLocked
from seamhost_persistence_jsonl.format import (
    LAYOUT_VERSION,
    LOG_NAME,
    PIECES_NAME,
    SNAPSHOT_NAME,
    Encoding,
    LogEncoder,
)
from seamhost_persistence_jsonl.mark import MARK_NAME, Mark, MarkFile
from seamhost_persistence_jsonl.reading import LogScan

if TYPE_CHECKING:
    from pathlib import Path

    from seamhost import EventCatalog
    from seamhost_persistence_jsonl.binding import MacKey
    from seamhost_persistence_jsonl.layout import SessionPaths

Outcome = Literal["migrated", "would-migrate", "current", "migrated-before", "refused"]
_READ_PIECE = 1 << 20


@attrs.frozen
class LayoutMigration:
    """What migrating one session did (or, dry, would do)."""

    session_id: str
    outcome: Outcome
    from_layout: int | None = None  # the layout of the old generation found
    records: int | None = None  # records copied (or to copy)
    source_bytes: int | None = None
    removed_old: bool = False
    reason: str | None = None  # why it was refused, or what was found

    @property
    def refused(self) -> bool:
        return self.outcome == "refused"

    def to_json(self) -> dict[str, object]:
        return {
            "session_id": self.session_id,
            "outcome": self.outcome,
            "from_layout": self.from_layout,
            "to_layout": LAYOUT_VERSION,
            "records": self.records,
            "source_bytes": self.source_bytes,
            "removed_old": self.removed_old,
            "reason": self.reason,
        }


@attrs.frozen
class Fingerprint:
    """A file's size and BLAKE2b-256 digest, read through one descriptor."""

    size: int
    digest: str

    @classmethod
    def of(cls, path: Path) -> Fingerprint:
        digest = hashlib.blake2b(digest_size=32)
        size = 0
        with open(path, "rb") as file:
            while piece := file.read(_READ_PIECE):
                digest.update(piece)
                size += len(piece)
        return cls(size, digest.hexdigest())

    def __str__(self) -> str:
        return f"{self.size} bytes, blake2b {self.digest[:16]}"


def generations(paths: SessionPaths) -> dict[int, tuple[Path, Encoding]]:
    """Every published log of the session by layout (of the encodings found, the first)."""
    found: dict[int, tuple[Path, Encoding]] = {}
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        for name in sorted(os.listdir(paths.directory)):
            match = LOG_NAME.match(name)
            if match is not None:
                encoding: Encoding = "zstd" if match.group(2) else "none"
                found.setdefault(int(match.group(1)), (paths.directory / name, encoding))
    return found


class Migrator:
    """Migrates the sessions of one store: its catalog, zstd level and key (see the module)."""

    def __init__(self, catalog: EventCatalog, level: int, key: MacKey | None) -> None:
        self.catalog = catalog
        self.level = level
        self.key = key

    def migrate(
        self,
        paths: SessionPaths,
        *,
        dry_run: bool = False,
        remove_old: bool = False,
        on_copied: Callable[[str, int], None] | None = None,
    ) -> LayoutMigration:
        """Migrate one session; `on_copied(id, records)` is called once the copy is synced and
        before the old log is checked again (a progress report)."""
        session_id = paths.session_id
        lock: locking.FileLock | None = None
        try:
            claim = locking.claim(paths.directory, session_id)
        except SessionLocked as exc:
            return LayoutMigration(session_id, "refused", reason=str(exc))
        try:
            # Taken by a dry run too, so that it reports a session being written as refused.
            try:
                lock = locking.FileLock.acquire(paths.lock, session_id)
            except SessionLocked as exc:
                return LayoutMigration(session_id, "refused", reason=str(exc))
            return self._migrate(paths, dry_run, remove_old, on_copied)
        except (OSError, StorageError) as exc:  # a damaged old log, a full disk: this one only
            reason = str(exc) if isinstance(exc, StorageError) else exc.strerror or str(exc)
            return LayoutMigration(
                session_id, "refused", reason=f"{reason}; nothing was overwritten"
            )
        finally:
            if lock is not None:
                lock.release()
            locking.release(claim)

    def _migrate(
        self,
        paths: SessionPaths,
        dry_run: bool,
        remove_old: bool,
        on_copied: Callable[[str, int], None] | None,
    ) -> LayoutMigration:
        session_id = paths.session_id
        found = generations(paths)
        current = found.get(LAYOUT_VERSION)
        old = {layout: log for layout, log in found.items() if layout < LAYOUT_VERSION}
        if not old:
            return LayoutMigration(session_id, "current", LAYOUT_VERSION)
        from_layout = max(old)
        source, encoding = old[from_layout]
        if current is not None:
            return self._published_before(
                paths, from_layout, (source, encoding), current, remove_old, dry_run=dry_run
            )
        before = Fingerprint.of(source)
        header_json, lines = self._read(session_id, source, encoding)
        if dry_run:
            size = before.size
            return LayoutMigration(session_id, "would-migrate", from_layout, len(lines), size)
        encoder = LogEncoder(encoding, self.level, key=self.key)
        head = encoder.header(header_json, encoder.origin(session_id))
        body = encoder.batch_pieces(lines, 0, encoder.chain_of(head)) if lines else []
        chain = encoder.chain_of(body[-1] if body else head)
        target = paths.log(encoding)
        temp = paths.temp(encoding, f"{os.getpid()}.{secrets.token_hex(4)}")
        fd = create_exclusive(temp)
        try:
            try:
                write_at(fd, [head, *body], 0)
                sync_data(fd)
                size = os.fstat(fd).st_size
            finally:
                os.close(fd)
            if on_copied is not None:
                on_copied(session_id, len(lines))
            after = Fingerprint.of(source)
            if after != before:
                return LayoutMigration(
                    session_id,
                    "refused",
                    from_layout,
                    len(lines),
                    before.size,
                    reason=f"{source.name} changed during the copy ({before} before, {after} "
                    "after): a writer that does not take the session lock is at work; nothing "
                    "was published",
                )
            with contextlib.suppress(FileNotFoundError):
                os.unlink(paths.directory / MARK_NAME)  # it names the old log's offsets
            try:
                os.link(temp, target)
            except FileExistsError:
                return LayoutMigration(
                    session_id, "refused", from_layout, len(lines), before.size,
                    reason=f"{target.name} appeared during the copy; nothing was overwritten",
                )  # fmt: skip
            sync_directory(paths.directory)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
        mark = MarkFile.open(paths.directory)
        if mark is not None:
            mark.write(Mark(len(lines), size, chain or bytes(32)))
            mark.close()
        for stale in (SNAPSHOT_NAME, PIECES_NAME):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(paths.directory / stale)
        if remove_old:
            self._remove(source)
        return LayoutMigration(
            session_id, "migrated", from_layout, len(lines), before.size, removed_old=remove_old
        )

    def _published_before(
        self,
        paths: SessionPaths,
        from_layout: int,
        old: tuple[Path, Encoding],
        current: tuple[Path, Encoding],
        remove_old: bool,
        *,
        dry_run: bool,
    ) -> LayoutMigration:
        """Generation 2 is there already: the old one goes only if it holds no other records
        than the new one's first ones (a writer of layout 1 only may have appended to it)."""
        session_id = paths.session_id
        source, old_encoding = old
        size = os.stat(source).st_size
        if not remove_old:
            return LayoutMigration(
                session_id, "migrated-before", from_layout, source_bytes=size,
                reason=f"{source.name} is kept beside {current[0].name} (--remove-old removes it)",
            )  # fmt: skip
        _, old_lines = self._read(session_id, source, old_encoding)
        _, new_lines = self._read(session_id, current[0], current[1])
        if new_lines[: len(old_lines)] != old_lines:
            return LayoutMigration(
                session_id, "refused", from_layout, len(old_lines), size,
                reason=f"{source.name} holds records {current[0].name} does not: it was "
                "written after the migration; compare them before removing either",
            )  # fmt: skip
        if not dry_run:
            self._remove(source)
        return LayoutMigration(
            session_id, "migrated-before", from_layout, len(old_lines), size,
            removed_old=not dry_run,
        )  # fmt: skip

    def _read(self, session_id: str, path: Path, encoding: Encoding) -> tuple[bytes, list[bytes]]:
        """The header line and the record lines of a log, the records of a torn tail included.
        Read without the key: a layout-1 log carries no MAC (a keyed store MACs the copy)."""
        with LogScan(session_id, path, encoding, self.catalog) as scan:
            lines = [record.envelope() for record in scan.records()]
            assert scan.tail is not None  # set once records() is exhausted
            lines += [record.envelope() for record in scan.tail.torn_records]
            return jsonvalue.dumps(scan.header.to_json()), lines

    @staticmethod
    def _remove(source: Path) -> None:
        os.unlink(source)
        sync_directory(source.parent)
