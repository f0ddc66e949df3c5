"""The span builder alone, over logs written here record by record: what the scripted model
cannot produce (usage, failed attempts, retries, unknown outcomes and their reconciliation, a
log that starts mid-turn, one that ends with a turn still open)."""

from __future__ import annotations

from typing import Any

from seamhost_observe_otel.builder import SessionFacts, SpanBuilder
from seamhost_observe_otel.spans import SpanDescription, span_id, trace_id

from seamhost import Record

FACTS = SessionFacts("s-1", "observed", "model-openai", "gpt-4o-mini", "workspace-write")
T0 = 1_700_000_000_000


def log(*entries: tuple[str, dict[str, Any]], first_seq: int = 0) -> list[Record]:
    """Records of `entries` (type, data), one millisecond apart."""
    return [
        Record(first_seq + i, kind, T0 + first_seq + i, plain=data)
        for i, (kind, data) in enumerate(entries)
    ]


def build(records: list[Record], *, close: bool = True) -> dict[str, SpanDescription]:
    builder = SpanBuilder(FACTS)
    spans = [span for record in records for span in builder.feed(record)]
    if close:
        spans += builder.close()
    named = {span.name: span for span in spans}
    assert len(named) == len(spans), [s.name for s in spans]
    return named


def turn(
    *inner: tuple[str, dict[str, Any]], end: str = "completed"
) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("turn/start", {"turn": 1}),
        ("user/message", {"turn": 1, "step": 0, "content": "go", "source": "user"}),
        ("step/start", {"turn": 1, "step": 1}),
        *inner,
        ("step/end", {"turn": 1, "step": 1}),
        ("turn/end", {"turn": 1, "reason": end}),
    ]


ATTEMPT = (
    "model/attempt",
    {"turn": 1, "step": 1, "attempt": 1, "model": "gpt-4o-mini", "request_digest": "sha256:r"},
)
USAGE = (
    "model/usage",
    {
        "turn": 1,
        "step": 1,
        "attempt": 1,
        "input_tokens": 120,
        "output_tokens": 30,
        "cached_input_tokens": 100,
    },
)
ANSWER = (
    "assistant/message",
    {
        "turn": 1,
        "step": 1,
        "content": "ok",
        "tool_calls": [{"call_id": "c1", "name": "deploy", "arguments": "{}"}],
    },
)
CALL = ("tool/call", {"turn": 1, "step": 1, "call_id": "c1", "name": "deploy", "arguments": "{}"})


def dispatch(attempt: int) -> tuple[str, dict[str, Any]]:
    return (
        "tool/dispatch",
        {
            "call_id": "c1",
            "attempt": attempt,
            "sandbox_mode": "workspace-write",
            "args_digest": "sha256:a",
            "effect": "write",
            "idempotent": True,
        },
    )


def result(code: str | None) -> tuple[str, dict[str, Any]]:
    data: dict[str, Any] = {
        "turn": 1,
        "step": 1,
        "call_id": "c1",
        "is_error": code is not None,
        "content": code or "done",
    }
    if code:
        data["error"] = {"code": code, "message": "it broke"}
    return ("tool/result", data)


def test_usage_lands_on_the_attempt_and_sums_on_the_turn() -> None:
    spans = build(log(*turn(ATTEMPT, USAGE, ANSWER)))
    chat, agent = spans["chat gpt-4o-mini"], spans["invoke_agent"]
    assert chat.kind == "client"
    assert chat.attributes["gen_ai.provider.name"] == "openai"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 120
    assert chat.attributes["gen_ai.usage.output_tokens"] == 30
    assert chat.attributes["gen_ai.usage.cache_read.input_tokens"] == 100
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert agent.attributes["gen_ai.usage.input_tokens"] == 120
    assert (chat.start_ns, chat.end_ns) == (T0 * 10**6 + 3 * 10**6, T0 * 10**6 + 5 * 10**6)
    assert chat.parent_id == agent.span_id == span_id("s-1", 1)
    assert agent.trace_id == chat.trace_id == trace_id("s-1", 1)


def test_a_failed_attempt_is_an_error_span_and_the_retry_its_own() -> None:
    failed = (
        "model/failed",
        {
            "turn": 1,
            "step": 1,
            "attempt": 1,
            "code": "rate-limited",
            "message": "slow down",
            "retryable": True,
        },
    )
    retry = (
        "model/attempt",
        {"turn": 1, "step": 1, "attempt": 2, "model": "gpt-4o-mini", "request_digest": "sha256:r"},
    )
    builder = SpanBuilder(FACTS)
    spans = [s for r in log(*turn(ATTEMPT, failed, retry, ANSWER)) for s in builder.feed(r)]
    first, second = [s for s in spans if s.name.startswith("chat")]
    assert first.error == "rate-limited"
    assert first.status_message == "slow down"
    assert first.attributes["seamhost.retryable"] is True
    assert (first.attributes["seamhost.attempt"], second.attributes["seamhost.attempt"]) == (1, 2)
    assert second.error is None


