"""``seamhost session repair`` and ``session show``'s preview of it, on a real store."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from seamhost.cli.exitcodes import ExitCode
from seamhost.session.events import AssistantMessage, ProposedCall, StepStart, ToolCall, TurnStart
from seamhost.session.live import Session
from seamhost.session.store import SessionHeader
from tests.conftest import run_cli


def crashed_session(root: Path, session_id: str = "crashed") -> Path:
    """A session whose writer stopped mid-step: two calls proposed, none answered."""
    from seamhost_persistence_jsonl.store import JsonlStore

    store = JsonlStore(root)
    header = SessionHeader(session_id, 1, str(root), {"profile": "t"}, {"barriers": True})
    session = Session(store.create(header))
    session.append(TurnStart(turn=1))
    session.append(StepStart(turn=1, step=1))
    calls = (ProposedCall("a", "write_file", "{}"), ProposedCall("b", "read_file", "{}"))
    session.append(AssistantMessage(turn=1, step=1, content="", tool_calls=calls))
    session.append(ToolCall(turn=1, step=1, call_id="a", name="write_file", arguments="{}"))
    session.append_data(
        "tool/dispatch",
        {"call_id": "a", "attempt": 1, "sandbox_mode": "workspace-write", "args_digest": "d"},
    )
    asyncio.run(session.writer.flush())
    session.close()
    return root


def records(root: Path, session_id: str = "crashed") -> list[dict[str, object]]:
    shown = run_cli("session", "show", session_id, "--json", "--root", str(root))
    assert shown.returncode == 0, shown.stderr
    return [json.loads(line) for line in shown.stdout.splitlines()]


def test_show_previews_the_repair_without_writing(tmp_path: Path) -> None:
    root = crashed_session(tmp_path / "sessions")
    before = records(root)
    shown = run_cli("session", "show", "crashed", "--root", str(root))
    assert shown.returncode == 0, shown.stderr
    assert "repair would add (not written)" in shown.stdout
    assert "TOOL_OUTCOME_UNKNOWN" in shown.stdout
    assert "TOOL_NOT_STARTED" in shown.stdout
    assert records(root) == before


def test_dry_run_plans_and_repair_closes_once(tmp_path: Path) -> None:
    root = crashed_session(tmp_path / "sessions")
    before = records(root)
    dry = run_cli("session", "repair", "crashed", "--dry-run", "--json", "--root", str(root))
    assert dry.returncode == 0, dry.stderr
    [planned] = json.loads(dry.stdout)
    assert planned["repaired"] is False
    assert [(c["call_id"], c["code"]) for c in planned["plan"]["calls"]] == [
        ("a", "TOOL_OUTCOME_UNKNOWN"),
        ("b", "TOOL_NOT_STARTED"),
    ]
    assert records(root) == before

    done = run_cli("session", "repair", "crashed", "--root", str(root))
    assert done.returncode == 0, done.stderr
    assert "closed turn 1: a TOOL_OUTCOME_UNKNOWN, b TOOL_NOT_STARTED" in done.stdout
    after = records(root)
    assert after[: len(before)] == before
    assert [r["type"] for r in after[len(before) :]] == [
        "tool/result",
        "tool/result",
        "step/end",
        "turn/end",
        "session/repaired",
    ]
    again = run_cli("session", "repair", "--all", "--root", str(root))
    assert again.returncode == 0
    assert "nothing to repair" in again.stdout
    assert records(root) == after


def test_a_session_held_by_a_live_writer_is_refused(tmp_path: Path) -> None:
    from seamhost_persistence_jsonl.store import JsonlStore

    root = crashed_session(tmp_path / "sessions")
    writer = JsonlStore(root).open("crashed")  # this process is the live writer
    try:
        refused = run_cli("session", "repair", "crashed", "--root", str(root))
    finally:
        writer.close()
    assert refused.returncode == ExitCode.FAILURE
    assert "crashed" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert [r["type"] for r in records(root)][-1] == "tool/dispatch", "nothing was written"
