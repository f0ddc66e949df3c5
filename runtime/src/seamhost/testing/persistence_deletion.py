"""The deletion part of the persistence contract: what ``SessionStore.delete`` promises.

:class:`~seamhost.testing.persistence.PersistenceContract` includes these tests; they are kept
here so that each part of the contract stays small enough to read. They use the contract's
``store`` and ``store_backend`` fixtures and its ``written`` and ``child`` helpers.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from seamhost.errors import SeamhostError
from seamhost.session.live import Session
from seamhost.testing.persistence_samples import append_all, envelopes, flush, make_header

if TYPE_CHECKING:
    import subprocess
    from typing import Any

    from seamhost.session.store import SessionStore
    from seamhost.testing.persistence_backend import StoreBackend


class Refused(SeamhostError, RuntimeError):
    """What the deletion tests' check raises to refuse a deletion."""

    reason: str

    def __str__(self) -> str:
        return self.reason


class DeletionContract:
    """Deleting sessions: gone for good, only when no writer holds them, all or nothing."""

    def written(
        self, store: SessionStore, session_id: str = "s-1", batches: int = 3
    ) -> tuple[Session, list[bytes]]:
        raise NotImplementedError  # provided by PersistenceContract

    def child(
        self, backend: StoreBackend, directory: Path, action: str, **spec: Any
    ) -> subprocess.Popen[str]:
        raise NotImplementedError  # provided by PersistenceContract

    def closed(self, store: SessionStore, session_id: str = "s-1") -> list[bytes]:
        session, written = self.written(store, session_id, batches=2)
        session.close()
        return written

    def test_a_deleted_session_is_gone_for_good(self, store: SessionStore) -> None:
        self.closed(store)
        store.delete("s-1")
        assert list(store.ids()) == []
        assert list(store.list()) == []
        for operation in (store.open, store.read, store.stat, store.verify, store.delete):
            with pytest.raises(SeamhostError, match="s-1"):
                operation("s-1")
        again = Session(store.create(make_header("s-1")))  # the id is free again
        append_all(again, [("turn/start", {"turn": 1}, False)])
        flush(again.writer)
        again.close()
        assert [r.type for r in store.read("s-1").records()] == ["turn/start"]

    def test_deleting_a_missing_session_is_refused_by_name(self, store: SessionStore) -> None:
        with pytest.raises(SeamhostError, match="no-such-session"):
            store.delete("no-such-session")

    def test_deleting_one_session_leaves_the_others_intact(self, store: SessionStore) -> None:
        kept = self.closed(store, "a")
        self.closed(store, "ab")
        store.delete("ab")
        assert list(store.ids()) == ["a"]
        assert envelopes(store.read("a").records()) == kept
        assert store.verify("a").intact

    def test_a_writer_in_this_process_blocks_deletion(self, store: SessionStore) -> None:
        session, written = self.written(store, batches=1)
        try:
            with pytest.raises(SeamhostError, match="s-1"):
                store.delete("s-1")
            assert envelopes(store.read("s-1").records()) == written
            append_all(session, [("turn/start", {"turn": 2}, False)])
            flush(session.writer)  # the writer goes on as if nothing had been tried
        finally:
            session.close()
        store.delete("s-1")
        assert list(store.ids()) == []

    def test_a_writer_in_another_process_blocks_deletion(
        self, store: SessionStore, store_backend: StoreBackend, tmp_path: Path
    ) -> None:
        written = self.closed(store)
        holder = self.child(store_backend, tmp_path / "store", "hold", session_id="s-1")
        try:
            assert holder.stdout is not None
            line = holder.stdout.readline()
            assert line, f"the holding process failed: {holder.stderr and holder.stderr.read()}"
            with pytest.raises(SeamhostError, match="s-1"):
                store.delete("s-1")
            assert envelopes(store.read("s-1").records()) == written
        finally:
            holder.send_signal(signal.SIGKILL)
            holder.communicate()

    def test_a_check_that_raises_keeps_the_session(self, store: SessionStore) -> None:
        written = self.closed(store)
        seen: list[list[bytes]] = []

        def refuse() -> None:
            seen.append(envelopes(store.read("s-1").records()))  # readable while held
            raise Refused("it waits on an approval")

        with pytest.raises(Refused):
            store.delete("s-1", check=refuse)
        assert seen == [written]
        assert envelopes(store.read("s-1").records()) == written
        calls: list[str] = []
        store.delete("s-1", check=lambda: calls.append("checked"))
        assert calls == ["checked"]
        assert list(store.ids()) == []

    def test_no_writer_can_open_a_session_while_it_is_being_deleted(
        self, store: SessionStore
    ) -> None:
        self.closed(store)
        opened: list[BaseException] = []

        def try_to_open() -> None:
            try:
                store.open("s-1").close()
            except SeamhostError as exc:
                opened.append(exc)
                return
            raise AssertionError("a writer opened a session that was being deleted")

        store.delete("s-1", check=try_to_open)
        assert len(opened) == 1
        assert list(store.ids()) == []
