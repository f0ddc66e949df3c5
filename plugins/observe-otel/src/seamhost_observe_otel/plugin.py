"""The plugin object: a span builder per session, one export queue per bundle.

``session/event`` is the hot path: it runs on the appender's thread for every committed record,
so it only feeds the record to its session's pure :class:`~.builder.SpanBuilder` and hands the
spans that finishes to the bounded :class:`~.queueing.SpanQueue`. The queue's thread, started
with the first record, starts the metric reader and exports; nothing here waits for it.

The OpenTelemetry SDK is imported with this module and the exporters (with their HTTP stack) are
made by the factory, i.e. when a profile names the plugin and the bundle is built: before any
session runs, so that loading them never competes with a call. A profile without the plugin
never loads them (tests/observe_otel/test_imports.py).

At exit (``atexit``; or :meth:`ObserveOtel.close`, which tests and embedding applications call)
the spans still open are finished as incomplete, the queue gets :data:`EXIT_WAIT_S` to send
what is left, and if anything was lost one warning line says how much and why.
"""

from __future__ import annotations

import atexit
import logging
import threading
from typing import TYPE_CHECKING

from seamhost import PluginContext, hookimpl
from seamhost_observe_otel.builder import SessionFacts, SpanBuilder
from seamhost_observe_otel.export import SpanSender, otlp_json, rebuilt_spans
from seamhost_observe_otel.queueing import Report, Sink, SpanQueue
from seamhost_observe_otel.readable import resource
from seamhost_observe_otel.settings import NAME, Settings, traces_url_at
from seamhost_observe_otel.sink import OtlpExporters

if TYPE_CHECKING:
    from collections.abc import Iterable

    from opentelemetry.sdk.trace import ReadableSpan

    from seamhost import Record, Session, SessionHeader

EXIT_WAIT_S = 1.0  # what a process's exit waits for the collector at most
_HEAD, _TAIL = 60, 140  # the warning is one line: a long cause keeps its start and its end

logger = logging.getLogger("seamhost.observe_otel")


def connect(exporters: OtlpExporters, service_name: str) -> Sink:
    """The sink over the bundle's exporters; the queue's thread calls it once."""
    return exporters.sink(service_name)


class ObserveOtel:
    """Observes every session of the bundle and exports its spans."""

    def __init__(self, ctx: PluginContext) -> None:
        self.name = ctx.name
        self.settings = Settings.from_environ(ctx.environ)
        self.exporters = OtlpExporters.of(self.settings)
        self._builders: dict[str, SpanBuilder] = {}
        self._queue: SpanQueue | None = None
        self._lock = threading.Lock()
        self._senders: dict[str, SpanSender] = {}  # session export's, by traces URL

    @hookimpl
    def session_event(self, session: Session, record: Record) -> None:
        builder = self._builders.get(session.id)
        if builder is None:
            builder = self._builder(session)
        spans = builder.feed(record)
        if spans and self._queue is not None:
            self._queue.put(spans)

    def _builder(self, session: Session) -> SpanBuilder:
        with self._lock:
            builder = self._builders.get(session.id)
            if builder is None:
                facts = SessionFacts.of(session.header)
                builder = SpanBuilder(facts, capture_content=self.settings.capture_content)
                self._builders[session.id] = builder
            if self._queue is None:
                self._queue = SpanQueue(lambda: connect(self.exporters, self.settings.service_name))
                self._queue.start()  # the exporters are made before the first span is ready
                atexit.register(self.close)
            return builder

    # -- session/export: a stored log, after the fact (seamhost session export) ---------------

    def export_session(
        self, header: SessionHeader, records: Iterable[Record], *, endpoint: str | None = None
    ) -> int:
        """Send the spans of a stored log to `endpoint` (default: the OTEL_* settings' collector).

        Returns how many were sent; raises `SeamFailed` naming the URL when the collector does
        not take them, `ConfigError` when `endpoint` is no http(s) URL.
        """
        url = self.settings.traces_url if endpoint is None else traces_url_at(endpoint)
        sender = self._senders.get(url)
        if sender is None:
            sender = self._senders[url] = SpanSender(url, dict(self.settings.headers))
        spans = self._rebuilt(header, records)
        sender.send(spans)
        return len(spans)

    def export_json(self, header: SessionHeader, records: Iterable[Record]) -> str:
        """The spans of a stored log as one OTLP/JSON ``ExportTraceServiceRequest`` line."""
        return otlp_json(self._rebuilt(header, records))

    def _rebuilt(self, header: SessionHeader, records: Iterable[Record]) -> list[ReadableSpan]:
        where = resource(self.settings.service_name)
        return rebuilt_spans(header, records, where, capture_content=self.settings.capture_content)

    def close(self) -> Report | None:
        """Finish the open spans, send what is queued (bounded), warn once about any loss.

        Returns the queue's report, or None when no session was observed since the last close.
        """
        atexit.unregister(self.close)
        with self._lock:
            queue, self._queue = self._queue, None
            builders = list(self._builders.values())
            self._builders.clear()
        if queue is None:
            return None
        for builder in builders:
            queue.put(builder.close())
        report = queue.close(EXIT_WAIT_S)
        if report.dropped:
            logger.warning(self._warning(report))
        return report

    def _warning(self, report: Report) -> str:
        problem = " ".join((report.problem or "no reason given").split())
        if len(problem) > _HEAD + _TAIL:  # the kind of failure leads, its cause ends it
            problem = f"{problem[:_HEAD]} … {problem[-_TAIL:]}"
        total = report.sent + report.dropped
        return (
            f"{NAME}: {report.dropped} of {total} span(s) were not exported to "
            f"{self.settings.traces_url} ({problem}); the run was not affected"
        )
