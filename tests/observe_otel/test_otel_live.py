"""observe-otel live: scenarios run through the real kernel, spans caught in memory.

Each run goes through ``seamhost_run`` with the plugin in the bundle; its sink is the SDK's
in-memory exporter (conftest.py), so what is asserted is what the OTLP exporter would be given.
"""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from seamhost_observe_otel.builder import SessionFacts, SpanBuilder
from seamhost_observe_otel.readable import readable, resource

from tests.observe_otel.conftest import ROOT, Memory, ObserveRun

QUICKSTART = ROOT / "examples" / "quickstart.toml"
APPROVALS = ROOT / "examples" / "approvals.toml"

TWO_TURNS = """
[[turn]]
user = "read the config"
final = "done"
[[turn.step]]
[[turn.step.call]]
tool = "read_file"
args = { path = "a.txt" }

[[turn]]
user = "list it"
final = "listed"
[[turn.step]]
[[turn.step.call]]
tool = "list_dir"
args = { path = "." }

[scenario]
workspace = { "a.txt" = "hello\\n" }
"""


def attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def times(span: ReadableSpan) -> tuple[int, int]:
    assert span.start_time is not None
    assert span.end_time is not None
    return span.start_time, span.end_time


def by_name(memory: Memory, prefix: str) -> list[ReadableSpan]:
    return [s for s in memory.finished() if s.name.startswith(prefix)]


