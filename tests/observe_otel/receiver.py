"""A real OTLP/HTTP receiver for the end-to-end tests: Starlette on uvicorn, 127.0.0.1:0.

It decodes what a collector would (``ExportTraceServiceRequest`` and
``ExportMetricsServiceRequest``, protobuf, from ``opentelemetry-proto``) and keeps the spans as
plain :class:`ReceivedSpan` values. `mode` makes it misbehave the ways the tests need: ``stall``
holds every request for `stall_s` seconds before answering.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

import attrs
import uvicorn
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

PROTOBUF = "application/x-protobuf"


@attrs.frozen
class ReceivedSpan:
    name: str
    trace_id: str  # hex
    span_id: str
    parent_id: str  # "" for a root
    attributes: dict[str, Any]
    service: str
    headers: dict[str, str]


@attrs.define
class Receiver:
    """What the collector got; the URL to point ``OTEL_EXPORTER_OTLP_ENDPOINT`` at."""

    mode: Literal["ok", "stall"] = "ok"
    stall_s: float = 5.0
    url: str = ""
    spans: list[ReceivedSpan] = attrs.Factory(list)
    metrics: list[str] = attrs.Factory(list)  # metric names, one per data point set

    def app(self) -> Starlette:
        async def traces(request: Request) -> Response:
            body = await request.body()
            if self.mode == "stall":
                await asyncio.sleep(self.stall_s)
            message = ExportTraceServiceRequest()
            message.ParseFromString(body)
            self.spans += _spans(message, dict(request.headers))
            return _answer(ExportTraceServiceResponse())

        async def metrics(request: Request) -> Response:
            body = await request.body()
            if self.mode == "stall":
                await asyncio.sleep(self.stall_s)
            message = ExportMetricsServiceRequest()
            message.ParseFromString(body)
            for resource in message.resource_metrics:
                for scope in resource.scope_metrics:
                    self.metrics += [metric.name for metric in scope.metrics]
            return _answer(ExportMetricsServiceResponse())

        return Starlette(
            routes=[
                Route("/v1/traces", traces, methods=["POST"]),
                Route("/v1/metrics", metrics, methods=["POST"]),
            ]
        )


def _answer(message: Any) -> Response:
    return Response(message.SerializeToString(), media_type=PROTOBUF)


def _spans(message: ExportTraceServiceRequest, headers: dict[str, str]) -> list[ReceivedSpan]:
    found = []
    for resource in message.resource_spans:
        service = next(
            (a.value.string_value for a in resource.resource.attributes if a.key == "service.name"),
            "",
        )
        for scope in resource.scope_spans:
            for span in scope.spans:
                attributes = {a.key: _value(a.value) for a in span.attributes}
                found.append(
                    ReceivedSpan(
                        span.name,
                        span.trace_id.hex(),
                        span.span_id.hex(),
                        span.parent_span_id.hex(),
                        attributes,
                        service,
                        headers,
                    )
                )
    return found


def _value(value: AnyValue) -> Any:
    """An OTLP AnyValue as a plain value (arrays as tuples)."""
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return tuple(_value(v) for v in value.array_value.values)
    return getattr(value, kind) if kind else None


@contextmanager
def running(receiver: Receiver) -> Iterator[Receiver]:
    """Serve `receiver` on a free loopback port for the duration of the block."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(receiver.app(), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the receiver did not start")
        threading.Event().wait(0.01)
    receiver.url = f"http://127.0.0.1:{port}"
    try:
        yield receiver
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
