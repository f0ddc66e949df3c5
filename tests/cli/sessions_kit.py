"""Stored sessions in the shapes the listing and retention tests need: closed, open, parked,
holding an unknown outcome, failed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.session.live import Session
from seamhost.session.store import SessionHeader

Events = list[tuple[str, dict[str, Any]]]
CALL = {"call_id": "c-1", "name": "write_file", "arguments": '{"path": "a"}'}
OPEN: Events = [
    ("turn/start", {"turn": 1}),
    ("step/start", {"turn": 1, "step": 1}),
    ("user/message", {"turn": 1, "step": 1, "content": "write a", "source": "test"}),
    ("assistant/message", {"turn": 1, "step": 1, "content": "", "tool_calls": [CALL]}),
    ("tool/call", {"turn": 1, "step": 1, **CALL}),
]
ASKED: tuple[str, dict[str, Any]] = (
    "approval/asked",
    {
        "id": "ap-1",
        "call_id": "c-1",
        "tool": "write_file",
        "reason": "a person",
        "args_digest": "d",
    },
)
PARKED: Events = [
    *OPEN,
    ASKED,
    ("approval/deferred", {"id": "ap-1", "call_id": "c-1", "args_digest": "d"}),
]
CLOSED: Events = [("turn/start", {"turn": 1}), ("turn/end", {"turn": 1, "reason": "completed"})]
DISPATCHED: Events = [
    *OPEN,
    (
        "tool/dispatch",
        {"call_id": "c-1", "attempt": 1, "sandbox_mode": "workspace-write", "args_digest": "d"},
    ),
]
UNKNOWN: Events = [
    *DISPATCHED,
    (
        "tool/result",
        {
            "turn": 1,
            "step": 1,
            "call_id": "c-1",
            "is_error": True,
            "content": "the outcome is unknown",
            "error": {"code": "TOOL_OUTCOME_UNKNOWN", "message": "timed out"},
        },
    ),
    ("turn/end", {"turn": 1, "reason": "completed"}),
]
FAILED: Events = [("turn/start", {"turn": 1}), ("turn/end", {"turn": 1, "reason": "error"})]


def store_at(root: Path) -> JsonlStore:
    return JsonlStore(root, batch_window_ms=600_000)


def stored(
    root: Path,
    session_id: str,
    events: Events = CLOSED,
    *,
    created: int = 1_700_000_000_000,
    profile: str = "default",
    cwd: str = "/work/space",
) -> Path:
    """A session holding `events`, its writer closed; the path of its log."""
    store = store_at(root)
    header = SessionHeader(
        session_id=session_id,
        created=created,
        cwd=cwd,
        bundle={"profile": profile, "digest": "sha256:" + "0" * 64, "plugins": []},
        durability={"barriers": True, "store": "persistence-jsonl"},
    )
    session = Session(store.create(header))
    for type_, data in events:
        session.append_data(type_, data)
    asyncio.run(session.writer.flush())
    session.close()
    return Path(store.stat(session_id).location)
