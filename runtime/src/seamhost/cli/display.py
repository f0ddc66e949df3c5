"""How the views show values: markup escaped, long text clipped, times local, headers whole."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.markup import escape

if TYPE_CHECKING:
    from seamhost.session.store import SessionHeader


def esc(text: str) -> str:
    """`text` with rich markup escaped: shown as written, never read as a style."""
    return escape(text)


def clip(text: str, limit: int = 160) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis, escaped."""
    flat = " ".join(text.split())
    return esc(flat if len(flat) <= limit else flat[: limit - 1] + "…")


def format_time(ms: int) -> str:
    """A time in milliseconds since the epoch, in local time, to the second."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ms / 1000))


def header_json(header: SessionHeader) -> dict[str, Any]:
    """A session's header as the listings and the timeline show it."""
    bundle = header.bundle
    return {
        "session_id": header.session_id,
        "created": header.created,
        "cwd": header.cwd,
        "profile": bundle.get("profile"),
        "bundle_digest": bundle.get("digest"),
        "barriers": header.barriers,
        "format": header.format,
    }
