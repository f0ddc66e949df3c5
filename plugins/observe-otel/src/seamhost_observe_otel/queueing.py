"""Between the appender and the collector: a bounded queue and one thread that drains it.

The appender (the session's ``session/event`` observer, on the event loop) only ever appends a
finished span description to a bounded queue: when the queue is full the span is dropped and
counted, never waited for. One daemon thread does everything slow: it connects the sink, then
converts and exports what has accumulated, batch after batch. A collector that refuses, fails or
stalls therefore holds up this thread alone.

At exit :meth:`SpanQueue.close` gives the thread a bounded time to send what is left; what it
could not send is counted as dropped. :class:`Report` is the account: spans sent, spans dropped
and the first problem, which the plugin turns into its one warning line of the run.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol

import attrs

from seamhost.errors import describe
from seamhost_observe_otel.spans import SpanDescription

CAPACITY = 2048  # spans waiting at most; the OpenTelemetry SDK's default queue size
BATCH = 512  # spans per export request at most
LINGER_S = 0.2  # how long a lone span waits for others to share its request
CONNECT_WAIT_S = 5.0  # how long an exit waits for the exporters to be made, at most
POLL_S = 0.05  # how often a closing queue looks whether the sink has given up


class Sink(Protocol):
    """Where the spans go: the OTLP exporters, or an in-memory one in tests."""

    def send(self, spans: Sequence[SpanDescription]) -> bool:
        """Export `spans`; True when the collector took them."""

    def problem(self) -> str | None:
        """What went wrong with the last request, if it failed (a refused connection...)."""

    def close(self) -> None:
        """Send what the sink still holds (its metrics) and release it."""


@attrs.frozen
class Report:
    """What became of a run's spans."""

    sent: int  # spans the collector took
    dropped: int  # spans lost: queue full, export failed, or still waiting at exit
    problem: str | None  # the first failure, for the warning line


class SpanQueue:
    """Finished spans, bounded, drained by one daemon thread started on the first span."""

    def __init__(self, connect: Callable[[], Sink], *, capacity: int = CAPACITY) -> None:
        self._connect = connect
        self._capacity = capacity
        self._spans: collections.deque[SpanDescription] = collections.deque()
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closing = False
        self._busy = 0  # spans being exported right now
        self._sink: Sink | None = None  # once connected
        self._finished = False  # the thread has stopped
        self.sent = 0
        self.dropped = 0
        self.problem: str | None = None

    def start(self) -> None:
        """Start the thread now, so that the sink connects while the run goes on."""
        with self._ready:
            self._start()

    def put(self, spans: Sequence[SpanDescription]) -> None:
        """Queue `spans`; what does not fit is dropped and counted. Never blocks on export."""
        with self._ready:
            self._start()
            room = max(0, self._capacity - len(self._spans))
            self._spans.extend(spans[:room])
            self.dropped += len(spans) - min(room, len(spans))
            self._ready.notify()

    def close(self, wait_s: float, *, connect_wait_s: float = CONNECT_WAIT_S) -> Report:
        """Let the thread send what is queued for at most `wait_s` seconds; count the rest.

        A sink still connecting (work on this machine, not the collector's) is first given up
        to `connect_wait_s` more. A sink whose last request failed is not waited for at all.
        """
        with self._ready:
            self._closing = True
            self._ready.notify_all()
            if self._thread is not None:
                self._wait_until(lambda: self._sink is not None or self._finished, connect_wait_s)
                self._wait_until(lambda: self._finished or self._sink_problem() is not None, wait_s)
            left = len(self._spans) + self._busy
            if left:  # still exporting, or the thread stopped: what is left is lost
                self.dropped += left
                self._spans.clear()
                self._busy = 0
                self._note(
                    self._sink_problem() or "the collector did not answer before the process ended"
                )
            return Report(self.sent, self.dropped, self.problem)

    def _wait_until(self, done: Callable[[], bool], wait_s: float) -> None:
        """Wait (holding the lock between looks) until `done()` or `wait_s` seconds passed."""
        deadline = time.monotonic() + wait_s
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            # The sink notes problems without telling the condition: look again shortly.
            self._ready.wait(min(left, POLL_S))

    def _sink_problem(self) -> str | None:
        return self._sink.problem() if self._sink is not None else None

    # -- the thread ------------------------------------------------------------------------------

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._drain, name="observe-otel", daemon=True)
            self._thread.start()

    def _drain(self) -> None:
        sink: Sink | None = None
        try:
            sink = self._connect()
            with self._ready:
                self._sink = sink
                self._ready.notify_all()
            while (batch := self._next_batch()) is not None:
                self._export(sink, batch)
        except Exception as exc:  # a sink that cannot even start: every span is dropped
            with self._ready:
                self._note(f"observe-otel could not start its exporter: {describe(exc)}")
                self.dropped += len(self._spans) + self._busy
                self._spans.clear()
                self._busy = 0
        finally:
            if sink is not None:
                try:
                    sink.close()
                except Exception as exc:
                    with self._ready:
                        self._note(describe(exc))
            with self._ready:
                self._finished = True
                self._ready.notify_all()

    def _next_batch(self) -> list[SpanDescription] | None:
        """The next spans to send, after a short linger; None once closing and empty."""
        with self._ready:
            while not self._spans and not self._closing:
                self._ready.wait()
            if not self._spans:
                return None
            if len(self._spans) < BATCH and not self._closing:
                self._ready.wait(LINGER_S)
            count = min(BATCH, len(self._spans))
            batch = [self._spans.popleft() for _ in range(count)]
            self._busy = count
            return batch

    def _export(self, sink: Sink, batch: list[SpanDescription]) -> None:
        try:
            ok = sink.send(batch)
            problem = None if ok else sink.problem()
        except Exception as exc:
            ok, problem = False, describe(exc)
        with self._ready:
            if not self._busy:  # close() gave up on this batch and counted it already
                return
            self._busy = 0
            if ok:
                self.sent += len(batch)
            else:
                self.dropped += len(batch)
                self._note(problem or "the collector refused the spans")

    def _note(self, problem: str) -> None:
        if self.problem is None:
            self.problem = problem
