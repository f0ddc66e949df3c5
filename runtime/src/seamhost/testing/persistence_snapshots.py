"""The resume-snapshot part of the persistence contract (``SnapshotWriter``, optional).

:class:`~seamhost.testing.persistence.PersistenceContract` includes these tests. A store whose
writers do not implement :class:`~seamhost.session.store.SnapshotWriter` skips them (every open
of it is a full replay, which the rest of the contract covers); one that does is held to what
the protocol promises: a snapshot saved after a flush opens the session to exactly the state a
full replay yields, with the records after it as the tail, and a snapshot that does not fit the
log (foreign, garbage, past a torn tail, of a deleted session) is a full replay, never another
state. A snapshot's pieces come back in order, continue across reopens, refuse a piece that does
not continue them, and pieces that do not check out mean the log is read instead.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import pytest

from seamhost.errors import SeamhostError, SessionDamaged
from seamhost.session import snapshot
from seamhost.session.derived import SHOWN, replay
from seamhost.session.live import Session
from seamhost.session.record import Record
from seamhost.session.store import SnapshotPiece, SnapshotWriter, snapshot_writer
from seamhost.testing.persistence_samples import append_all, envelopes, make_header, sample_events

if TYPE_CHECKING:
    from seamhost.session.store import SessionStore, SessionWriter, SnapshotMark
    from seamhost.testing.persistence_backend import StoreBackend


def turn_events(turn: int, *, ended: bool) -> list[tuple[str, dict[str, Any], bool]]:
    """The sample events as one turn (numbered `turn`), closed when `ended`."""
    events = [
        (kind, {**data, "turn": turn} if "turn" in data else data, ignorable)
        for kind, data, ignorable in sample_events()
    ]
    events.append(("model/usage", _usage(turn), False))
    if ended:
        events.append(("turn/end", {"turn": turn, "reason": "completed"}, False))
    return events


def _usage(turn: int) -> dict[str, Any]:
    return {"turn": turn, "step": 1, "attempt": 1, "input_tokens": 10 * turn, "output_tokens": 3}


def live(writer: SessionWriter, interval: int) -> Session:
    """A session over `writer` that flushes through it and snapshots every `interval` records."""
    return Session(writer, flush=lambda s: s.writer.flush(), snapshot_interval=interval)


def flushed(session: Session) -> None:
    asyncio.run(session.flush())


class SnapshotContract:
    """Resume snapshots: the same state as a full replay, or a full replay."""

    def keeping(self, store: SessionStore, session_id: str = "s-1") -> SessionWriter:
        writer = store.create(make_header(session_id))
        if not isinstance(writer, SnapshotWriter):
            writer.close()
            pytest.skip("the backend's writers keep no resume snapshots (every open replays)")
        assert snapshot_writer(writer) is not None, (
            "save_snapshot must take (mark, body, piece): the kernel keeps no snapshot for it"
        )
        return writer

    def snapshotted(self, store: SessionStore, turns: int = 3) -> list[bytes]:
        """A closed session of `turns` flushed turns (the last left open), snapshot after each."""
        session = live(self.keeping(store), interval=1)
        for turn in range(1, turns + 1):
            append_all(session, turn_events(turn, ended=turn < turns))
            flushed(session)
        written = envelopes(list(session.records))
        session.close()
        return written

    def check_opens_as_replay(self, store: SessionStore, written: list[bytes]) -> Session:
        """Open the session: its state is a full replay's, its records the stored ones."""
        session = live(store.open("s-1"), interval=0)
        stored = list(store.read("s-1").records())
        assert envelopes(stored) == written
        expected = replay(stored).summary()
        opened = session.resumed
        if opened is not None:
            state = opened.copy().fold(session.records[opened.seq :])
            assert state.summary() == expected
        assert session.next_seq == len(written)
        assert all(session.last(k) == r for k, r in replay(stored).last.items())
        assert envelopes(list(session.records)) == written
        return session

    def test_a_snapshot_opens_the_session_as_a_replay_would(self, store: SessionStore) -> None:
        written = self.snapshotted(store)
        writer = store.open("s-1")
        assert isinstance(writer, SnapshotWriter)
        kept = writer.opened_from()
        assert kept is not None, "a snapshot saved after the last flush is offered at open"
        assert (kept.seq, kept.tail) == (len(written), ())
        session = live(writer, interval=0)
        assert session.resumed is not None, "the kernel trusts the snapshot it saved"
        assert session.resumed.open_turn == 3
        assert session.resumed.usage["input_tokens"] == 60
        session.close()
        self.check_opens_as_replay(store, written).close()

    def test_the_records_after_a_snapshot_are_its_tail(self, store: SessionStore) -> None:
        self.snapshotted(store, turns=2)
        session = live(store.open("s-1"), interval=0)  # keeps no further snapshot
        covered = session.next_seq
        append_all(session, turn_events(3, ended=False))
        flushed(session)
        written = envelopes(list(session.records))
        session.close()
        writer = store.open("s-1")
        assert isinstance(writer, SnapshotWriter)
        kept = writer.opened_from()
        assert kept is not None
        assert kept.seq == covered
        assert envelopes(kept.tail) == written[covered:]
        writer.close()
        self.check_opens_as_replay(store, written).close()

    def test_a_mark_is_the_durable_point(self, store: SessionStore) -> None:
        writer = self.keeping(store)
        mark = writer.snapshot_mark()  # type: ignore[attr-defined]
        assert mark is None or mark.seq == 0
        session = live(writer, interval=0)
        append_all(session, turn_events(1, ended=True))
        flushed(session)
        mark = writer.snapshot_mark()  # type: ignore[attr-defined]
        assert mark is not None
        assert mark.seq == session.next_seq
        session.close()

    def one_turn(self, store: SessionStore) -> tuple[Session, SnapshotWriter, SnapshotMark]:
        """A session of one flushed turn that keeps no snapshot itself, its writer and mark."""
        session = live(self.keeping(store), interval=0)
        append_all(session, turn_events(1, ended=True))
        flushed(session)
        writer = session.writer
        assert isinstance(writer, SnapshotWriter)
        mark = writer.snapshot_mark()
        assert mark is not None
        return session, writer, mark

    @pytest.mark.parametrize("kind", ["garbage", "foreign", "inconsistent"])
    def test_a_snapshot_the_kernel_cannot_trust_is_a_full_replay(
        self, store: SessionStore, kind: str
    ) -> None:
        session, writer, mark = self.one_turn(store)
        state = replay(list(session.records))
        if kind == "garbage":
            body = b"not a snapshot\n"
        elif kind == "foreign":
            body = snapshot.encode(state, make_header("another"))
        else:  # well formed and digested, but claiming a seq its window does not reach
            state.seq += 1
            body = snapshot.encode(state, session.header)
        writer.save_snapshot(mark, body)
        written = envelopes(list(session.records))
        session.close()
        reopened = self.check_opens_as_replay(store, written)
        assert reopened.resumed is None
        reopened.close()

    def test_a_snapshot_past_a_torn_tail_is_not_trusted(
        self, store: SessionStore, store_backend: StoreBackend
    ) -> None:
        if store_backend.tear_tail is None:
            pytest.skip("the backend declares no tear_tail: its writes cannot be torn")
        self.snapshotted(store)
        store_backend.tear_tail(store, "s-1")
        kept = envelopes(store.read("s-1").records())
        session = self.check_opens_as_replay(store, kept)
        assert session.resumed is None or session.resumed.seq <= len(kept)
        session.close()

    def test_damage_is_never_a_different_state(
        self, store: SessionStore, store_backend: StoreBackend
    ) -> None:
        if store_backend.corrupt is None:
            pytest.skip("the backend declares no corrupt: it has no damage to detect")
        written = self.snapshotted(store)
        expected = replay(store.read("s-1").records()).summary()
        store_backend.corrupt(store, "s-1")
        try:
            session = live(store.open("s-1"), interval=0)
        except SessionDamaged:
            return  # refused, as a full read would
        try:
            assert session.resumed is not None, "a full replay of a damaged log must refuse"
            assert session.resumed.summary() == expected
            with pytest.raises(SessionDamaged):  # found once the records before it are read
                assert envelopes(list(session.records)) == written
        finally:
            session.close()

    # -- pieces: the records the conversation is derived from ---------------------------------

    def check_shown(self, session: Session, store: SessionStore) -> None:
        """The session's shown records are the stored records of the shown types."""
        stored = list(store.read(session.id).records())
        expected = envelopes([r for r in stored if r.type in SHOWN])
        assert envelopes(list(session.shown_records())) == expected

    def test_the_pieces_hold_the_records_the_conversation_is_made_of(
        self, store: SessionStore
    ) -> None:
        self.snapshotted(store, turns=4)  # four snapshots: four pieces, one after the other
        writer = store.open("s-1")
        assert isinstance(writer, SnapshotWriter)
        kept = writer.opened_from()
        assert kept is not None
        assert kept.pieces is not None, "a snapshot keeps its pieces"
        decoded = snapshot.decode(kept.body, writer.header)
        assert decoded is not None
        assert decoded.chain is not None
        assert decoded.chain[0] == 4
        from_pieces = snapshot.shown_records(kept.pieces(), decoded)
        assert from_pieces is not None, "the pieces come back as they were saved, in order"
        session = live(writer, interval=0)
        self.check_shown(session, store)
        session.close()

    def test_a_reopened_session_continues_its_pieces(self, store: SessionStore) -> None:
        self.snapshotted(store, turns=2)
        for turn in (3, 4):  # each reopen adds one piece after the kept ones
            session = live(store.open("s-1"), interval=1)
            assert session.resumed is not None
            assert session.resumed.chain is not None
            append_all(session, turn_events(turn, ended=False))
            flushed(session)
            session.close()
        session = live(store.open("s-1"), interval=0)
        assert session.resumed is not None
        assert session.resumed.chain is not None
        assert session.resumed.chain[0] == 4
        self.check_shown(session, store)
        session.close()

    def test_a_piece_that_does_not_continue_the_kept_ones_is_refused(
        self, store: SessionStore
    ) -> None:
        written = self.snapshotted(store, turns=2)
        session = live(store.open("s-1"), interval=0)
        writer = session.writer
        assert isinstance(writer, SnapshotWriter)
        mark = writer.snapshot_mark()
        assert mark is not None
        kept = writer.opened_from()
        assert kept is not None
        body = snapshot.encode(replay(list(session.records)), session.header)
        stray = SnapshotPiece(kept.seq + 1, b"piece\n")  # neither 0 nor where they end
        with pytest.raises((SeamhostError, OSError)):
            writer.save_snapshot(mark, body, stray)
        session.close()
        reopened = self.check_opens_as_replay(store, written)
        assert reopened.resumed is not None
        self.check_shown(reopened, store)
        reopened.close()

    def test_pieces_that_do_not_check_out_mean_the_log_is_read(self, store: SessionStore) -> None:
        session, writer, mark = self.one_turn(store)
        records = list(session.records)
        state = replay(records)
        right = snapshot.piece(records, 0, len(records))
        state.chain = (1, snapshot.chain("", right))  # the document names the right piece
        other = [*records[:-1], Record(records[-1].seq, "user/message", 1, plain={"x": 1})]
        wrong = snapshot.piece(other, 0, len(records))  # the store holds another piece
        writer.save_snapshot(mark, snapshot.encode(state, session.header), SnapshotPiece(0, wrong))
        session.close()
        reopened = live(store.open("s-1"), interval=1)
        assert reopened.resumed is not None
        assert reopened.resumed.chain is not None
        self.check_shown(reopened, store)  # from the log, not the piece
        append_all(reopened, turn_events(2, ended=False))
        flushed(reopened)  # the next snapshot starts the pieces over, from the log
        reopened.close()
        again = live(store.open("s-1"), interval=0)
        self.check_shown(again, store)
        assert again.resumed is not None
        assert again.resumed.chain is not None
        assert again.resumed.chain[0] == 1
        again.close()

    def test_deleting_a_session_deletes_its_snapshots(self, store: SessionStore) -> None:
        self.snapshotted(store)
        store.delete("s-1")
        session = live(self.keeping(store), interval=0)  # the same id and header, anew
        append_all(session, turn_events(1, ended=False))
        flushed(session)
        written = envelopes(list(session.records))
        session.close()
        reopened = self.check_opens_as_replay(store, written)
        assert reopened.resumed is None or reopened.resumed.seq <= len(written)
        reopened.close()


__all__ = ["SnapshotContract", "turn_events"]
