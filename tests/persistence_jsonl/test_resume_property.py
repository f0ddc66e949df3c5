"""Property: opening from resume snapshots yields a full replay's state, or refuses as damage.

Hypothesis generates sessions (turns, steps, calls, approvals, usage, sandbox changes, a turn
left open or not), flushes them at random points with snapshots every few records, sometimes
closes and reopens midway (resuming from a snapshot and writing on), then damages one random
byte of the log, of its snapshot file or of its pieces. Opening must then give exactly the state
a full replay of the undamaged log gives (the same records, and the same records of the
conversation, whether they come from the pieces or from the log), or refuse with the documented
corruption error, `SessionDamaged`, and only when a full read of the log refuses too. Framed logs
only: plain logs carry no checksums, so a flipped bit inside a string is not damage they can see.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from seamhost_persistence_jsonl.format import PIECES_NAME, SNAPSHOT_NAME
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.errors import SessionDamaged
from seamhost.session.derived import SHOWN, replay
from seamhost.session.live import Session
from seamhost.testing.persistence import envelopes, make_header

if TYPE_CHECKING:
    from seamhost.session.store import SessionStore


def event(kind: str, n: int) -> tuple[str, dict[str, Any]]:
    """An event of `kind`, its fields varied by `n`."""
    call = f"c{n % 3}"
    table: dict[str, dict[str, Any]] = {
        "turn/start": {"turn": n},
        "turn/end": {"turn": n, "reason": "completed"},
        "step/start": {"turn": 1, "step": n},
        "step/end": {"turn": 1, "step": n},
        "user/message": {"turn": 1, "step": 0, "content": "é" * n, "source": "user"},
        "assistant/message": {
            "turn": 1,
            "step": n,
            "content": "a" * n,
            "tool_calls": [{"call_id": call, "name": "t", "arguments": "{}"}],
        },
        "tool/result": {
            "turn": 1,
            "step": n,
            "call_id": call,
            "is_error": n % 2 == 1,
            "content": "r" * n,
        },
        "model/usage": {
            "turn": 1,
            "step": 1,
            "attempt": 1,
            "input_tokens": n,
            "output_tokens": 2 * n,
        },
        "tool/dispatch": {
            "call_id": call,
            "attempt": 1 + n % 2,
            "sandbox_mode": "read-only",
            "args_digest": "sha256:0",
        },
        "approval/asked": {
            "id": f"a{n % 4}",
            "call_id": call,
            "tool": "t",
            "reason": "r",
            "args_digest": "sha256:0",
        },
        "approval/decided": {"id": f"a{n % 4}", "outcome": "allowed-once"},
        "sandbox/mode": {
            "mode": ("read-only", "workspace-write", "danger-full-access")[n % 3],
            "source": "user",
        },
    }
    return kind, table[kind]


KINDS = st.sampled_from(
    [
        "turn/start",
        "turn/start",
        "turn/end",
        "step/start",
        "step/end",
        "user/message",
        "assistant/message",
        "tool/result",
        "model/usage",
        "tool/dispatch",
        "approval/asked",
        "approval/decided",
        "sandbox/mode",
    ]
)
# Each step: the event to append, then 0 (nothing), 1 (flush) or 2 (flush, close and reopen).
STEPS = st.lists(st.tuples(KINDS, st.integers(0, 50), st.sampled_from([0, 0, 0, 1, 1, 2])))
DAMAGE = st.one_of(
    st.none(),
    st.tuples(st.sampled_from(["log", "snapshot", "pieces"]), st.floats(0, 1), st.integers(1, 255)),
)


def write_steps(store: SessionStore, session_id: str, steps: list[tuple[str, int, int]]) -> None:
    """Write session `session_id` to `store` as `steps` say (any store: postgres uses it too)."""
    session = Session(store.create(make_header(session_id)), flush=lambda s: s.writer.flush())
    for kind, n, then in [("turn/start", 1, 0), *steps]:
        session.append_data(*event(kind, n))
        if then:
            asyncio.run(session.flush())
        if then == 2:
            session.close()
            session = Session(store.open(session_id), flush=lambda s: s.writer.flush())
    asyncio.run(session.flush())
    session.close()


def write(root: Path, steps: list[tuple[str, int, int]], interval: int) -> None:
    write_steps(JsonlStore(root, batch_window_ms=0, snapshot_every=interval), "s-1", steps)


def damage(directory: Path, what: tuple[str, float, int] | None) -> None:
    if what is None:
        return
    target, where, xor = what
    names = {"snapshot": SNAPSHOT_NAME, "pieces": PIECES_NAME, "log": "session.v2.jsonl.zst"}
    path = directory / names[target]
    if not path.exists():
        return
    data = bytearray(path.read_bytes())
    index = min(int(where * len(data)), len(data) - 1)
    data[index] ^= xor
    path.write_bytes(bytes(data))


def check_open(store: SessionStore, session_id: str, damage_it: Callable[[], None]) -> None:
    """Damage the session (`damage_it`), open it: a full replay's state and records, or a
    refusal a full read shares (any store: postgres uses it too)."""
    original = list(store.read(session_id).records())
    expected = replay(original)
    damage_it()
    try:
        session = Session(store.open(session_id))
    except SessionDamaged:
        with pytest.raises(SessionDamaged):  # refused only when a full read refuses too
            list(store.read(session_id).records())
        return
    try:
        opened = session.resumed
        if opened is not None:
            state = opened.copy().fold(session.records[opened.seq :])
        else:
            state = replay(list(session.records))
        assert state.summary() == expected.summary()
        assert {k: session.last(k) for k in expected.last} == expected.last
        assert session.next_seq == len(original)
        try:  # the conversation's records: from the snapshot's pieces, else from the log
            shown = list(session.shown_records())
        except SessionDamaged:
            assert opened is not None, "a full replay read these records at open"
        else:
            assert envelopes(shown) == envelopes([r for r in original if r.type in SHOWN])
        try:
            records = list(session.records)
        except SessionDamaged:
            assert opened is not None, "a full replay read these records at open"
        else:
            assert envelopes(records) == envelopes(original)
    finally:
        session.close()


def run_case(steps: list[tuple[str, int, int]], interval: int, what: Any) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory) / "store"
        write(root, steps, interval)
        check_open(JsonlStore(root, snapshot_every=0), "s-1", lambda: damage(root / "s-1", what))


@settings(max_examples=40, deadline=None)
@given(steps=STEPS, interval=st.integers(1, 8), what=DAMAGE)
def test_opening_from_snapshots_is_a_replay_or_a_refusal(
    steps: list[tuple[str, int, int]], interval: int, what: Any
) -> None:
    run_case(steps, interval, what)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(steps=STEPS, interval=st.integers(1, 8), what=DAMAGE)
def test_opening_from_snapshots_is_a_replay_or_a_refusal_many(
    steps: list[tuple[str, int, int]], interval: int, what: Any
) -> None:
    run_case(steps, interval, what)


@contextlib.contextmanager
def reopened(steps: list[tuple[str, int, int]], interval: int) -> Iterator[Session]:
    """The session `steps` write (snapshots every `interval` records), opened again."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory) / "store"
        write(root, steps, interval)
        session = Session(JsonlStore(root).open("s-1"))
        try:
            yield session
        finally:
            session.close()


def test_a_snapshot_is_used_when_one_fits() -> None:
    """The property above is not vacuous: undamaged, such a session opens from its snapshot."""
    with reopened([("user/message", n, 1) for n in range(20)], interval=3) as session:
        assert session.resumed is not None
        # One turn: snapshotted once, when 3 records were durable; a later snapshot would hold
        # the same window, and the records after it are read from the log as the tail anyway.
        assert (session.resumed.seq, session.resumed.window_start) == (3, 0)
        assert len(session.records) == 21
    turns = [(kind, n, n % 2) for n in range(2, 12) for kind in ("turn/start", "user/message")]
    with reopened(turns, interval=3) as session:
        assert session.resumed is not None
        assert session.resumed.window_start > 0
        assert session.resumed.chain is not None  # it has pieces, and they check out:
        shown = list(session.shown_records())
        assert [r.type for r in shown] == ["turn/start", *["turn/start", "user/message"] * 10]
        assert not session._records.loaded  # the log before the window was not read
