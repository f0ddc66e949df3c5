"""Flushes made while one is about to start join it (``Session.flush``, docs/design.md §6).

The parallel calls of a step reach their checkpoints one after the other; the first flush lets
the tasks ready at that moment run first, so that one write covers them all and the others
wait for it. These tests drive a real session over the memory store with a counting flush.
"""

from __future__ import annotations

import asyncio

import pytest

from seamhost.session.live import Session
from seamhost.session.memory import MemoryStore
from seamhost.testing.persistence import make_header


class Flushes:
    """The session's flush function: counts the calls, may fail or block until released."""

    def __init__(self) -> None:
        self.calls = 0
        self.error: Exception | None = None
        self.gate: asyncio.Event | None = None

    async def __call__(self, session: Session) -> None:
        self.calls += 1
        if self.gate is not None:
            await self.gate.wait()
        if self.error is not None:
            raise self.error
        await session.writer.flush()


STORES: dict[int, MemoryStore] = {}  # each session's store, by the session's id()


def new_session(flushes: Flushes) -> Session:
    store = MemoryStore()
    session = Session(store.create(make_header("s-1")), flush=flushes)
    STORES[id(session)] = store
    session.append_data("turn/start", {"turn": 1})
    return session


def stored(session: Session) -> bool:
    """Whether the store holds every record of the session, which it then closes."""
    session.close()
    return list(STORES.pop(id(session)).read(session.id).records()) == list(session.records)


def test_parallel_checkpoints_are_one_flush() -> None:
    flushes = Flushes()
    session = new_session(flushes)

    async def call(n: int) -> None:
        session.append_data("step/start", {"turn": 1, "step": n})
        await session.flush()

    async def step() -> None:
        await asyncio.gather(*(call(n) for n in range(8)))

    asyncio.run(step())
    assert flushes.calls == 1
    assert stored(session)  # every record: the last one too


def test_a_flush_that_started_is_not_joined_by_later_records() -> None:
    flushes = Flushes()
    session = new_session(flushes)

    async def run() -> None:
        flushes.gate = asyncio.Event()
        first = asyncio.create_task(session.flush())
        await asyncio.sleep(0.01)  # it started (it waits at the gate)
        session.append_data("step/start", {"turn": 1, "step": 1})
        second = asyncio.create_task(session.flush())
        await asyncio.sleep(0.01)
        flushes.gate.set()
        await asyncio.gather(first, second)

    asyncio.run(run())
    assert flushes.calls == 2  # the second record was not covered by the first flush
    assert stored(session)


def test_every_joiner_raises_the_flush_error() -> None:
    flushes = Flushes()
    flushes.error = OSError(5, "disk gone")
    session = new_session(flushes)

    async def run() -> list[BaseException | None]:
        results = await asyncio.gather(*(session.flush() for _ in range(4)), return_exceptions=True)
        return list(results)

    results = asyncio.run(run())
    assert flushes.calls == 1
    assert all(isinstance(r, OSError) for r in results)
    flushes.error = None
    asyncio.run(session.flush())  # nothing was marked durable: the next flush writes it
    assert flushes.calls == 2


@pytest.mark.parametrize(("cancelled", "calls"), [("joiner", 1), ("leader", 2)])
def test_a_cancellation_is_contained(cancelled: str, calls: int) -> None:
    # A joiner cancelled leaves the flush alone; the joiners of a flush whose caller was
    # cancelled make their own, and every record still reaches the store.
    flushes = Flushes()
    session = new_session(flushes)

    async def run() -> None:
        flushes.gate = asyncio.Event()
        leader = asyncio.create_task(session.flush())
        joiner = asyncio.create_task(session.flush())
        await asyncio.sleep(0.01)
        victim, survivor = (joiner, leader) if cancelled == "joiner" else (leader, joiner)
        victim.cancel()
        with pytest.raises(asyncio.CancelledError):
            await victim
        flushes.gate.set()
        await survivor

    asyncio.run(run())
    assert flushes.calls == calls
    assert stored(session)
