"""The queue between the appender and the collector: it never blocks, drops and counts what
does not fit, and gives up on a collector at exit within its bound."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import attrs
import pytest
from seamhost_observe_otel.queueing import SpanQueue
from seamhost_observe_otel.spans import SpanDescription


def span(number: int) -> SpanDescription:
    return SpanDescription(f"s{number}", "internal", 1, number + 1, None, 0, 1, {})


@attrs.define
class Collector:
    """A sink that takes, refuses or holds what it is sent."""

    mode: str = "ok"
    release: threading.Event = attrs.Factory(threading.Event)
    got: list[str] = attrs.Factory(list)
    closed: bool = False

    def send(self, spans: Sequence[SpanDescription]) -> bool:
        if self.mode == "hold":
            self.release.wait(30)
        if self.mode == "refuse":
            return False
        if self.mode == "raise":
            raise ConnectionError("no route to collector")
        self.got += [s.name for s in spans]
        return True

    def problem(self) -> str | None:
        return "HTTP 503" if self.mode == "refuse" else None

    def close(self) -> None:
        self.closed = True


def test_everything_queued_is_sent_by_exit() -> None:
    collector = Collector()
    queue = SpanQueue(lambda: collector)
    queue.put([span(n) for n in range(5)])
    report = queue.close(5.0)
    assert (report.sent, report.dropped, report.problem) == (5, 0, None)
    assert collector.got == [f"s{n}" for n in range(5)]
    assert collector.closed


def test_a_full_queue_drops_and_counts_without_waiting() -> None:
    collector = Collector(mode="hold")
    queue = SpanQueue(lambda: collector, capacity=3)
    started = time.monotonic()
    for n in range(10):
        queue.put([span(n)])
    assert time.monotonic() - started < 1.0  # the appender never waits for the collector
    collector.release.set()
    report = queue.close(5.0)
    assert report.sent + report.dropped == 10
    assert report.dropped >= 6  # at most 3 waiting, plus the batch being sent


def test_a_stalled_collector_is_given_up_at_exit_within_the_bound() -> None:
    collector = Collector(mode="hold")
    queue = SpanQueue(lambda: collector)
    queue.put([span(1)])
    time.sleep(0.3)  # the first batch is being sent, and held
    queue.put([span(2)])
    started = time.monotonic()
    report = queue.close(0.5)
    assert time.monotonic() - started < 2.0
    assert (report.sent, report.dropped) == (0, 2)
    assert report.problem == "the collector did not answer before the process ended"
    collector.release.set()


@pytest.mark.parametrize(
    ("mode", "problem"),
    [("refuse", "HTTP 503"), ("raise", "ConnectionError: no route to collector")],
)
def test_a_failing_collector_is_counted_with_its_first_problem(mode: str, problem: str) -> None:
    queue = SpanQueue(lambda: Collector(mode=mode))
    queue.put([span(1), span(2)])
    report = queue.close(5.0)
    assert (report.sent, report.dropped, report.problem) == (0, 2, problem)


def test_a_sink_that_cannot_start_drops_everything_and_says_why() -> None:
    def broken() -> Collector:
        raise RuntimeError("no exporter")

    queue = SpanQueue(broken)
    queue.put([span(1)])
    time.sleep(0.1)
    queue.put([span(2)])
    report = queue.close(1.0)
    assert report.dropped == 2
    assert report.problem == "observe-otel could not start its exporter: RuntimeError: no exporter"


def test_a_queue_never_used_reports_nothing() -> None:
    report = SpanQueue(Collector).close(0.1)
    assert (report.sent, report.dropped, report.problem) == (0, 0, None)
