"""The acceptance run: ``seamhost run examples/quickstart.toml --profile observed`` as a child
process, exporting to a real OTLP/HTTP receiver (receiver.py), and to collectors that refuse the
connection or stall: those change neither the outcome nor the run's time beyond a bound
measured here against a run of the same scenario without the plugin.
"""

from __future__ import annotations

from pathlib import Path

from seamhost_observe_otel.builder import SessionFacts, SpanBuilder

from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from tests.observe_otel.conftest import ROOT, Ran, seamhost
from tests.observe_otel.receiver import ReceivedSpan, Receiver, running

QUICKSTART = str(ROOT / "examples" / "quickstart.toml")
# What a failing collector may add to a run: the exit's bounded wait (1 s) plus noise. A run
# that waited for the collector would take 5 s (stall) or 10 s (refused, retried) longer.
SLACK_S = 3.0


def run(tmp_path: Path, name: str, profile: str, **environ: str) -> Ran:
    home = tmp_path / name
    return seamhost(
        "run", QUICKSTART, "--profile", profile, env={"SEAMHOST_HOME": str(home)} | environ
    )


def session_id(ran: Ran) -> str:
    [line] = [
        line
        for line in ran.result.stdout.splitlines()
        if line.startswith("session ") and ": " in line
    ]
    return line.split()[1].rstrip(":")


def outcome_lines(ran: Ran) -> list[str]:
    """The transcript's result lines, without what differs between any two runs."""
    return [
        line.strip()
        for line in ran.result.stdout.splitlines()
        if line.strip().startswith(("✓", "✗"))
    ]


def test_a_real_collector_gets_the_turn_its_calls_and_their_decisions(tmp_path: Path) -> None:
    with running(Receiver()) as receiver:
        ran = run(
            tmp_path,
            "home",
            "observed",
            OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url,
            OTEL_SERVICE_NAME="quickstart-e2e",
            OTEL_EXPORTER_OTLP_HEADERS="x-team=ops%20one",
        )
    assert ran.result.returncode == 0, ran.result.stderr
    assert "observe-otel" not in ran.result.stderr
    spans = receiver.spans
    [turn] = [s for s in spans if s.name == "invoke_agent"]
    calls = [s for s in spans if s.name.startswith("execute_tool ")]
    assert sorted(s.attributes["gen_ai.tool.call.id"] for s in calls) == [
        "call-1-1-1",
        "call-1-1-2",
        "call-1-1-3",
        "call-1-2-1",
        "call-1-3-1",
        "call-1-4-1",
    ]
    for span in spans:
        assert span.trace_id == turn.trace_id
        assert span.service == "quickstart-e2e"
        assert span.headers["x-team"] == "ops one"
    assert turn.parent_id == ""
    assert {s.parent_id for s in spans if s is not turn} == {turn.span_id}
    by_call = {s.attributes["gen_ai.tool.call.id"]: s for s in calls}
    assert by_call["call-1-1-1"].attributes["gen_ai.tool.name"] == "read_file"
    assert by_call["call-1-1-1"].attributes["seamhost.decision"] == "allow"
    assert by_call["call-1-3-1"].attributes["seamhost.decision"] == "deny"
    assert by_call["call-1-3-1"].attributes["seamhost.outcome"] == "DENIED_BY_GUARD"
    assert len([s for s in spans if s.name.startswith("chat ")]) == 5
    assert "gen_ai.client.operation.duration" in receiver.metrics
    # The stored log rebuilds exactly what the collector got: names, ids and parents.
    assert _rebuilt(tmp_path / "home", session_id(ran)) == sorted(_tree(s) for s in spans)


def _tree(span: ReceivedSpan) -> tuple[str, str, str, str]:
    return span.name, span.trace_id, span.span_id, span.parent_id


def _rebuilt(home: Path, session: str) -> list[tuple[str, str, str, str]]:
    env = {"SEAMHOST_HOME": str(home)}
    store = build_bundle(resolve_profile("default", environ=env), environ=env).store
    assert store is not None
    reader = store.read(session)
    builder = SpanBuilder(SessionFacts.of(reader.header))
    spans = [span for record in reader.records() for span in builder.feed(record)]
    spans += builder.close()
    return sorted(
        (
            s.name,
            f"{s.trace_id:032x}",
            f"{s.span_id:016x}",
            f"{s.parent_id:016x}" if s.parent_id is not None else "",
        )
        for s in spans
    )


def test_a_refusing_or_stalling_collector_changes_neither_outcome_nor_time(
    tmp_path: Path,
) -> None:
    baseline = run(tmp_path, "baseline", "default")
    assert baseline.result.returncode == 0, baseline.result.stderr
    refused = run(tmp_path, "refused", "observed", OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9")
    with running(Receiver(mode="stall", stall_s=5.0)) as receiver:
        stalled = run(tmp_path, "stalled", "observed", OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url)
    for name, ran in (("refused", refused), ("stalled", stalled)):
        assert ran.result.returncode == 0, ran.result.stderr
        assert outcome_lines(ran) == outcome_lines(baseline), name
        warnings = [line for line in ran.result.stderr.splitlines() if "observe-otel" in line]
        assert len(warnings) == 1, ran.result.stderr
        assert "were not exported" in warnings[0]
        assert ran.seconds < baseline.seconds + SLACK_S, (name, ran.seconds, baseline.seconds)
    assert "Connection refused" in refused.result.stderr


def test_an_unsupported_protocol_exits_2_naming_the_variable(tmp_path: Path) -> None:
    ran = run(tmp_path, "home", "observed", OTEL_EXPORTER_OTLP_PROTOCOL="grpc")
    assert ran.result.returncode == 2
    assert "OTEL_EXPORTER_OTLP_PROTOCOL" in ran.result.stderr
    assert "http/protobuf" in ran.result.stderr
    assert not ran.result.stdout
