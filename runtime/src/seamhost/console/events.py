"""``GET /events``: server-sent events telling the sessions page what changed.

The stream polls the store every :data:`POLL_S` seconds, cheaply (each session's stat, no log
read: :func:`seamhost.console.views.fingerprint`), and when anything changed (and once at the
start) sends one ``sessions`` event whose data is the JSON array of the sessions table's rows
(strings with control characters escaped, as the page shows them);
``static/live.js`` redraws the table from it. A comment line every :data:`KEEPALIVE_S` seconds
keeps proxies from closing a quiet stream. The stream ends when the browser goes away.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse

from seamhost.cli.terminal import terminal_safe
from seamhost.console import views

if TYPE_CHECKING:
    from starlette.requests import Request

    from seamhost.kernel.profile.pricing import Pricing
    from seamhost.session.store import SessionStore

POLL_S = 0.5
KEEPALIVE_S = 15.0


async def session_events(
    request: Request, store: SessionStore, pricing: Pricing
) -> StreamingResponse:
    """The event stream of the sessions table (see the module)."""
    return StreamingResponse(
        _stream(request, store, pricing),
        media_type="text/event-stream",
        headers={"x-accel-buffering": "no"},
    )


async def _stream(request: Request, store: SessionStore, pricing: Pricing) -> AsyncIterator[str]:
    seen: object = None
    quiet = 0.0
    while not await request.is_disconnected():
        mark = await run_in_threadpool(views.fingerprint, store)
        if mark != seen:
            seen = mark
            rows = await run_in_threadpool(views.session_rows, store, pricing)
            shown = [{k: _shown(v) for k, v in row.items()} for row in rows]
            quiet = 0.0
            yield f"event: sessions\ndata: {orjson.dumps(shown).decode()}\n\n"
        elif quiet >= KEEPALIVE_S:
            quiet = 0.0
            yield ": still here\n\n"
        await asyncio.sleep(POLL_S)
        quiet += POLL_S


def _shown(value: object) -> object:
    # As the page's own table shows it: control characters escaped (`live.js` sets text only).
    return terminal_safe(value) if isinstance(value, str) else value
