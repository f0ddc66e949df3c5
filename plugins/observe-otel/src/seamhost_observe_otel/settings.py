"""Where and how to export, read from the standard ``OTEL_*`` variables when the bundle is built.

The plugin's profile table holds nothing: an operator points every OpenTelemetry program at a
collector the same way, so observe-otel reads what the OpenTelemetry specification names
(empty means unset, as the specification says):

* ``OTEL_EXPORTER_OTLP_ENDPOINT``: the collector's base URL (default ``http://localhost:4318``);
  traces go to ``<base>/v1/traces``, metrics to ``<base>/v1/metrics``.
  ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` and ``..._METRICS_ENDPOINT``, when set, are full URLs
  used as they are.
* ``OTEL_EXPORTER_OTLP_PROTOCOL`` (and its ``TRACES_`` form): only ``http/protobuf``.
* ``OTEL_EXPORTER_OTLP_HEADERS``: ``key=value,key=value``, values percent-encoded.
* ``OTEL_SERVICE_NAME`` (default ``seamhost``).
* ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``: ``true`` records messages, tool
  arguments and results on the spans; ``false`` (the default) records none.

An invalid value is a :class:`~seamhost.errors.ConfigError` naming the variable, which the CLI
reports with exit code 2 before any session starts. Header values are secrets (API keys): no
message ever quotes one. This module imports nothing of OpenTelemetry, so building a bundle
costs only the reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import unquote, urlsplit

import attrs

from seamhost.errors import ConfigError

NAME = "observe-otel"
DEFAULT_ENDPOINT = "http://localhost:4318"
DEFAULT_SERVICE_NAME = "seamhost"
PROTOCOL = "http/protobuf"  # the one protocol the official OTLP/HTTP exporter speaks here

ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"
TRACES_ENDPOINT = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
METRICS_ENDPOINT = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"
PROTOCOLS = ("OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
HEADERS = "OTEL_EXPORTER_OTLP_HEADERS"
SERVICE_NAME = "OTEL_SERVICE_NAME"
CAPTURE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

# Where a problem is: not a file, the environment the profile was resolved with.
SOURCE = "environment"


@attrs.frozen
class Settings:
    """The checked export settings of one bundle."""

    traces_url: str  # the full OTLP/HTTP traces URL
    metrics_url: str  # the full OTLP/HTTP metrics URL
    headers: Mapping[str, str] = attrs.field(factory=dict, repr=False)  # may hold API keys
    service_name: str = DEFAULT_SERVICE_NAME
    capture_content: bool = False  # messages, arguments and results on the spans

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        """The settings `environ` gives; raises `ConfigError` naming the first bad variable."""

        def get(name: str) -> str:
            return environ.get(name, "").strip()

        for name in PROTOCOLS:
            protocol = get(name)
            if protocol and protocol != PROTOCOL:
                raise _bad(
                    name,
                    f"{protocol!r} is not supported: observe-otel exports OTLP over HTTP with "
                    f"protobuf; set it to {PROTOCOL} or unset it",
                )
        base = get(ENDPOINT) or DEFAULT_ENDPOINT
        _check_url(ENDPOINT, base)
        base = base.rstrip("/")
        traces, metrics = get(TRACES_ENDPOINT), get(METRICS_ENDPOINT)
        for name, url in ((TRACES_ENDPOINT, traces), (METRICS_ENDPOINT, metrics)):
            if url:
                _check_url(name, url)
        return cls(
            traces_url=traces or f"{base}/v1/traces",
            metrics_url=metrics or f"{base}/v1/metrics",
            headers=parse_headers(get(HEADERS)),
            service_name=get(SERVICE_NAME) or DEFAULT_SERVICE_NAME,
            capture_content=_flag(CAPTURE_CONTENT, get(CAPTURE_CONTENT)),
        )


def traces_url_at(endpoint: str) -> str:
    """The traces URL under ``--endpoint``, a collector's base URL (as the variable's value)."""
    endpoint = endpoint.strip()
    _check_url("--endpoint", endpoint, "command line")
    return f"{endpoint.rstrip('/')}/v1/traces"


def parse_headers(text: str) -> dict[str, str]:
    """``k=v,k2=v2`` (W3C baggage style, values percent-encoded) as a dict."""
    headers: dict[str, str] = {}
    for number, entry in enumerate(text.split(","), start=1):
        if not entry.strip():
            continue
        key, equals, value = entry.partition("=")
        key = key.strip()
        if not equals or not key or any(c.isspace() or not c.isprintable() for c in key):
            # The entry may hold a key: say where it is, never what it says.
            raise _bad(
                HEADERS,
                f"entry {number} is not key=value; write key=value pairs separated by commas, "
                "with values percent-encoded",
            )
        headers[key] = unquote(value.strip())
    return headers


def _check_url(name: str, url: str, source: str = SOURCE) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _bad(
            name,
            f"{url!r} is not an http(s) URL with a host; write it like {DEFAULT_ENDPOINT}",
            source,
        )
    try:
        parts.port  # noqa: B018 (urlsplit checks the port only when asked for it)
    except ValueError:
        raise _bad(name, f"{url!r} has an invalid port", source) from None


def _flag(name: str, value: str) -> bool:
    if value.lower() in ("", "false"):
        return False
    if value.lower() == "true":
        return True
    raise _bad(name, f"{value!r} is neither true nor false")


def _bad(name: str, problem: str, source: str = SOURCE) -> ConfigError:
    return ConfigError(source, name, problem)
