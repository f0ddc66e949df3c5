"""What the persistence contract writes, and the steps its tests repeat to write and compare it.

:func:`sample_events` and :func:`make_header` are the session every test stores; a backend's own
tests may use them too, to check their format against the same awkward content.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from seamhost.session.live import Session
from seamhost.session.record import Record
from seamhost.session.store import SessionHeader, SessionWriter


def sample_events() -> list[tuple[str, dict[str, Any], bool]]:
    """Events of every core shape and awkward content, one unknown but ignorable."""
    call = {"call_id": "call-1", "name": "read_file", "arguments": '{"path": "a.txt"}'}
    return [
        ("turn/start", {"turn": 1}, False),
        (
            "user/message",
            {
                "turn": 1,
                "step": 1,
                "content": 'héllo \u2028 "quoted" \\ back\nslash \u0000 \U0001f600',
                "source": "user",
            },
            False,
        ),
        ("step/start", {"turn": 1, "step": 1}, False),
        ("assistant/message", {"turn": 1, "step": 1, "content": "", "tool_calls": [call]}, False),
        ("tool/call", {"turn": 1, "step": 1, **call, "descriptor_digest": "sha256:00"}, False),
        (
            "tool/result",
            {
                "turn": 1,
                "step": 1,
                "call_id": "call-1",
                "is_error": False,
                "content": "x" * 5000,
                "value": {"big": 2**62, "neg": -7, "float": 1.5e-7, "deep": [[], {}, None, True]},
            },
            False,
        ),
        ("vendor/telemetry", {"tokens": [1, 2, 3]}, True),
        ("step/end", {"turn": 1, "step": 1}, False),
    ]


def make_header(session_id: str, created: int = 1_700_000_000_000) -> SessionHeader:
    """The header of session `session_id`, fixed but for its id and creation time."""
    return SessionHeader(
        session_id=session_id,
        created=created,
        cwd="/work/space",
        bundle={"profile": "contract", "digest": "sha256:" + "0" * 64, "plugins": []},
        durability={"barriers": True, "store": "contract"},
    )


def flush(writer: SessionWriter) -> None:
    """Flush `writer` from the synchronous code of a test."""
    asyncio.run(writer.flush())


def append_all(session: Session, events: list[tuple[str, dict[str, Any], bool]]) -> None:
    """Append `events`, ``(type, data, ignorable)`` each, to `session`."""
    for type_, data, ignorable in events:
        session.append_data(type_, data, ignorable=ignorable)


def envelopes(records: Iterable[Record]) -> list[bytes]:
    """What the store keeps of each record, to compare sessions byte for byte."""
    return [record.envelope() for record in records]


__all__ = ["append_all", "envelopes", "flush", "make_header", "sample_events"]
