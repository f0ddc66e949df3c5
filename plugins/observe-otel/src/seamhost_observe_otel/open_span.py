"""A span while its records arrive: mutable until the record that ends it, then described.

:class:`~seamhost_observe_otel.builder.SpanBuilder` keeps one per open turn, model attempt and
call; :meth:`OpenSpan.finish` freezes it into a :class:`~.spans.SpanDescription` once its trace
and parent are known.
"""

from __future__ import annotations

import attrs

from seamhost_observe_otel.spans import (
    AttributeValue,
    SpanDescription,
    SpanEvent,
    SpanKind,
    ns,
)


@attrs.define
class OpenSpan:
    """A span being built: its attributes and events still change as records arrive."""

    name: str
    kind: SpanKind
    start_ns: int
    span_id: int
    attributes: dict[str, AttributeValue]
    turn: int | None = None  # None: a call seen first at its dispatch, placed by its result
    events: list[SpanEvent] = attrs.Factory(list)
    error: str | None = None
    status_message: str | None = None

    def event(self, name: str, time_ms: int, **attributes: AttributeValue) -> None:
        self.events.append(SpanEvent(name, ns(time_ms), attributes))

    def finish(self, trace: int, parent: int | None, end_ns: int) -> SpanDescription:
        return SpanDescription(
            name=self.name,
            kind=self.kind,
            trace_id=trace,
            span_id=self.span_id,
            parent_id=parent,
            start_ns=self.start_ns,
            end_ns=max(end_ns, self.start_ns),
            attributes=dict(self.attributes),
            events=tuple(self.events),
            error=self.error,
            status_message=self.status_message,
        )


def add_count(attributes: dict[str, AttributeValue], key: str, amount: int) -> None:
    """Count `amount` more in the integer attribute `key`."""
    current = attributes.get(key)
    attributes[key] = (current if isinstance(current, int) else 0) + amount
