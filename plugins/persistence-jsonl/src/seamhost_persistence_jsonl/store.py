"""The persistence-jsonl store: sessions as framed (or plain) JSONL logs under a root directory.

Nothing touches the disk before a session's first write: creating a store or a session is free,
and listing a root that does not exist yet lists nothing. Listing and stat read each session's
header frame only; reading streams the records; writers are exclusive (see
:mod:`~seamhost_persistence_jsonl.locking`), and deleting a session takes its writer lock (see
:mod:`~seamhost_persistence_jsonl.deletion`). The format is in
:mod:`~seamhost_persistence_jsonl.format`.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from seamhost import SessionCheck, SessionHeader, SessionStat, StoredSnapshot
from seamhost.store import (
    DEFAULT_SNAPSHOT_EVERY,
    DEFAULT_WINDOW_MS,
    SessionCorrupted,
    SessionExists,
    StorageError,
    check_write_options,
)
from seamhost_persistence_jsonl import locking, snapshots
from seamhost_persistence_jsonl.binding import DIGEST_SIZE, MacKey
from seamhost_persistence_jsonl.deletion import delete_session
from seamhost_persistence_jsonl.durable import make_directories, publish
from seamhost_persistence_jsonl.errors import MixedEncoding
from seamhost_persistence_jsonl.format import (
    DEFAULT_LEVEL,
    ENCODINGS,
    LAYOUT_VERSION,
    ROOT_MARKER,
    ROOT_MARKER_FORMAT,
    Encoding,
    LogEncoder,
)
from seamhost_persistence_jsonl.frame_chain import describe_binding
from seamhost_persistence_jsonl.layout import SessionPaths, unescape_id
from seamhost_persistence_jsonl.logfile import OpenedLog
from seamhost_persistence_jsonl.mark import read_mark
from seamhost_persistence_jsonl.migration import LayoutMigration, Migrator
from seamhost_persistence_jsonl.reading import LogScan
from seamhost_persistence_jsonl.writing import JsonlWriter

if TYPE_CHECKING:
    from seamhost import EventCatalog, Record
    from seamhost_persistence_jsonl.mark import Mark


class JsonlReader:
    """A lock-free view of one stored session; each `records()` call streams the log afresh
    (checking it against the session's mark as it is then)."""

    def __init__(
        self,
        session_id: str,
        path: Path,
        encoding: Encoding,
        catalog: EventCatalog,
        key: MacKey | None = None,
    ) -> None:
        self._args = (session_id, path, encoding, catalog)
        self._key = key
        with LogScan(*self._args, key=key) as scan:
            self._header = scan.header

    @property
    def header(self) -> SessionHeader:
        return self._header

    def records(self) -> Iterator[Record]:
        mark = read_mark(self._args[1].parent)  # before the scan measures the log
        return LogScan(*self._args, key=self._key, mark=mark).records()


class JsonlStore:
    """Sessions stored under `root`, one directory each.

    `compression` is the encoding new sessions are written in (``"zstd"``, framed, or
    ``"none"``, plain JSONL); a root holds one encoding. `level` is the zstd level,
    `batch_window_ms` the write-behind window, `snapshot_every` how many records become durable
    between two resume snapshots (0: none; :mod:`.snapshots`). `catalog` knows the event types
    a reader accepts (default: the core types); a record of another type must be marked
    ignorable. `mac_key_file` names the key file whose key every frame written carries a MAC
    under, and every frame read must (:mod:`.binding`; framed logs only).
    """

    name = "persistence-jsonl"
    durable = True

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        compression: Encoding = "zstd",
        level: int = DEFAULT_LEVEL,
        batch_window_ms: int = DEFAULT_WINDOW_MS,
        catalog: EventCatalog | None = None,
        snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
        mac_key_file: str | os.PathLike[str] | None = None,
    ) -> None:
        if compression not in ENCODINGS:
            raise ValueError(f"compression must be one of {ENCODINGS}, not {compression!r}")
        check_write_options(batch_window_ms, snapshot_every)
        if not 1 <= level <= 22:
            raise ValueError(f"level must be a zstd level from 1 to 22, not {level}")
        self.root = Path(root)
        self.encoding: Encoding = compression
        self.level = level
        self.window = batch_window_ms / 1000
        self.snapshot_every = snapshot_every
        self._catalog = catalog
        self.key: MacKey | None = None
        if mac_key_file is not None:
            if compression != "zstd":
                raise ValueError(
                    'mac_key_file needs compression = "zstd": a plain log has no frames to '
                    "carry a MAC"
                )
            self.key = MacKey.load(Path(mac_key_file), self.root)

    def __repr__(self) -> str:
        return f"JsonlStore({str(self.root)!r}, compression={self.encoding!r})"

    @property
    def location(self) -> Path:
        """The root: every session is a directory under it."""
        return self.root

    @property
    def catalog(self) -> EventCatalog:
        if self._catalog is None:
            from seamhost import core_catalog

            self._catalog = core_catalog()
        return self._catalog

    # -- writers ----------------------------------------------------------------------------

    def create(self, header: SessionHeader) -> JsonlWriter:
        """A writer for a new session. Writes nothing: the first flush or batch publishes it."""
        paths = SessionPaths.of(self.root, header.session_id)
        claim = locking.claim(paths.directory, header.session_id)
        try:
            self._check_root_encoding()
            found = paths.find_log()
            if found is not None:
                raise SessionExists(header.session_id, str(found[0]))
        except BaseException:
            locking.release(claim)
            raise
        return self._writer(paths, header, claim)

    def open(self, session_id: str) -> JsonlWriter:
        """The writer of a stored session, with its records; cuts nothing until it writes."""
        paths = SessionPaths.of(self.root, session_id)
        claim = locking.claim(paths.directory, session_id)
        lock: locking.FileLock | None = None
        fd = -1
        try:
            path, encoding = paths.require_log()
            if encoding != self.encoding:
                raise MixedEncoding(str(self.root), encoding, self.encoding)
            self._check_root_encoding()
            lock = locking.FileLock.acquire(paths.lock, session_id)
            for name in os.listdir(paths.directory):
                if paths.is_temp(name):
                    os.unlink(paths.directory / name)
            mark = read_mark(paths.directory)
            fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
            scan, resumed = self._scan_tail(paths, path, encoding, fd, mark)
            existing = list(scan.records()) if resumed is None else None
            assert scan.tail is not None  # set once records() is exhausted
        except BaseException:
            if fd >= 0:
                os.close(fd)
            if lock is not None:
                lock.release()
            locking.release(claim)
            raise
        opened = OpenedLog(path, fd, lock, scan.tail)
        return self._writer(
            paths,
            scan.header,
            claim,
            existing=existing,
            opened=opened,
            resumed=resumed,
            layout=scan.layout,
        )

    def _scan_tail(
        self, paths: SessionPaths, path: Path, encoding: Encoding, fd: int, mark: Mark | None
    ) -> tuple[LogScan, StoredSnapshot | None]:
        """A scan of the log, and the resume snapshot with the records after it when one
        matches the log (:mod:`.snapshots`); without one, the scan is left for a full read."""
        args = (paths.session_id, path, encoding, self.catalog)
        scan = LogScan(*args, key=self.key, mark=mark)
        found = snapshots.find(paths, fd, os.fstat(fd).st_size, self.key)
        if found is None or (scan.bound and len(found[0].chain) != DIGEST_SIZE):
            return scan, None
        point, body, pieces = found
        try:
            tail = tuple(scan.records((point.offset, point.seq, point.chain)))
        except SessionCorrupted:
            # Damage after the snapshot is the log's, and a full read reports it the same way;
            # read in full so that a snapshot can never be the reason a session is refused.
            return LogScan(*args, key=self.key, mark=mark), None
        kept = snapshots.KeptPieces(paths, point.seq, pieces) if pieces else None
        return scan, StoredSnapshot(point.seq, body, tail, kept)

    def _reader_of(self, paths: SessionPaths, count: int) -> Callable[[], list[Record]]:
        """Reads the first `count` records of the log (a resumed writer's `existing()`)."""
        path, encoding = paths.require_log()

        def records() -> list[Record]:
            found: list[Record] = []
            scan = LogScan(paths.session_id, path, encoding, self.catalog, key=self.key).records()
            try:
                for record in scan:
                    if record.seq >= count:
                        break
                    found.append(record)
            finally:
                scan.close()  # type: ignore[attr-defined]
            return found

        return records

    def _writer(
        self,
        paths: SessionPaths,
        header: SessionHeader,
        claim: str,
        *,
        existing: list[Record] | None = None,
        opened: OpenedLog | None = None,
        resumed: StoredSnapshot | None = None,
        layout: int = LAYOUT_VERSION,
    ) -> JsonlWriter:
        count = resumed.seq + len(resumed.tail) if resumed is not None else 0
        return JsonlWriter(
            paths,
            header,
            encoder=LogEncoder(self.encoding, self.level, layout=layout, key=self.key),
            window=self.window,
            claim=claim,
            prepare_root=self._prepare_root,
            existing=existing or (),
            opened=opened,
            resumed=resumed,
            read_existing=self._reader_of(paths, count) if resumed is not None else None,
            snapshot_interval=self.snapshot_every,
        )

    # -- readers ----------------------------------------------------------------------------

    def read(self, session_id: str) -> JsonlReader:
        paths = SessionPaths.of(self.root, session_id)
        path, encoding = paths.require_log()
        return JsonlReader(session_id, path, encoding, self.catalog, self.key)

    def ids(self) -> Iterator[str]:
        """The id of every published session under the root (unreadable ones included)."""
        try:
            with os.scandir(self.root) as scan:
                names = sorted(entry.name for entry in scan if entry.is_dir())
        except FileNotFoundError:
            return
        for name in names:
            session_id = unescape_id(name)
            if session_id is None:
                continue
            try:
                published = SessionPaths.of(self.root, session_id).find_log() is not None
            except StorageError:
                published = True  # stored, in a form this version cannot read: stat says why
            if published:
                yield session_id

    def list(self) -> Iterator[SessionStat]:
        """A stat of every session, oldest first; raises on a session it cannot read."""
        stats = [self.stat(session_id) for session_id in self.ids()]
        return iter(sorted(stats, key=lambda s: (s.header.created, s.header.session_id)))

    def stat(self, session_id: str) -> SessionStat:
        """The header and size of a session, from its header frame only."""
        path, encoding = SessionPaths.of(self.root, session_id).require_log()
        with LogScan(session_id, path, encoding, self.catalog) as scan:
            modified = os.stat(path).st_mtime_ns // 1_000_000
            return SessionStat(scan.header, str(path), scan.size, modified)

    def verify(self, session_id: str) -> SessionCheck:
        """Read a whole session and report what is intact, torn or corrupted, and how it is
        bound to the session (:func:`~seamhost_persistence_jsonl.frame_chain.describe_binding`)."""
        paths = SessionPaths.of(self.root, session_id)
        path, encoding = paths.require_log()
        mark = read_mark(paths.directory)  # before the scan measures the log
        count = 0
        size = 0
        scan: LogScan | None = None
        try:
            with LogScan(session_id, path, encoding, self.catalog, key=self.key, mark=mark) as scan:
                size = scan.size
                for _ in scan.records():
                    count += 1
                tail = scan.tail
        except SessionCorrupted as exc:
            return SessionCheck(
                session_id,
                count,
                size or path.stat().st_size,
                str(path),
                problem=exc.problem,
                offset=exc.offset,
                binding=describe_binding(scan, mark) if scan is not None else None,
            )
        assert tail is not None  # set once records() is exhausted
        return SessionCheck(
            session_id,
            count,
            size,
            str(path),
            torn_records=len(tail.torn_records),
            torn_bytes=tail.torn_bytes,
            binding=describe_binding(scan, mark),
        )

    def kept_snapshot(self, session_id: str) -> StoredSnapshot | None:
        """The resume snapshot an open would start from, read without the lock (or None)."""
        paths = SessionPaths.of(self.root, session_id)
        path, _ = paths.require_log()
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            found = snapshots.find(paths, fd, os.fstat(fd).st_size, self.key)
        finally:
            os.close(fd)
        if found is None:
            return None
        seq, body, pieces = found[0].seq, found[1], found[2]
        return StoredSnapshot(
            seq, body, (), snapshots.KeptPieces(paths, seq, pieces) if pieces else None
        )

    def migrate_layout(
        self,
        session_id: str,
        *,
        dry_run: bool = False,
        remove_old: bool = False,
        on_copied: Callable[[str, int], None] | None = None,
    ) -> LayoutMigration:
        """Publish the session's log in the current layout beside an older one, if it has
        one (``seamhost store migrate``; see :mod:`.migration`)."""
        migrator = Migrator(self.catalog, self.level, self.key)
        paths = SessionPaths.of(self.root, session_id)
        return migrator.migrate(paths, dry_run=dry_run, remove_old=remove_old, on_copied=on_copied)

    def delete(self, session_id: str, *, check: Callable[[], None] | None = None) -> None:
        """Remove a session's directory under its writer lock (see :mod:`.deletion`)."""
        delete_session(SessionPaths.of(self.root, session_id), check)

    # -- the root ---------------------------------------------------------------------------

    def _check_root_encoding(self) -> None:
        found = self._root_encoding()
        if found is not None and found != self.encoding:
            raise MixedEncoding(str(self.root), found, self.encoding)

    def _root_encoding(self) -> str | None:
        """The encoding the root marker records, or None (no marker, or not one of ours)."""
        try:
            data = orjson.loads((self.root / ROOT_MARKER).read_bytes())
        except (FileNotFoundError, NotADirectoryError, orjson.JSONDecodeError):
            return None
        encoding = data.get("encoding") if isinstance(data, dict) else None
        return encoding if encoding in ENCODINGS else None

    def _prepare_root(self) -> None:
        """Create the root and its marker before a session's first write (writing thread)."""
        make_directories(self.root)
        marker = self.root / ROOT_MARKER
        if not marker.exists():
            body = orjson.dumps({"format": ROOT_MARKER_FORMAT, "encoding": self.encoding}) + b"\n"
            temp = self.root / f".{ROOT_MARKER}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
            # When another writer published it first, it is checked below like any other.
            with contextlib.suppress(FileExistsError):
                os.close(publish(temp, marker, body))
        self._check_root_encoding()
