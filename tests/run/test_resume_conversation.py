"""The conversation the model is shown, after a resume: from the snapshot's pieces, never other.

A session of the `default` profile's bundle (persistence-jsonl, a snapshot every few records) is
written with every kind of record the conversation is made of; reopened, the agent's messages
are exactly those a full replay derives (the snapshot moved away), and the log before the
snapshot's window is not read to make them (docs/design.md, "Resume snapshots").
"""

from __future__ import annotations

import asyncio
import gc
import shutil
from pathlib import Path
from typing import Any

import pytest
from seamhost_persistence_jsonl.format import PIECES_NAME, SNAPSHOT_NAME

from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session, open_session
from seamhost.session.live import Session
from seamhost.session.record import Record


@pytest.fixture
def bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Bundle:
    monkeypatch.setenv("SEAMHOST_HOME", str(tmp_path / "home"))
    profile = tmp_path / "snappy.toml"
    profile.write_text(
        '[profile]\nname = "snappy"\nextends = ["default"]\n'
        "[plugins.persistence-jsonl]\nsnapshot_every = 7\n"
    )
    return build_bundle(resolve_profile(str(profile)))


def write_turns(session: Session, turns: range) -> None:
    """Turns with each record type the conversation is derived from, flushed every step."""
    append = session.append_data
    for turn in turns:
        append("turn/start", {"turn": turn})
        append("user/message", {"turn": turn, "step": 0, "content": f"go {turn}", "source": "user"})
        if turn % 3 == 0:
            mode = ("read-only", "workspace-write")[turn % 2]
            append("sandbox/mode", {"mode": mode, "source": "user"})
            append("approval/policy", {"policy": ("ask", "never")[turn % 2], "source": "user"})
        for step in (1, 2):
            call = {"call_id": f"c{turn}-{step}", "name": "read_file", "arguments": "{}"}
            append("step/start", {"turn": turn, "step": step})
            append(
                "assistant/message",
                {"turn": turn, "step": step, "content": "ok", "tool_calls": [call]},
            )
            append(
                "tool/result",
                {
                    "turn": turn,
                    "step": step,
                    "call_id": call["call_id"],
                    "is_error": step == 2,
                    "content": f"result {turn}.{step}",
                },
            )
            if step == 2:
                contexts = [f"note {turn}"]
                append("agent/inbox/spliced", {"turn": turn, "step": step, "contexts": contexts})
            append("step/end", {"turn": turn, "step": step})
            asyncio.run(session.flush())
        append("turn/end", {"turn": turn, "reason": "completed"})
    asyncio.run(session.flush())


def messages(bundle: Bundle, workspace: Path) -> tuple[tuple[dict[str, object], ...], bool]:
    """The agent's messages after reopening, and whether the whole log had to be read."""
    session, plan = open_session(bundle, "s-1")
    try:
        assert plan is None
        shown = Agent(bundle, session, workspace=workspace).messages
        return shown, session._records.loaded
    finally:
        session.close()


def test_the_resumed_conversation_is_the_replayed_one(bundle: Bundle, tmp_path: Path) -> None:
    session = create_session(bundle, session_id="s-1", cwd=str(tmp_path))
    write_turns(session, range(1, 9))
    session.close()
    reopened, _ = open_session(bundle, "s-1")  # resumed, written on: its pieces continue
    write_turns(reopened, range(9, 13))
    reopened.close()
    directory = tmp_path / "home" / "sessions" / "s-1"
    assert (directory / PIECES_NAME).exists()
    resumed, read_all = messages(bundle, tmp_path)
    assert not read_all, "the messages came from the pieces and the records after them"
    aside = tmp_path / "aside"
    aside.mkdir()
    shutil.move(directory / SNAPSHOT_NAME, aside / SNAPSHOT_NAME)
    replayed, read_all = messages(bundle, tmp_path)
    assert read_all
    assert resumed == replayed
    kinds = {m["role"] for m in replayed}
    assert kinds == {"user", "assistant", "tool", "context"}
    assert sum("sandbox mode" in str(m.get("content")) for m in replayed) >= 2
    assert len(replayed) > 12 * 5


def test_damaged_pieces_are_a_replay_of_the_conversation(bundle: Bundle, tmp_path: Path) -> None:
    session = create_session(bundle, session_id="s-1", cwd=str(tmp_path))
    write_turns(session, range(1, 6))
    session.close()
    directory = tmp_path / "home" / "sessions" / "s-1"
    expected, _ = messages(bundle, tmp_path)
    pieces = directory / PIECES_NAME
    data = bytearray(pieces.read_bytes())
    data[len(data) // 2] ^= 0x20  # one flipped bit inside a record of the pieces
    pieces.write_bytes(bytes(data))
    damaged, read_all = messages(bundle, tmp_path)
    assert read_all, "pieces that do not check out: the conversation comes from the log"
    assert damaged == expected


def test_deriving_the_conversation_pauses_the_collector_and_restores_it(
    bundle: Bundle, tmp_path: Path
) -> None:
    # The collector is paused while the messages are made (each full collection would walk
    # them all again), and left as it was found: running, or paused by someone else.
    session = create_session(bundle, session_id="s-1", cwd=str(tmp_path))
    write_turns(session, range(1, 3))
    session.close()
    seen: list[bool] = []
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            reopened, _ = open_session(bundle, "s-1")
            agent = Agent(bundle, reopened, workspace=tmp_path)
            original = agent._view.observe

            def spy(record: Record, original: Any = original) -> None:
                seen.append(gc.isenabled())
                original(record)

            agent._view.observe = spy  # type: ignore[method-assign]
            assert agent.messages
            assert gc.isenabled() is enabled
            reopened.close()
        finally:
            gc.enable()
    assert seen
    assert not any(seen)
