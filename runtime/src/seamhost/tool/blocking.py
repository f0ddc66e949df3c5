"""Run a coroutine to its end from synchronous code, for hooks that are synchronous.

Some hooks are synchronous (``tools/register`` at bundle build) but a plugin's clients are
asynchronous (the MCP and A2A SDKs). :func:`run_sync` runs the coroutine on a loop of its own,
on this thread when none is running, else on a short-lived thread, so it works the same from
``seamhost run`` and from inside an application's event loop (the embedding API, a server).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(make: Callable[[], Awaitable[T]], *, thread_name: str = "seamhost-run-sync") -> T:
    """Await ``make()`` to its end and return its result (or raise its exception here).

    `make` is called on the loop that awaits it, so whatever it binds to a loop binds to that one.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(make))
    box: list[tuple[bool, Any]] = []

    def work() -> None:
        try:
            box.append((True, asyncio.run(_await(make))))
        except BaseException as exc:  # re-raised on the caller's thread
            box.append((False, exc))

    thread = threading.Thread(target=work, name=thread_name)
    thread.start()
    thread.join()
    ok, value = box[0]
    if not ok:
        raise value
    result: T = value
    return result


async def _await(make: Callable[[], Awaitable[T]]) -> T:
    return await make()