def test_retried_dispatches_are_events_and_the_last_attempt_counts() -> None:
    failed = (
        "tool/attempt/failed",
        {"call_id": "c1", "attempt": 1, "error": {"code": "TOOL_ERROR", "message": "x"}},
    )
    spans = build(log(*turn(CALL, dispatch(1), failed, dispatch(2), result(None))))
    call = spans["execute_tool deploy"]
    assert [e.name for e in call.events] == [
        "seamhost.dispatch",
        "seamhost.attempt.failed",
        "seamhost.dispatch",
    ]
    assert call.events[1].attributes == {"attempt": 1, "code": "TOOL_ERROR"}
    assert call.attributes["seamhost.attempt"] == 2
    assert call.attributes["seamhost.tool.effect"] == "write"
    assert call.attributes["seamhost.outcome"] == "ok"


def test_an_unknown_outcome_and_its_reconciliation_under_the_call() -> None:
    reconciled = (
        "tool/reconciled",
        {
            "call_id": "c1",
            "attempt": 1,
            "args_digest": "sha256:a",
            "source": "operator",
            "outcome": "result",
            "evidence_digest": "sha256:e",
            "content": "it ran",
        },
    )
    records = log(*turn(CALL, dispatch(1), result("TOOL_OUTCOME_UNKNOWN")), reconciled)
    spans = build(records)
    call, settle = spans["execute_tool deploy"], spans["seamhost.reconcile"]
    assert call.attributes["seamhost.outcome.unknown"] is True
    assert call.error == "TOOL_OUTCOME_UNKNOWN"
    assert settle.parent_id == call.span_id
    assert settle.trace_id == call.trace_id
    assert settle.attributes["seamhost.reconciled.outcome"] == "result"
    assert settle.attributes["seamhost.reconciled.source"] == "operator"
    assert settle.attributes["gen_ai.tool.name"] == "deploy"
    assert settle.error is None


def test_a_reconciliation_in_another_process_is_a_trace_of_its_own() -> None:
    reconciled = (
        "tool/reconciled",
        {
            "call_id": "c1",
            "attempt": 1,
            "args_digest": "sha256:a",
            "source": "cli",
            "outcome": "error",
            "evidence_digest": "sha256:e",
            "content": "",
            "error": {"code": "TOOL_ERROR", "message": "no"},
        },
    )
    [settle] = build(log(reconciled, first_seq=40)).values()
    assert settle.parent_id is None
    assert settle.trace_id == trace_id("s-1", "reconcile", "c1")
    assert settle.error == "TOOL_ERROR"


def test_a_log_resumed_mid_turn_opens_a_segment_in_the_turns_trace() -> None:
    # Another process parked the turn on a deferred approval; this one resumes the call.
    records = log(
        dispatch(1),
        result(None),
        ("step/end", {"turn": 1, "step": 1}),
        ("turn/end", {"turn": 1, "reason": "completed"}),
        first_seq=30,
    )
    spans = build(records)
    segment, call = spans["invoke_agent"], spans["execute_tool unknown"]
    assert segment.attributes["seamhost.resumed"] is True
    assert segment.trace_id == trace_id("s-1", 1)
    assert segment.parent_id == span_id("s-1", 1)  # the turn's first span, in the other process
    assert call.parent_id == segment.span_id
    assert segment.start_ns == call.start_ns  # the segment starts with the first record placed
    assert call.attributes["seamhost.resumed"] is True


def test_closing_finishes_open_spans_as_incomplete() -> None:
    asked = (
        "approval/asked",
        {
            "id": "a1",
            "call_id": "c1",
            "tool": "deploy",
            "reason": "a person decides",
            "args_digest": "sha256:a",
        },
    )
    deferred = (
        "approval/deferred",
        {"id": "a1", "call_id": "c1", "args_digest": "sha256:a", "expires": T0 + 60_000},
    )
    records = log(
        ("turn/start", {"turn": 1}),
        ("step/start", {"turn": 1, "step": 1}),
        ATTEMPT,
        ANSWER,
        CALL,
        asked,
        deferred,
    )
    builder = SpanBuilder(FACTS)
    assert [s.name for r in records for s in builder.feed(r)] == ["chat gpt-4o-mini"]
    spans = {s.name: s for s in builder.close()}
    call, agent = spans["execute_tool deploy"], spans["invoke_agent"]
    assert call.attributes["seamhost.incomplete"] is True
    assert call.attributes["seamhost.approval.deferred"] is True
    assert call.attributes["seamhost.approval.expires"] == T0 + 60_000
    assert call.end_ns == agent.end_ns == records[-1].time * 10**6
    assert agent.attributes["seamhost.incomplete"] is True
    assert builder.close() == []


def test_the_same_log_gives_the_same_spans() -> None:
    failed_turn = turn(ATTEMPT, USAGE, ANSWER, CALL, dispatch(1), result("TOOL_ERROR"), end="error")
    records = log(*failed_turn)
    assert build(records) == build(records)
    agent = build(records)["invoke_agent"]
    assert agent.error == "error"
    assert agent.attributes["seamhost.turn.outcome"] == "error"


def test_records_of_unknown_types_are_skipped() -> None:
    builder = SpanBuilder(FACTS)
    assert builder.feed(Record(0, "acme/audit", T0, plain={"x": 1})) == []
    assert builder.close() == []
