"""Whether an event loop has anything else to do: when it has not, a flush syncs in place.

A flush's sync is handed to the writing thread so that the event loop runs other work meanwhile.
The hand-off (waking the thread, then the loop) is most of what a small flush costs beyond its
write and sync. When the loop has nothing else to run or to watch, nothing is kept waiting by
the sync, and the flush writes and syncs in the caller's thread instead (design.md §6).

"Nothing else" is read from asyncio's own selector loops, defensively: no callback ready, no
timer due within `TIMER_MARGIN_S`, and no file descriptor watched but the loop's own wake-up
pipe (a subprocess's output, a socket or a stream being read all register one). Any other loop
(uvloop...) or any doubt counts as busy, so that the sync leaves the loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

# A timer due sooner than this keeps the sync off the loop (it might fire during the sync).
TIMER_MARGIN_S = 1.0


def loop_is_idle(loop: asyncio.AbstractEventLoop) -> bool:
    """True only when `loop` surely has nothing to run or watch but the caller's own await."""
    ready: Any = getattr(loop, "_ready", None)
    scheduled: Any = getattr(loop, "_scheduled", None)
    selector: Any = getattr(loop, "_selector", None)
    if ready is None or scheduled is None or selector is None or ready:
        return False
    if scheduled and scheduled[0].when() < loop.time() + TIMER_MARGIN_S:
        return False
    try:
        watched = len(selector.get_map())
    except Exception:  # a selector of another kind: busy, to be safe
        return False
    return watched <= 1  # the loop's wake-up pipe, which signal handlers use too
