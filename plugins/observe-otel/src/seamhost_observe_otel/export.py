"""A stored log as OTLP, after the fact: the ``session/export`` capability.

``seamhost session export`` finds this through the plugin system (the profile's bundle, whose
observe-otel entry declares the capability) and asks the plugin object for it; the runtime never
imports this package. The spans are the ones the live observer sends: the same pure
:class:`~.builder.SpanBuilder` over the same records, whose own times and derived ids make a
rebuilt span identical to the live one (a log that ends mid-turn closes as ``seamhost.incomplete``,
as the live observer's exit does). Metrics are not re-sent: a histogram point has no time of its
own, so a late one would count an old run as a new one.

Unlike the live path there is no queue and nothing is dropped: the command has nothing else to
do, so each batch is sent synchronously and a collector that does not take it stops the command
with an error naming the URL (:class:`~seamhost.errors.SeamFailed`, exit 1).

``--json`` needs no collector: :func:`otlp_json` writes an ``ExportTraceServiceRequest`` in
OTLP/JSON, the protobuf JSON mapping with the deviations the OTLP specification makes (trace and
span ids as hex strings, enums as integers), one request per session, on one line.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]  # no hints
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult

from seamhost.errors import SeamFailed
from seamhost_observe_otel.builder import SessionFacts, SpanBuilder
from seamhost_observe_otel.queueing import BATCH
from seamhost_observe_otel.readable import readable
from seamhost_observe_otel.settings import NAME
from seamhost_observe_otel.sink import EXPORT_TIMEOUT_S, EXPORTER_LOGGER, ProblemNotes

if TYPE_CHECKING:
    from seamhost import Record, SessionHeader

EXPORT_CAPABILITY = "session/export"  # what the descriptor declares and the command looks for
_HEX_IDS = ("traceId", "spanId", "parentSpanId")  # OTLP/JSON: hex, not protobuf JSON's base64


def rebuilt_spans(
    header: SessionHeader, records: Iterable[Record], resource: Resource, *, capture_content: bool
) -> list[ReadableSpan]:
    """Every span of a stored log, as the live observer would have sent them."""
    builder = SpanBuilder(SessionFacts.of(header), capture_content=capture_content)
    described = [span for record in records for span in builder.feed(record)]
    described += builder.close()
    return [readable(span, resource) for span in described]


def otlp_json(spans: list[ReadableSpan]) -> str:
    """`spans` as one ``ExportTraceServiceRequest`` in OTLP/JSON, on one line."""
    request = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    for resource_spans in request.get("resourceSpans", ()):
        for scope_spans in resource_spans.get("scopeSpans", ()):
            for span in scope_spans.get("spans", ()):
                _hex_ids(span)
                for link in span.get("links", ()):
                    _hex_ids(link)
    return json.dumps(request, separators=(",", ":"), ensure_ascii=False)


def _hex_ids(item: dict[str, Any]) -> None:
    for key in _HEX_IDS:
        if key in item:
            item[key] = base64.b64decode(item[key]).hex()


class FirstProblem(ProblemNotes):
    """The first problem the exporter logged: its cause (a refused connection), not the
    "max retries" line that ends its retrying."""

    def emit(self, record: logging.LogRecord) -> None:
        if self.last is None:
            super().emit(record)


class SpanSender:
    """One collector's traces URL, sent to synchronously; a refusal raises, naming the URL."""

    def __init__(self, traces_url: str, headers: dict[str, str]) -> None:
        self.url = traces_url
        self._exporter = OTLPSpanExporter(
            endpoint=traces_url, headers=headers, timeout=EXPORT_TIMEOUT_S
        )

    def send(self, spans: list[ReadableSpan]) -> None:
        """Send `spans` in batches; raise `SeamFailed` at the first the collector does not take."""
        notes = FirstProblem()  # the exporter logs why; the error carries it instead
        logger = logging.getLogger(EXPORTER_LOGGER)
        logger.addHandler(notes)
        try:
            for start in range(0, len(spans), BATCH):
                if self._exporter.export(spans[start : start + BATCH]) is SpanExportResult.SUCCESS:
                    continue
                why = notes.last or "the collector refused them"
                problem = f"the collector at {self.url} did not take the spans ({why})"
                raise SeamFailed(EXPORT_CAPABILITY, ((NAME, " ".join(problem.split())),))
        finally:
            logger.removeHandler(notes)