def test_a_turn_is_an_invoke_agent_trace_with_a_chat_per_attempt_and_a_span_per_call(
    observe: ObserveRun, memory: Memory
) -> None:
    observed = observe(QUICKSTART)
    run = observed.run
    assert observed.report is not None
    assert observed.report.dropped == 0
    [turn] = by_name(memory, "invoke_agent")
    chats = by_name(memory, "chat ")
    calls = by_name(memory, "execute_tool ")
    assert len(chats) == len(run.of("model/attempt")) == 5
    assert sorted(attributes(s)["gen_ai.tool.call.id"] for s in calls) == sorted(run.outcomes)
    assert turn.parent is None
    for span in chats + calls:
        assert span.context.trace_id == turn.context.trace_id
        assert span.parent is not None
        assert span.parent.span_id == turn.context.span_id
        assert times(turn)[0] <= times(span)[0] <= times(span)[1] <= times(turn)[1]
    assert attributes(turn)["gen_ai.operation.name"] == "invoke_agent"
    assert attributes(turn)["gen_ai.conversation.id"] == run.session_id
    assert attributes(turn)["seamhost.turn.outcome"] == "completed"
    assert attributes(turn)["seamhost.turn.tool_calls"] == 6
    chat = chats[0]
    assert chat.name == "chat quickstart"
    assert attributes(chat)["gen_ai.provider.name"] == "scripted"
    assert attributes(chat)["gen_ai.request.model"] == "quickstart"
    assert attributes(chat)["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert attributes(chats[-1])["gen_ai.response.finish_reasons"] == ("stop",)


def test_each_call_carries_its_decision_sandbox_attempt_key_and_outcome(
    observe: ObserveRun, memory: Memory
) -> None:
    run = observe(QUICKSTART).run
    calls = {attributes(s)["gen_ai.tool.call.id"]: s for s in by_name(memory, "execute_tool ")}
    read = calls["call-1-1-1"]
    assert read.name == "execute_tool read_file"
    assert attributes(read)["gen_ai.tool.name"] == "read_file"
    assert attributes(read)["gen_ai.tool.type"] == "function"
    assert attributes(read)["seamhost.decision"] == "allow"
    assert attributes(read)["seamhost.decision.plugin"] == "tool-policy"
    assert attributes(read)["seamhost.decision.reason"] == "no rule matched; the default is allow"
    assert attributes(read)["seamhost.sandbox.mode"] == "workspace-write"
    assert attributes(read)["seamhost.attempt"] == 1
    assert attributes(read)["seamhost.idempotency_key"] == f"{run.session_id}:call-1-1-1"
    assert attributes(read)["seamhost.outcome"] == "ok"
    assert [e.name for e in read.events] == ["seamhost.dispatch"]
    escape = calls["call-1-3-1"]  # the write beside the workspace: the guard refuses it
    assert attributes(escape)["seamhost.decision"] == "deny"
    assert attributes(escape)["seamhost.decision.stage"] == "guard"
    assert attributes(escape)["seamhost.decision.plugin"] == "tools"
    assert attributes(escape)["seamhost.outcome"] == "DENIED_BY_GUARD"
    assert attributes(escape)["error.type"] == "DENIED_BY_GUARD"
    assert escape.status.status_code.name == "ERROR"
    assert "seamhost.attempt" not in attributes(escape)  # never dispatched
    assert attributes(calls["call-1-4-1"])["seamhost.outcome"] == "INVALID_ARGUMENTS"


def test_approvals_carry_their_outcome_and_answerer(observe: ObserveRun, memory: Memory) -> None:
    run = observe(APPROVALS).run
    calls = {attributes(s)["gen_ai.tool.call.id"]: s for s in by_name(memory, "execute_tool ")}
    [asked] = run.of("approval/asked")
    [decided] = run.of("approval/decided")
    span = calls[asked["call_id"]]
    assert attributes(span)["seamhost.approval.id"] == asked["id"]
    assert attributes(span)["seamhost.approval.outcome"] == decided["outcome"]
    assert attributes(span)["seamhost.approval.escalation"] == "danger-full-access"
    assert attributes(span)["seamhost.outcome"] == "APPROVAL_UNAVAILABLE"
    assert "seamhost.approval.asked" in [e.name for e in span.events]


def test_each_turn_is_its_own_trace(observe: ObserveRun, memory: Memory) -> None:
    run = observe(TWO_TURNS).run
    turns = sorted(by_name(memory, "invoke_agent"), key=lambda s: attributes(s)["seamhost.turn"])
    assert [attributes(t)["seamhost.turn"] for t in turns] == [1, 2]
    assert turns[0].context.trace_id != turns[1].context.trace_id
    for span in by_name(memory, "execute_tool "):
        number = attributes(span)["seamhost.turn"]
        [turn] = [t for t in turns if attributes(t)["seamhost.turn"] == number]
        assert span.context.trace_id == turn.context.trace_id
    assert run.outcomes == {"call-1-1-1": "ok", "call-2-1-1": "ok"}


CONTENT = {
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
}


def test_no_content_is_recorded_by_default(observe: ObserveRun, memory: Memory) -> None:
    observe(QUICKSTART)
    assert memory.finished()
    assert not [s.name for s in memory.finished() if CONTENT & set(attributes(s))]


def test_content_is_recorded_when_asked_for(observe: ObserveRun, memory: Memory) -> None:
    observe(QUICKSTART, {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"})
    calls = {attributes(s)["gen_ai.tool.call.id"]: s for s in by_name(memory, "execute_tool ")}
    read = calls["call-1-1-1"]
    assert json.loads(str(attributes(read)["gen_ai.tool.call.arguments"])) == {
        "path": "deploy.toml"
    }
    assert attributes(read)["gen_ai.tool.call.result"] == 'service = "orders"\nreplicas = 3\n'
    [turn] = by_name(memory, "invoke_agent")
    [message] = json.loads(str(attributes(turn)["gen_ai.input.messages"]))
    assert message["parts"][0]["content"] == "Summarise the deployment and write a report."


def test_the_stored_log_rebuilds_the_same_spans(observe: ObserveRun, memory: Memory) -> None:
    # What `session export` will rely on: the spans are a function of the log alone.
    run = observe(QUICKSTART).run
    header = run.bundle.store.read(run.session_id).header
    builder = SpanBuilder(SessionFacts.of(header))
    rebuilt = [
        s
        for record in run.bundle.store.read(run.session_id).records()
        for s in builder.feed(record)
    ]
    rebuilt += builder.close()
    where = resource("seamhost")
    assert sorted(_shape(readable(s, where)) for s in rebuilt) == sorted(
        _shape(s) for s in memory.finished()
    )


def _shape(span: ReadableSpan) -> tuple[object, ...]:
    return (
        span.name,
        span.context.trace_id if span.context else None,
        span.context.span_id if span.context else None,
        span.parent.span_id if span.parent else None,
        span.start_time,
        span.end_time,
        tuple(sorted(attributes(span).items())),
    )


def test_metrics_record_each_operations_duration(observe: ObserveRun, memory: Memory) -> None:
    observe(QUICKSTART)
    points = memory.metric_points()
    durations = points["gen_ai.client.operation.duration"]
    operations = {attributes(p)["gen_ai.operation.name"] for p in durations}
    assert operations == {"invoke_agent", "chat", "execute_tool"}
    assert sum(p.count for p in durations if attributes(p)["gen_ai.operation.name"] == "chat") == 5
    # The scripted model reports no usage: token usage is recorded only for reported tokens.
    assert "gen_ai.client.token.usage" not in points
