"""The jobs of a writer's writing thread: batches to write, frames to pack, flushes waiting.

See :mod:`seamhost_persistence_jsonl.writing` for the protocol they serve.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    import asyncio

    from seamhost_persistence_jsonl.errors import StorageError

Settle = Callable[["StorageError | None"], None]


@attrs.frozen
class Batch:
    """A write: the envelope lines of every queued record, and the flushes waiting for it."""

    lines: list[bytes]
    first_seq: int
    waiters: list[Waiter]
    packed: list[bytes]  # the frames of lines[:packed_lines], compressed ahead
    packed_lines: int


@attrs.frozen
class Pack:
    """A full frame's lines, to be compressed ahead of the batch that will write them."""

    lines: list[bytes]
    first_seq: int


@attrs.frozen(eq=False)
class Waiter:
    target: int  # the flush is done once this many records are durable
    settle: Settle


def future_settler(loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]) -> Settle:
    def settle(error: StorageError | None) -> None:
        def resolve() -> None:
            if future.done():
                return  # the flush was cancelled; the write went on regardless
            if error is None:
                future.set_result(None)
            else:
                future.set_exception(error)

        # A closed loop raises RuntimeError: nobody awaits this flush any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(resolve)

    return settle
