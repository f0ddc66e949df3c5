"""One attempt's deadline: a single timer for the whole stream, not one per event.

``asyncio.timeout`` around each read would arm and disarm a timer for every event, which costs
as much as the SDK's own parsing of a small event. Here one timer is armed per attempt; when it
fires while the attempt waits for the SDK, it cancels that wait (and only that wait: while the
caller handles an event, it just marks the attempt expired, which the next read reports). Any
error of the wait is classified (:func:`~seamhost_model_anthropic.failures.classify`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from seamhost import ModelFailed
from seamhost_model_anthropic.failures import classify

T = TypeVar("T")


class Deadline:
    """The deadline of one attempt, `timeout_s` from now, in the running task."""

    __slots__ = ("expired", "handle", "redact", "task", "waiting")

    def __init__(self, timeout_s: float, redact: Callable[[str], str] = str) -> None:
        self.redact = redact  # applied to a classified error's message (see failures)
        loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        self.expired = self.waiting = False
        self.handle = loop.call_at(loop.time() + timeout_s, self._fire)

    def _fire(self) -> None:
        self.expired = True
        if self.waiting and self.task is not None:
            self.task.cancel()

    async def wait(self, awaitable: Awaitable[T]) -> T:
        """`awaitable`'s result; `ModelFailed` for its error or when the deadline passes."""
        if self.expired:
            raise _passed()
        self.waiting = True
        try:
            return await awaitable
        except asyncio.CancelledError:
            if self._cancelled_by_the_timer():
                raise _passed() from None
            raise
        except (ModelFailed, StopAsyncIteration):
            raise
        except Exception as exc:
            raise classify(exc, self.redact) from exc
        finally:
            self.waiting = False

    def _cancelled_by_the_timer(self) -> bool:
        """Whether the timer (and nothing else) cancelled the wait; if so, undo its cancel."""
        return self.expired and self.task is not None and self.task.uncancel() == 0

    def cancel(self) -> None:
        """Disarm the timer: the attempt is over."""
        self.handle.cancel()


def _passed() -> ModelFailed:
    return ModelFailed("deadline", "the attempt's deadline passed", retryable=True)
