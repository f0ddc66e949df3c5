"""seamhost-observe-otel: every session as OpenTelemetry traces and metrics, live.

It observes ``session/event``: each committed record is fed, in commit order, to a pure span
builder (:mod:`seamhost_observe_otel.builder`) that turns a session's log into spans per the
GenAI semantic conventions (``invoke_agent`` per turn, ``chat`` per model attempt,
``execute_tool`` per call) with ``seamhost.*`` attributes for governance, approvals, sandboxing,
attempts and outcomes. Finished spans go through a bounded queue to the official OTLP/HTTP
exporter on a thread of their own, so a slow or failing collector never slows or fails a call.

Profile table (``profiles/observed.toml`` is the default bundle with it)::

    [plugins.observe-otel]

Everything else is the standard ``OTEL_*`` environment (:mod:`seamhost_observe_otel.settings`),
checked when the bundle is built. The OpenTelemetry SDK loads with this package, that is only
when a profile names the plugin. docs/observing.md is the operator's guide.

It also provides the capability ``session/export``: ``seamhost session export`` finds the plugin
of the profile's bundle that declares it and asks its object for a stored log's spans, rebuilt
by the same builder as the live ones, sent synchronously over OTLP/HTTP (``export_session``) or
written as OTLP/JSON (``export_json``); the protocol is ``SessionExporter`` in
``seamhost.cli.session.export``, the rebuilding :mod:`seamhost_observe_otel.export`.
"""

from __future__ import annotations

from typing import Any

from seamhost import PluginDescriptor
from seamhost_observe_otel.export import EXPORT_CAPABILITY
from seamhost_observe_otel.plugin import ObserveOtel
from seamhost_observe_otel.settings import NAME

CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}

descriptor = PluginDescriptor(
    name=NAME,
    factory=ObserveOtel,
    config_schema=CONFIG_SCHEMA,
    provides=["session/event", EXPORT_CAPABILITY],
    description="OpenTelemetry traces and metrics of every session (OTLP/HTTP, GenAI conventions).",
)

__all__ = ["ObserveOtel", "descriptor"]
