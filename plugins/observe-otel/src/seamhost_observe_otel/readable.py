"""Span descriptions as the SDK's finished spans, ready for any ``SpanExporter``.

The spans are built whole, after the fact, from records that carry their own times, so no
tracer is involved: a ``ReadableSpan`` is what every exporter takes, and constructing it with the
ids and times the description holds is the one way to export a span whose start and end are in
the past and whose ids are derived (the SDK's tracer would draw new ones).
"""

from __future__ import annotations

from opentelemetry.sdk.resources import OTELResourceDetector, Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.sdk.version import __version__ as sdk_version
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from seamhost.version import __version__
from seamhost_observe_otel.spans import SpanDescription

SCOPE = InstrumentationScope("seamhost_observe_otel", __version__)
_KINDS = {"internal": SpanKind.INTERNAL, "client": SpanKind.CLIENT}
_SAMPLED = TraceFlags(TraceFlags.SAMPLED)


def resource(service_name: str) -> Resource:
    """The process's resource: ``OTEL_RESOURCE_ATTRIBUTES``, the SDK's own, and `service_name`.

    Built from the environment detector alone: ``Resource.create`` runs its detectors on a
    thread pool, which cannot start while the interpreter exits (when a short run's queue may
    still be connecting).
    """
    sdk = {
        "telemetry.sdk.language": "python",
        "telemetry.sdk.name": "opentelemetry",
        "telemetry.sdk.version": sdk_version,
    }
    detected = OTELResourceDetector().detect()
    return detected.merge(Resource({**sdk, "service.name": service_name}))


def readable(span: SpanDescription, resource: Resource) -> ReadableSpan:
    """`span` as the SDK's finished span."""
    context = SpanContext(span.trace_id, span.span_id, is_remote=False, trace_flags=_SAMPLED)
    parent = (
        SpanContext(span.trace_id, span.parent_id, is_remote=False, trace_flags=_SAMPLED)
        if span.parent_id is not None
        else None
    )
    status = (
        Status(StatusCode.ERROR, span.status_message or span.error)
        if span.error is not None
        else Status(StatusCode.UNSET)
    )
    return ReadableSpan(
        name=span.name,
        context=context,
        parent=parent,
        resource=resource,
        attributes=dict(span.attributes),
        events=[Event(e.name, dict(e.attributes), e.time_ns) for e in span.events],
        kind=_KINDS[span.kind],
        status=status,
        start_time=span.start_ns,
        end_time=span.end_ns,
        instrumentation_scope=SCOPE,
    )
