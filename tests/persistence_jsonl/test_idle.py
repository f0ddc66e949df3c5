"""When a flush may sync in place: only on a loop with nothing else to run or watch."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

import pytest
from seamhost_persistence_jsonl import writing
from seamhost_persistence_jsonl.idle import TIMER_MARGIN_S, loop_is_idle
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.session.live import Session
from seamhost.testing.persistence import make_header


def test_a_loop_running_only_the_caller_is_idle() -> None:
    async def main() -> bool:
        return loop_is_idle(asyncio.get_running_loop())

    assert asyncio.run(main())


def test_a_ready_callback_or_a_task_makes_the_loop_busy() -> None:
    async def main() -> tuple[bool, bool]:
        loop = asyncio.get_running_loop()
        handle = loop.call_soon(lambda: None)
        with_callback = loop_is_idle(loop)
        handle.cancel()
        await asyncio.sleep(0)
        task = asyncio.create_task(asyncio.sleep(0))
        with_task = loop_is_idle(loop)
        await task
        return with_callback, with_task

    assert asyncio.run(main()) == (False, False)


def test_a_timer_due_soon_makes_the_loop_busy_and_a_distant_one_does_not() -> None:
    async def main() -> tuple[bool, bool]:
        loop = asyncio.get_running_loop()
        distant = loop.call_later(100 * TIMER_MARGIN_S, lambda: None)
        with_distant = loop_is_idle(loop)
        soon = loop.call_later(TIMER_MARGIN_S / 10, lambda: None)
        with_soon = loop_is_idle(loop)
        distant.cancel()
        soon.cancel()
        return with_distant, with_soon

    assert asyncio.run(main()) == (True, False)


def test_a_watched_socket_or_a_child_process_makes_the_loop_busy() -> None:
    async def main() -> tuple[bool, bool, bool]:
        loop = asyncio.get_running_loop()
        left, right = socket.socketpair()
        try:
            loop.add_reader(left.fileno(), lambda: None)
            with_reader = loop_is_idle(loop)
            loop.remove_reader(left.fileno())
        finally:
            left.close()
            right.close()
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", "import time; time.sleep(0.2)", stdout=asyncio.subprocess.PIPE
        )
        with_child = loop_is_idle(loop)
        await child.communicate()
        await asyncio.sleep(0.05)  # the transport lets its pipes go
        return with_reader, with_child, loop_is_idle(loop)

    assert asyncio.run(main()) == (False, False, True)


def test_the_parallel_checkpoints_of_a_step_sync_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Eight calls of a step append and flush in parallel tasks: the session's first flush lets
    # the others join it (Session.flush), so the one write finds the loop idle and syncs in
    # place instead of handing the sync to the writing thread and waking the loop after it.
    seen: list[bool] = []

    def spy(loop: asyncio.AbstractEventLoop) -> bool:
        seen.append(loop_is_idle(loop))
        return seen[-1]

    monkeypatch.setattr(writing, "loop_is_idle", spy)
    store = JsonlStore(tmp_path, batch_window_ms=200)
    session = Session(store.create(make_header("s-1")), flush=lambda s: s.writer.flush())
    session.append_data("turn/start", {"turn": 1})

    async def call(n: int) -> None:
        session.append_data("step/start", {"turn": 1, "step": n})
        await session.flush()

    async def steps() -> None:
        await session.flush()  # publishing the log
        for _ in range(3):
            await asyncio.gather(*(call(n) for n in range(8)))

    asyncio.run(steps())
    session.close()
    assert seen == [True] * 4  # one flush per step (and one to publish), each in place
    assert len(list(store.read("s-1").records())) == 1 + 3 * 8
