"""A span as the builder describes it: plain values, no OpenTelemetry object.

The builder (:mod:`seamhost_observe_otel.builder`) turns records into these, and
:mod:`seamhost_observe_otel.readable` turns these into the SDK's spans; keeping the description
free of the SDK lets a stored log be rebuilt into the same spans anywhere, and lets tests compare
descriptions directly.

Ids are derived, not drawn: a turn's trace id is a digest of the session id and the turn number,
a span's id a digest of the session id and what the span is (the turn, a model attempt, a call)
and the sequence number of the record that opened it. The same log therefore always yields the
same ids, live or rebuilt later, and a turn resumed in another process joins the trace it began.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Literal

import attrs

AttributeValue = str | bool | int | float | tuple[str, ...]
Attributes = Mapping[str, AttributeValue]
SpanKind = Literal["internal", "client"]


@attrs.frozen
class SpanEvent:
    """A point in time inside a span (a dispatch, a failed attempt, an approval asked)."""

    name: str
    time_ns: int
    attributes: Attributes = attrs.field(factory=dict)


@attrs.frozen
class SpanDescription:
    """One finished span: its place in the trace, its times and what it says."""

    name: str
    kind: SpanKind
    trace_id: int  # 128 bits
    span_id: int  # 64 bits
    parent_id: int | None  # None: the root of its trace
    start_ns: int
    end_ns: int
    attributes: Attributes
    events: tuple[SpanEvent, ...] = ()
    error: str | None = None  # the error.type when the operation failed; the status is then ERROR
    status_message: str | None = None  # what the failure said


def trace_id(*parts: object) -> int:
    """A 128-bit id that `parts` always give, never zero."""
    return _digest(128, parts)


def span_id(*parts: object) -> int:
    """A 64-bit id that `parts` always give, never zero."""
    return _digest(64, parts)


def _digest(bits: int, parts: tuple[object, ...]) -> int:
    text = "\x1f".join(str(part) for part in parts).encode()
    value = int.from_bytes(hashlib.sha256(text).digest()[: bits // 8], "big")
    return value or 1


def ns(ms: int) -> int:
    """A record's time (Unix ms) in the nanoseconds spans count in."""
    return ms * 1_000_000
