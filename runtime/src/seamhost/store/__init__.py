"""The storage core every session store builds on: one error tree, the writer's shared rules,
and what a store is configured with.

A ``session/store`` provider (persistence-jsonl, persistence-postgres, or a third party's)
raises these errors, so that the command line and the kernel treat every store alike, and
derives its writer from :class:`StoreWriter`. The protocols a store implements are in
:mod:`seamhost.session.store`; the contract it must pass is :mod:`seamhost.testing.persistence`.
"""

from __future__ import annotations

from seamhost.store.config import (
    DEFAULT_SNAPSHOT_EVERY,
    DEFAULT_WINDOW_MS,
    check_write_options,
    reader_catalog,
)
from seamhost.store.errors import (
    BatchRejected,
    ForeignSession,
    SessionCorrupted,
    SessionExists,
    SessionNotFound,
    StorageError,
    UnknownRecordType,
    UnsupportedFormat,
    WriteFailed,
    WriterClosed,
)
from seamhost.store.writer import StoreWriter, flush_own

__all__ = [
    "DEFAULT_SNAPSHOT_EVERY",
    "DEFAULT_WINDOW_MS",
    "BatchRejected",
    "ForeignSession",
    "SessionCorrupted",
    "SessionExists",
    "SessionNotFound",
    "StorageError",
    "StoreWriter",
    "UnknownRecordType",
    "UnsupportedFormat",
    "WriteFailed",
    "WriterClosed",
    "check_write_options",
    "flush_own",
    "reader_catalog",
]
