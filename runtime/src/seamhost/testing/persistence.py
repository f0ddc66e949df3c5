"""The contract every session store passes: subclass :class:`PersistenceContract`.

A backend's test module subclasses it and supplies one fixture, ``store_backend``, returning a
:class:`StoreBackend` that makes a store for a directory::

    import pytest
    from seamhost.testing.persistence import PersistenceContract, StoreBackend

    class TestMyStore(PersistenceContract):
        @pytest.fixture
        def store_backend(self) -> StoreBackend:
            return StoreBackend.importable("my_store:MyStore", tear_tail=..., corrupt=...)

What a backend cannot do, it declares by leaving the matching field unset, and the tests that
need it skip, saying why: without ``factory`` (an importable ``"module:callable"`` that makes the
store for a directory in another process) nothing is checked across processes; without
``tear_tail`` no torn tail; without ``corrupt`` no damage detection.

The sample session the tests write (:mod:`seamhost.testing.persistence_samples`), the backend
declaration with its child process (:mod:`seamhost.testing.persistence_backend`), the
deletion and write-behind tests (:mod:`seamhost.testing.persistence_deletion`,
:mod:`seamhost.testing.persistence_writebehind`) and the resume-snapshot tests
(:mod:`seamhost.testing.persistence_snapshots`, for a store whose writers keep them) live in
modules of their own; every name of the kit is importable from here.
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from seamhost.errors import EventRejected, SeamhostError, UnknownEventType
from seamhost.jsonvalue import FrozenDict
from seamhost.session.live import Session
from seamhost.session.record import Record
from seamhost.session.store import SessionHeader, SessionStore
from seamhost.testing.persistence_backend import CHILD_SOURCE, StoreBackend
from seamhost.testing.persistence_deletion import DeletionContract
from seamhost.testing.persistence_samples import (
    append_all,
    envelopes,
    flush,
    make_header,
    sample_events,
)
from seamhost.testing.persistence_snapshots import SnapshotContract
from seamhost.testing.persistence_writebehind import WriteBehindContract


class PersistenceContract(DeletionContract, WriteBehindContract, SnapshotContract):
    """Tests any `session/store` backend passes. Subclass it and provide ``store_backend``."""

    @pytest.fixture
    def store_backend(self) -> StoreBackend:
        raise NotImplementedError("a backend's test class provides the store_backend fixture")

    @pytest.fixture
    def store(self, store_backend: StoreBackend, tmp_path: Path) -> SessionStore:
        return store_backend.make_store(tmp_path / "store")

    def written(
        self, store: SessionStore, session_id: str = "s-1", batches: int = 3
    ) -> tuple[Session, list[bytes]]:
        """A session holding `batches` flushed batches of the sample events, still open."""
        session = Session(store.create(make_header(session_id)))
        for _ in range(batches):
            append_all(session, sample_events())
            flush(session.writer)
        return session, envelopes(list(session.records))

    def child(
        self, backend: StoreBackend, directory: Path, action: str, **spec: Any
    ) -> subprocess.Popen[str]:
        if backend.factory is None:
            pytest.skip("the backend declares no factory: its sessions do not outlive a process")
        payload = {
            "factory": backend.factory,
            "options": dict(backend.options),
            "directory": str(directory),
            "action": action,
            **spec,
        }
        return subprocess.Popen(
            [sys.executable, "-c", CHILD_SOURCE, json.dumps(payload)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    # -- what the store declares ------------------------------------------------------------

    def test_location_is_where_flushed_sessions_are(self, store: SessionStore) -> None:
        """`location` (what `seamhost doctor` checks) is None or the directory written to."""
        session, _ = self.written(store, batches=1)
        session.close()
        if store.location is None:
            pytest.skip("the backend keeps its sessions in no local directory")
        assert isinstance(store.location, Path)
        assert store.location.is_dir(), "a flushed session lives under the declared location"
        assert any(store.location.iterdir())

    # -- round trips ------------------------------------------------------------------------

    def test_header_round_trips(self, store: SessionStore) -> None:
        session, _ = self.written(store, batches=1)
        session.close()
        assert store.stat("s-1").header == make_header("s-1")
        assert store.read("s-1").header == make_header("s-1")

    def test_records_read_back_byte_identical(self, store: SessionStore) -> None:
        session, written = self.written(store)
        session.close()
        assert envelopes(store.read("s-1").records()) == written
        writer = store.open("s-1")
        try:
            assert envelopes(writer.existing()) == written
            assert writer.torn_records == 0
        finally:
            writer.close()

    def test_flushed_records_are_readable_while_the_writer_is_open(
        self, store: SessionStore
    ) -> None:
        session, written = self.written(store, batches=2)
        try:
            assert envelopes(store.read("s-1").records()) == written
        finally:
            session.close()

    def test_seq_continues_after_reopening(self, store: SessionStore) -> None:
        session, written = self.written(store, batches=1)
        session.close()
        again = Session(store.open("s-1"))
        assert again.next_seq == len(written)
        append_all(again, sample_events())
        flush(again.writer)
        again.close()
        records = list(store.read("s-1").records())
        assert [r.seq for r in records] == list(range(2 * len(written)))
        assert envelopes(records[: len(written)]) == written

    # -- what is refused --------------------------------------------------------------------

    def test_records_out_of_sequence_are_rejected(self, store: SessionStore) -> None:
        writer = store.create(make_header("s-1"))
        try:
            with pytest.raises(SeamhostError, match="s-1"):
                writer.submit(Record(1, "turn/start", 5, plain={"turn": 1}))
            writer.submit(Record(0, "turn/start", 5, plain={"turn": 1}))
            with pytest.raises(SeamhostError, match="s-1"):
                writer.submit(Record(0, "turn/start", 5, plain={"turn": 1}))
            flush(writer)
            with pytest.raises(SeamhostError, match="s-1"):
                writer.submit(Record(2, "turn/end", 6, plain={"turn": 1, "reason": "completed"}))
        finally:
            writer.close()
        assert [r.seq for r in store.read("s-1").records()] == [0]

    @pytest.mark.parametrize(
        "value",
        [math.nan, math.inf, -math.inf, -0.0, {1: "x"}, 2**64, {1, 2}, b"bytes", FrozenDict],
        ids=["nan", "inf", "-inf", "-0.0", "int-key", "int65", "set", "bytes", "class"],
    )
    def test_lossy_json_never_reaches_the_store(self, store: SessionStore, value: Any) -> None:
        session = Session(store.create(make_header("s-1")))
        try:
            with pytest.raises(EventRejected):
                session.append_data("vendor/x", {"value": [value]}, ignorable=True)
            assert session.next_seq == 0
            session.append_data("turn/start", {"turn": 1})
            flush(session.writer)
        finally:
            session.close()
        assert [r.type for r in store.read("s-1").records()] == ["turn/start"]

    def test_unknown_types_must_be_ignorable(self, store: SessionStore) -> None:
        session = Session(store.create(make_header("s-1")))
        try:
            with pytest.raises(UnknownEventType):
                session.append_data("vendor/x", {"a": 1})
            session.append_data("vendor/x", {"a": 1}, ignorable=True)
            flush(session.writer)
        finally:
            session.close()
        (record,) = store.read("s-1").records()
        assert (record.type, record.ignorable, dict(record.data)) == ("vendor/x", True, {"a": 1})

    def test_creating_a_stored_session_again_is_refused(self, store: SessionStore) -> None:
        session, _ = self.written(store, batches=1)
        session.close()
        with pytest.raises(SeamhostError, match="s-1"):
            store.create(make_header("s-1"))
        assert len(list(store.read("s-1").records())) == len(sample_events())

    def test_a_missing_session_is_named(self, store: SessionStore) -> None:
        for operation in (store.open, store.read, store.stat, store.verify):
            with pytest.raises(SeamhostError, match="no-such-session"):
                operation("no-such-session")

    # -- one writer -------------------------------------------------------------------------

    def test_a_second_writer_in_this_process_is_refused(
        self, store: SessionStore, store_backend: StoreBackend, tmp_path: Path
    ) -> None:
        session, _ = self.written(store, batches=1)
        try:
            with pytest.raises(SeamhostError, match="s-1"):
                store.open("s-1")
            if store_backend.factory is not None:  # a second store on the same storage
                with pytest.raises(SeamhostError, match="s-1"):
                    store_backend.make_store(tmp_path / "store").open("s-1")
        finally:
            session.close()
        store.open("s-1").close()

    def test_a_second_writer_in_another_process_is_refused(
        self, store: SessionStore, store_backend: StoreBackend, tmp_path: Path
    ) -> None:
        session, _ = self.written(store, batches=1)
        session.close()
        holder = self.child(store_backend, tmp_path / "store", "hold", session_id="s-1")
        try:
            assert holder.stdout is not None
            line = holder.stdout.readline()
            assert line, f"the holding process failed: {holder.stderr and holder.stderr.read()}"
            with pytest.raises(SeamhostError, match="s-1"):
                store.open("s-1")
        finally:
            holder.send_signal(signal.SIGKILL)
            holder.communicate()
        deadline = time.monotonic() + 10
        while True:  # the kernel releases a dead holder's lock once the process is gone
            try:
                store.open("s-1").close()
                break
            except SeamhostError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    # -- durability across processes --------------------------------------------------------

    def test_flushed_records_outlive_the_writing_process(
        self, store_backend: StoreBackend, tmp_path: Path
    ) -> None:
        events = sample_events() * 3
        writer = self.child(
            store_backend,
            tmp_path / "store",
            "write",
            header=make_header("s-1").to_json(),
            events=events,
        )
        out, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err
        written = [line.encode() for line in json.loads(out.splitlines()[-1])]
        store = store_backend.make_store(tmp_path / "store")
        assert envelopes(store.read("s-1").records()) == written
        assert store.read("s-1").header == make_header("s-1")

    def test_another_process_reads_what_was_flushed(
        self, store: SessionStore, store_backend: StoreBackend, tmp_path: Path
    ) -> None:
        session, written = self.written(store)
        try:
            reader = self.child(store_backend, tmp_path / "store", "read", session_id="s-1")
            out, err = reader.communicate(timeout=60)
        finally:
            session.close()
        assert reader.returncode == 0, err
        seen = json.loads(out)
        assert SessionHeader.from_json(seen["header"]) == make_header("s-1")
        assert [line.encode() for line in seen["records"]] == written

    # -- listing ----------------------------------------------------------------------------

    def test_listing_names_every_session_oldest_first(self, store: SessionStore) -> None:
        for session_id, created in (("b", 3), ("a", 2), ("c", 1)):
            session = Session(store.create(make_header(session_id, created)))
            append_all(session, sample_events())
            flush(session.writer)
            session.close()
        stats = list(store.list())
        assert [s.header.session_id for s in stats] == ["c", "a", "b"]
        assert [s.header for s in stats] == [
            make_header(i, c) for i, c in (("c", 1), ("a", 2), ("b", 3))
        ]
        assert all(s.size > 0 for s in stats)
        assert sorted(store.ids()) == ["a", "b", "c"]
        assert store.stat("a") == stats[1]

    @pytest.mark.parametrize(
        "session_id",
        [
            "a/b",
            "..",
            ".hidden",
            "with space",
            "日本語",
            "%41",
            "a%2Fb",
            "back\\slash",
            "---",
            "x" * 80,
        ],
    )
    def test_session_ids_may_hold_any_character(self, store: SessionStore, session_id: str) -> None:
        session = Session(store.create(make_header(session_id)))
        append_all(session, sample_events())
        flush(session.writer)
        session.close()
        assert list(store.ids()) == [session_id]
        assert store.read(session_id).header.session_id == session_id
        assert len(list(store.read(session_id).records())) == len(sample_events())

    def test_verify_counts_an_intact_session(self, store: SessionStore) -> None:
        session, written = self.written(store)
        session.close()
        check = store.verify("s-1")
        assert (check.intact, check.records, check.torn_bytes) == (True, len(written), 0)

    # -- crashes and damage -----------------------------------------------------------------

    def torn(self, store: SessionStore, backend: StoreBackend) -> tuple[list[bytes], list[bytes]]:
        """A closed session of three batches whose last write was torn: (written, kept)."""
        if backend.tear_tail is None:
            pytest.skip("the backend declares no tear_tail: its writes cannot be torn")
        session, written = self.written(store)
        session.close()
        backend.tear_tail(store, "s-1")
        return written, envelopes(store.read("s-1").records())

    def test_a_torn_tail_keeps_every_complete_record(
        self, store: SessionStore, store_backend: StoreBackend
    ) -> None:
        written, kept = self.torn(store, store_backend)
        assert kept == written[: len(kept)]
        assert len(kept) >= 2 * len(sample_events())  # only the last batch was torn
        check = store.verify("s-1")
        assert check.intact, check.problem
        assert check.torn_bytes > 0
        assert check.records == len(kept)

    def test_a_writer_cuts_a_torn_tail_before_it_writes(
        self, store: SessionStore, store_backend: StoreBackend
    ) -> None:
        written, kept = self.torn(store, store_backend)
        again = Session(store.open("s-1"))
        assert envelopes(again.writer.existing()) == kept
        assert 0 <= again.writer.torn_records <= len(written) - 2 * len(sample_events())
        append_all(again, sample_events())
        flush(again.writer)
        after = envelopes(list(again.records))
        again.close()
        assert envelopes(store.read("s-1").records()) == after
        assert after[: len(kept)] == kept
        check = store.verify("s-1")
        assert check.intact, check.problem
        assert check.torn_bytes == 0
        assert check.records == len(after)

    def test_damage_is_refused_not_skipped(
        self, store: SessionStore, store_backend: StoreBackend
    ) -> None:
        if store_backend.corrupt is None:
            pytest.skip("the backend declares no corrupt: it has no damage to detect")
        session, _ = self.written(store)
        session.close()
        store_backend.corrupt(store, "s-1")
        with pytest.raises(SeamhostError, match="s-1"):
            list(store.read("s-1").records())
        with pytest.raises(SeamhostError, match="s-1"):
            store.open("s-1")
        check = store.verify("s-1")
        assert not check.intact
        assert check.problem
        assert check.records < 3 * len(sample_events())


__all__ = [
    "CHILD_SOURCE",
    "PersistenceContract",
    "StoreBackend",
    "append_all",
    "envelopes",
    "flush",
    "make_header",
    "sample_events",
]
