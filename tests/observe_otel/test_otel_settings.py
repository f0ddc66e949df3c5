"""The OTEL_* variables observe-otel reads: defaults, valid forms, and each invalid value
refused as a ConfigError naming the variable (exit 2 at the CLI, see test_otel_end_to_end)."""

from __future__ import annotations

from pathlib import Path

import pytest
from seamhost_observe_otel.settings import Settings

from seamhost import build_bundle, resolve_profile
from seamhost.errors import ConfigError
from tests.observe_otel.conftest import OBSERVED


def test_defaults_are_the_specifications() -> None:
    settings = Settings.from_environ({})
    assert settings.traces_url == "http://localhost:4318/v1/traces"
    assert settings.metrics_url == "http://localhost:4318/v1/metrics"
    assert settings.headers == {}
    assert settings.service_name == "seamhost"
    assert settings.capture_content is False


def test_the_variables_set_everything() -> None:
    settings = Settings.from_environ(
        {
            "OTEL_EXPORTER_OTLP_ENDPOINT": "https://api.honeycomb.io/",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_EXPORTER_OTLP_HEADERS": "x-honeycomb-team=k%3D1 , x-dataset=agents",
            "OTEL_SERVICE_NAME": "agents",
            "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "TRUE",
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://metrics:4318/custom",
        }
    )
    assert settings.traces_url == "https://api.honeycomb.io/v1/traces"
    assert settings.metrics_url == "http://metrics:4318/custom"
    assert settings.headers == {"x-honeycomb-team": "k=1", "x-dataset": "agents"}
    assert settings.service_name == "agents"
    assert settings.capture_content is True


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", "http/protobuf"),
        ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json", "http/protobuf"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318", "http(s) URL"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://:4318", "http(s) URL"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:99999", "invalid port"),
        ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "ftp://collector/v1/traces", "http(s) URL"),
        ("OTEL_EXPORTER_OTLP_HEADERS", "authorization", "entry 1 is not key=value"),
        ("OTEL_EXPORTER_OTLP_HEADERS", "a=1,=2", "entry 2 is not key=value"),
        ("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "yes", "neither true nor false"),
    ],
)
def test_an_invalid_value_names_its_variable(variable: str, value: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_environ({variable: value})
    assert caught.value.key == variable
    assert says in caught.value.problem


def test_a_malformed_header_is_reported_without_its_value() -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_environ({"OTEL_EXPORTER_OTLP_HEADERS": "x-key=ok,sk-secret-value"})
    assert "sk-secret-value" not in str(caught.value)


def test_the_bundle_checks_them_when_it_is_built(tmp_path: Path) -> None:
    profile = tmp_path / "observed.toml"
    profile.write_text(OBSERVED)
    environ = {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    with pytest.raises(ConfigError, match="OTEL_EXPORTER_OTLP_PROTOCOL"):
        build_bundle(resolve_profile(str(profile), environ=environ), environ=environ)
