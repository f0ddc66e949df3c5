"""The jobs of a writer's writing thread (batches to write, frames to pack, flushes waiting),
and what its status reports.

See :mod:`seamhost_persistence_jsonl.writing` for the protocol they serve.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    import asyncio

    from seamhost.store import StorageError
    from seamhost_persistence_jsonl.format import LogEncoder


@attrs.frozen
class Batch:
    """A write: the envelope lines of every queued record, and the flushes waiting for it."""

    lines: list[bytes]
    first_seq: int
    waiters: list[Waiter]
    packed: list[bytes]  # the frames of lines[:packed_lines], compressed ahead
    packed_lines: int
    inline: bool = False  # written by a flush in its caller's thread (an idle loop's)

    def pieces(self, encoder: LogEncoder, prev: bytes) -> list[bytes]:
        """The batch's frames, in order, after the chain digest `prev`: those packed ahead,
        then the rest compressed now (on every core when a flush waits for the write)."""
        threads = -1 if self.waiters or self.inline else 0
        first = self.first_seq + self.packed_lines
        after = encoder.chain_of(self.packed[-1]) if self.packed else prev
        rest = encoder.batch_pieces(self.lines[self.packed_lines :], first, after, threads=threads)
        return [*self.packed, *rest]


@attrs.frozen
class Pack:
    """Full frames' lines, to be compressed ahead of the batch that will write them.

    Once a full frame's worth (FRAME_TARGET bytes) of lines is queued, the writing thread
    compresses every full frame queued, in one job, while the window is still open and the
    appender goes on (the compressor releases the GIL), instead of compressing everything when
    the window closes. The frames are cut where the batch would cut them and written, unchanged,
    with the batch. A closed window goes first: an appender that outruns the packer (there is
    always another full frame) must not keep the batch from being written. Each job gives up
    the GIL about once: getting it back means waiting out the appender's switch interval (5 ms).
    """

    lines: list[bytes]
    first_seq: int
    cuts: list[int]  # where each frame ends in `lines` (the last is len(lines))
    prev: bytes  # the chain digest of the frame before the first (layout 2)


class Waiter:
    """A flush waiting for `target` records to be durable; settled from the writing thread."""

    __slots__ = ("future", "loop", "target")

    def __init__(
        self, target: int, loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]
    ) -> None:
        self.target = target
        self.loop = loop
        self.future = future

    def settle(self, error: StorageError | None) -> None:
        """Resolve the flush in its loop's thread (a closed loop: nobody awaits it any more)."""
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(_resolve, self.future, error)


def _resolve(future: asyncio.Future[None], error: StorageError | None) -> None:
    if future.done():
        return  # the flush was cancelled; the write went on regardless
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)


@attrs.frozen
class WriterStatus:
    """A snapshot of a writer's progress, for UIs and diagnostics."""

    durable: int  # records durable in the log (the next seq it stores)
    pending: int  # records handed over and not yet durable
    published: bool  # whether the log exists on disk
    failed_attempts: int  # writes that failed since the last one that succeeded
    last_error: StorageError | None
    packed: int = 0  # frames of the pending records compressed ahead of their write
