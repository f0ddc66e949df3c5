"""The OpenTelemetry side: finished spans to an exporter, and the GenAI metrics beside them.

The plugin imports this module, and with it the SDK, the OTLP/HTTP exporters and protobuf, when
the bundle is built; the queue's thread (:mod:`seamhost_observe_otel.queueing`) uses it.

Metrics follow the GenAI semantic conventions: ``gen_ai.client.token.usage`` (input and output
tokens of each model attempt that reported usage) and ``gen_ai.client.operation.duration``
(each finished ``chat``, ``execute_tool`` and ``invoke_agent``, in seconds, from the records'
own times), with the conventions' advised bucket boundaries. A periodic reader sends them
(``OTEL_METRIC_EXPORT_INTERVAL``, 60 s by default) and once more when the sink closes.

The OTLP exporters report each failure through their loggers, one line per batch and retry;
:class:`ProblemNotes` keeps the last one for the plugin's single warning line instead of letting
them reach a terminal that has no logging configured.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import attrs
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    MetricExporter,
    MetricReader,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from seamhost.version import __version__
from seamhost_observe_otel import conventions as cv
from seamhost_observe_otel.readable import SCOPE, readable, resource
from seamhost_observe_otel.settings import Settings
from seamhost_observe_otel.spans import SpanDescription

EXPORT_TIMEOUT_S = 10.0  # one export request, retries included (the exporters' default)
EXPORTER_LOGGER = "opentelemetry.exporter.otlp"  # the parent of both exporters' loggers

# The semantic conventions' advised boundaries (gen_ai.client.token.usage, ...duration).
TOKEN_BUCKETS = tuple(float(4**n) for n in range(14))  # 1, 4, 16 ... 4**13
DURATION_BUCKETS = tuple(0.01 * 2**n for n in range(14))  # 0.01, 0.02 ... 81.92 s


class ProblemNotes(logging.Handler):
    """Keeps the last warning the OTLP exporters logged (until a request succeeds)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.last: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        # "Transient error %s encountered while exporting %s batch, retrying in %.2fs.": the
        # error is the news; a retry the exit will not wait for is not.
        if str(record.msg).startswith("Transient error") and isinstance(record.args, tuple):
            self.last = str(record.args[0])
        else:
            self.last = record.getMessage()


class GenAiMetrics:
    """The two GenAI histograms, recorded from finished spans."""

    def __init__(self, reader: MetricReader, resource: Resource) -> None:
        self.provider = MeterProvider(
            metric_readers=[reader], resource=resource, shutdown_on_exit=False
        )
        meter = self.provider.get_meter(SCOPE.name, __version__)
        self.tokens = meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=TOKEN_BUCKETS,
        )
        self.duration = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )

    def record(self, span: SpanDescription) -> None:
        attributes = span.attributes
        operation = attributes.get(cv.OPERATION)
        if operation is None or attributes.get(cv.INCOMPLETE):
            return
        labels: dict[str, Any] = {cv.OPERATION: operation}
        for key in (cv.PROVIDER, cv.REQUEST_MODEL, cv.RESPONSE_MODEL, cv.TOOL_NAME):
            if key in attributes:
                labels[key] = attributes[key]
        if span.error is not None:
            labels[cv.ERROR_TYPE] = span.error
        self.duration.record((span.end_ns - span.start_ns) / 1e9, labels)
        for key, kind in ((cv.INPUT_TOKENS, "input"), (cv.OUTPUT_TOKENS, "output")):
            count = attributes.get(key)
            if operation == cv.CHAT and isinstance(count, int):
                self.tokens.record(count, {**labels, "gen_ai.token.type": kind})


class OtelSink:
    """Spans to `exporter`, metrics to `reader`; the queue's one consumer."""

    def __init__(self, exporter: SpanExporter, reader: MetricReader, service_name: str) -> None:
        self.exporter = exporter
        self.resource = resource(service_name)
        self.metrics = GenAiMetrics(reader, self.resource)
        self.notes = ProblemNotes()
        logging.getLogger(EXPORTER_LOGGER).addHandler(self.notes)

    def send(self, spans: Sequence[SpanDescription]) -> bool:
        for span in spans:
            self.metrics.record(span)
        result = self.exporter.export([readable(span, self.resource) for span in spans])
        if result is SpanExportResult.SUCCESS:
            self.notes.last = None  # the collector is back: an exit waits for it again
            return True
        return False

    def problem(self) -> str | None:
        return self.notes.last

    def close(self) -> None:
        try:
            self.metrics.provider.shutdown()
            self.exporter.shutdown()
        finally:
            logging.getLogger(EXPORTER_LOGGER).removeHandler(self.notes)


@attrs.frozen
class OtlpExporters:
    """The OTLP/HTTP exporters of a bundle: made when it is built, used once a session runs.

    Making them opens nothing (no socket, no thread); it loads their HTTP stack, which is why
    the factory makes them rather than the queue's thread.
    """

    spans: SpanExporter
    metrics: MetricExporter

    @classmethod
    def of(cls, settings: Settings) -> OtlpExporters:
        headers = dict(settings.headers)
        return cls(
            OTLPSpanExporter(
                endpoint=settings.traces_url, headers=headers, timeout=EXPORT_TIMEOUT_S
            ),
            OTLPMetricExporter(
                endpoint=settings.metrics_url, headers=headers, timeout=EXPORT_TIMEOUT_S
            ),
        )

    def sink(self, service_name: str) -> OtelSink:
        """The sink over these exporters; its metric reader's thread starts here."""
        return OtelSink(self.spans, PeriodicExportingMetricReader(self.metrics), service_name)
