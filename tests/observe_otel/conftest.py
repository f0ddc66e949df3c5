"""Fixtures for observe-otel: the plugin's sink swapped for the SDK's in-memory exporter.

The plugin's only way out is :func:`seamhost_observe_otel.plugin.connect` (the sink over the
bundle's exporters, made on the queue's thread); :func:`memory` replaces it with one that keeps
spans in an ``InMemorySpanExporter`` and metrics in an ``InMemoryMetricReader``, so a scenario
run through ``seamhost_run`` is observed exactly as live, minus the network.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from seamhost_observe_otel import ObserveOtel, plugin
from seamhost_observe_otel.queueing import Report
from seamhost_observe_otel.sink import OtelSink

from seamhost.testing import SeamhostRun
from seamhost.testing.run_outcome import RunOutcome

ROOT = Path(__file__).parents[2]
OBSERVED = """
[profile]
name = "observed-test"
extends = ["default"]

[plugins.observe-otel]
"""


@attrs.define
class Memory:
    """Where the in-memory sink put what it was sent."""

    spans: InMemorySpanExporter = attrs.Factory(InMemorySpanExporter)
    metrics: InMemoryMetricReader = attrs.Factory(InMemoryMetricReader)

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def metric_points(self) -> dict[str, list[Any]]:
        found: dict[str, list[Any]] = {}
        data = self.metrics.get_metrics_data()
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    found.setdefault(metric.name, []).extend(metric.data.data_points)
        return found


@pytest.fixture
def memory(monkeypatch: pytest.MonkeyPatch) -> Memory:
    kept = Memory()

    def connect(exporters: Any, service_name: str) -> OtelSink:
        return OtelSink(kept.spans, kept.metrics, service_name)

    monkeypatch.setattr(plugin, "connect", connect)
    return kept


@attrs.frozen
class Observed:
    run: RunOutcome
    report: Report | None


ObserveRun = Callable[..., Observed]


@pytest.fixture
def observe(seamhost_run: SeamhostRun, memory: Memory) -> ObserveRun:
    """Run a scenario with observe-otel in the bundle, then close the plugin (as at exit)."""

    def run(
        scenario: str | Path, environ: Mapping[str, str] | None = None, **kwargs: Any
    ) -> Observed:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        outcome = seamhost_run(OBSERVED, scenario, environ={**env, **(environ or {})}, **kwargs)
        observer = outcome.bundle.pm.get_plugin("observe-otel")
        assert isinstance(observer, ObserveOtel)
        return Observed(outcome, observer.close())

    return run


@attrs.frozen
class Ran:
    """A ``seamhost`` child process: how it ended and how long it took."""

    result: subprocess.CompletedProcess[str]
    seconds: float


def seamhost(*args: str, env: Mapping[str, str], timeout: float = 120) -> Ran:
    """Run the real CLI with `env` over this environment less its SEAMHOST_* and OTEL_*."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("SEAMHOST_", "OTEL_"))}
    environ.update(env)
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "seamhost", *args],
        check=False,
        capture_output=True,
        text=True,
        env=environ,
        timeout=timeout,
    )
    return Ran(result, time.monotonic() - started)
