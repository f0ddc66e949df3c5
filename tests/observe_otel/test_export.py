"""``seamhost session export``: a stored log sent again as the spans the live run sent.

Every case runs the real CLI as a child process against the real OTLP/HTTP receiver
(receiver.py): the quickstart scenario runs once under ``observed`` with a receiver listening,
and its stored log is then exported to a second receiver, or written as OTLP JSON.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from google.protobuf.json_format import ParseDict  # type: ignore[import-untyped]  # no hints
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.observe_otel.conftest import Ran, seamhost
from tests.observe_otel.receiver import ReceivedSpan, Receiver, _spans, running
from tests.observe_otel.test_otel_end_to_end import run, session_id


@attrs.frozen
class LiveRun:
    home: Path
    session: str
    spans: list[ReceivedSpan]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> LiveRun:
    """The quickstart under ``observed``, as a real collector received it."""
    tmp_path = tmp_path_factory.mktemp("live")
    with running(Receiver()) as receiver:
        ran = run(tmp_path, "home", "observed", OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url)
    assert ran.result.returncode == 0, ran.result.stderr
    return LiveRun(tmp_path / "home", session_id(ran), receiver.spans)


def export(home: Path, *args: str) -> Ran:
    return seamhost("session", "export", *args, env={"SEAMHOST_HOME": str(home)})


def shape(span: ReceivedSpan) -> tuple[Any, ...]:
    return (
        span.name,
        span.trace_id,
        span.span_id,
        span.parent_id,
        tuple(sorted(span.attributes.items())),
    )


def test_the_export_sends_the_spans_the_live_run_sent(live: LiveRun) -> None:
    with running(Receiver()) as receiver:
        ran = export(
            live.home, live.session, "--otlp", "--profile", "observed", "--endpoint", receiver.url
        )
    assert ran.result.returncode == 0, ran.result.stderr
    assert not ran.result.stdout
    assert f"session {live.session}: {len(live.spans)} span(s) sent" in ran.result.stderr
    assert sorted(map(shape, receiver.spans)) == sorted(map(shape, live.spans))


def test_a_session_run_without_the_plugin_exports_the_same_tree(
    live: LiveRun, tmp_path: Path
) -> None:
    plain = run(tmp_path, "home", "default")
    assert plain.result.returncode == 0, plain.result.stderr
    home = tmp_path / "home"
    with running(Receiver()) as receiver:
        ran = export(
            home, session_id(plain), "--otlp", "--profile", "observed", "--endpoint", receiver.url
        )
    assert ran.result.returncode == 0, ran.result.stderr
    assert tree(receiver.spans) == tree(live.spans)


def tree(spans: list[ReceivedSpan]) -> list[tuple[Any, ...]]:
    """The spans as a tree: each by its name, call and attribute names, under its parent.

    Attribute values are left out: two runs differ in their session id and workspace, which
    ids, keys, digests and reasons quote.
    """
    by_id = {span.span_id: span for span in spans}

    def what(span: ReceivedSpan) -> tuple[Any, ...]:
        call = span.attributes.get("gen_ai.tool.call.id")
        return span.name, call, tuple(sorted(span.attributes))

    return sorted((what(s), what(by_id[s.parent_id]) if s.parent_id else None) for s in spans)


def test_json_is_one_otlp_request_per_session(live: LiveRun) -> None:
    ran = export(live.home, live.session, live.session[:12], "--json", "--profile", "observed")
    assert ran.result.returncode == 0, ran.result.stderr
    # The two arguments name one session: it is exported once.
    [line] = ran.result.stdout.splitlines()
    document = json.loads(line)
    for resource in document["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                assert len(span["traceId"]) == 32  # OTLP/JSON: ids in hex
                for key, size in (("traceId", 16), ("spanId", 8), ("parentSpanId", 8)):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
                        assert len(base64.b64decode(span[key])) == size
    request = ParseDict(document, ExportTraceServiceRequest())
    assert sorted(map(shape, _spans(request, {}))) == sorted(map(shape, live.spans))


def test_an_unknown_session_exits_2_and_sends_nothing(live: LiveRun) -> None:
    with running(Receiver()) as receiver:
        ran = export(
            live.home,
            live.session,
            "no-such-session",
            "--otlp",
            "--profile",
            "observed",
            "--endpoint",
            receiver.url,
        )
    assert ran.result.returncode == 2
    assert "no-such-session" in ran.result.stderr
    assert receiver.spans == []


def test_a_profile_without_the_plugin_exits_2_naming_it_and_the_fix(live: LiveRun) -> None:
    ran = export(live.home, live.session, "--otlp")
    assert ran.result.returncode == 2
    [line] = ran.result.stderr.splitlines()
    assert "'default'" in line
    assert "--profile observed" in line


def test_a_refusing_collector_exits_1_naming_its_url(live: LiveRun) -> None:
    ran = export(
        live.home,
        live.session,
        "--otlp",
        "--profile",
        "observed",
        "--endpoint",
        "http://127.0.0.1:9",
    )
    assert ran.result.returncode == 1
    [line] = ran.result.stderr.splitlines()
    assert "http://127.0.0.1:9/v1/traces" in line
    assert "Connection refused" in line


def test_the_endpoint_option_overrides_the_variable(live: LiveRun) -> None:
    with running(Receiver()) as receiver:
        ran = seamhost(
            "session",
            "export",
            live.session,
            "--otlp",
            "--profile",
            "observed",
            "--endpoint",
            receiver.url,
            env={
                "SEAMHOST_HOME": str(live.home),
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
            },
        )
    assert ran.result.returncode == 0, ran.result.stderr
    assert len(receiver.spans) == len(live.spans)


def test_the_export_builds_the_profiles_bundle_once(
    live: LiveRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The exporter and the store come from one bundle: building it twice connected to every
    # mounted server twice.
    from click.testing import CliRunner

    import seamhost.cli.session.export as export_command
    from seamhost.cli import main, session_store
    from seamhost.kernel.bundle import build_bundle as real

    built = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        built.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(export_command, "build_bundle", counting)
    monkeypatch.setattr(session_store, "build_bundle", counting)
    monkeypatch.setenv("SEAMHOST_HOME", str(live.home))
    result = CliRunner().invoke(
        main, ["session", "export", live.session, "--json", "--profile", "observed"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.splitlines()[0])["resourceSpans"]
    assert len(built) == 1
