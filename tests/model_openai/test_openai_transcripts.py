"""Each recorded transcript, replayed by the stand-in, gives exactly these events or failure.

The stand-in is the one mock this project allows: a remote model API cannot run here.
"""

from __future__ import annotations

import time

import pytest

from seamhost import ModelDone, ModelFailed, TextDelta, ToolCallProposal, Usage
from tests.model_openai.conftest import AdapterMaker, attempt
from tests.model_openai.standin import Reply, StandIn

OK_CASES = {
    "text.sse": [
        TextDelta("Hello"),
        TextDelta(" there"),
        TextDelta("."),
        ModelDone("end", Usage(812, 3, 768)),
    ],
    "tool_call_split.sse": [
        ToolCallProposal(
            "call_Qd2x7Ys1", "read_file", '{"path": "src/a \\"b\\".txt", "lines": [1, 20]}'
        ),
        ModelDone("tool_calls", Usage(230, 31, 0)),
    ],
    "parallel_calls.sse": [
        TextDelta("Let me look."),
        ToolCallProposal("call_one", "read_file", '{"path": "README.md"}'),
        ToolCallProposal("call_two", "shell", '{"command": "ls -la"}'),
        ModelDone("tool_calls", Usage(400, 52, 128)),
    ],
    "length.sse": [TextDelta("I will write"), ModelDone("max_tokens", Usage(90, 16, 0))],
    "content_filter.sse": [TextDelta("Sure, here"), ModelDone("content_filter", Usage(50, 3, 0))],
    "ollama_parallel.sse": [
        ToolCallProposal("call_8c1x", "read_file", '{"path":"a.txt"}'),
        ToolCallProposal("call_9d2y", "read_file", '{"path":"b.txt"}'),
        ModelDone("tool_calls", Usage(120, 40, 0)),
    ],
    "deepseek_text.sse": [TextDelta("Hi"), ModelDone("end", Usage(64, 2, 48))],
}


@pytest.mark.parametrize("name", sorted(OK_CASES))
def test_a_complete_transcript_gives_exactly_its_events(
    name: str, standin: StandIn, make_adapter: AdapterMaker
) -> None:
    standin.reply(Reply.transcript(name))
    events, failure = attempt(make_adapter())
    assert failure is None
    assert events == OK_CASES[name]
    assert len(standin.requests) == 1


FAILED_CASES = {
    "rate_limited.json": ("rate-limited", True, 2.0, []),
    "overloaded.json": ("server", True, 1.5, []),
    "server_error.json": ("server", True, None, []),
    "unauthorized.json": ("refused", False, None, []),
    "malformed.sse": ("malformed", False, None, [TextDelta("Hel")]),
    "no_terminal.sse": ("incomplete", True, None, [TextDelta("Checking")]),
    "unknown_index.sse": ("malformed", False, None, []),
    "content_after_finish.sse": ("malformed", False, None, [TextDelta("Done")]),
    "stream_error.sse": ("server", True, None, [TextDelta("Part")]),
}


@pytest.mark.parametrize("name", sorted(FAILED_CASES))
def test_a_failed_transcript_raises_exactly_its_failure_and_proposes_nothing(
    name: str, standin: StandIn, make_adapter: AdapterMaker
) -> None:
    kind, retryable, retry_after, before = FAILED_CASES[name]
    standin.reply(Reply.transcript(name))
    events, failure = attempt(make_adapter())
    assert failure is not None
    assert (failure.kind, failure.retryable, failure.retry_after) == (kind, retryable, retry_after)
    assert events == before  # streamed text at most: never a proposal, never a ModelDone
    assert len(standin.requests) == 1, "the SDK retried on its own"


def test_a_failure_names_what_the_server_said(standin: StandIn, make_adapter: AdapterMaker) -> None:
    standin.reply(Reply.transcript("unauthorized.json"))
    _, failure = attempt(make_adapter())
    assert failure is not None
    assert str(failure).startswith("model request failed (refused): HTTP 401: Incorrect API key")


def test_a_connection_dropped_mid_stream_is_a_retryable_connection_failure(
    standin: StandIn, make_adapter: AdapterMaker
) -> None:
    standin.reply(Reply.transcript("dropped.sse", drop=True))
    events, failure = attempt(make_adapter())
    assert failure is not None
    assert (failure.kind, failure.retryable) == ("connection", True)
    assert events == [TextDelta("Reading")]  # the half-made call is not proposed


def test_a_429_then_success_is_two_attempts_each_one_request(
    standin: StandIn, make_adapter: AdapterMaker
) -> None:
    standin.reply(Reply.transcript("rate_limited.json"), Reply.transcript("text.sse"))
    adapter = make_adapter()
    _, failure = attempt(adapter)
    assert failure is not None
    assert (failure.kind, failure.retry_after) == ("rate-limited", 2.0)
    assert len(standin.requests) == 1
    events, failure = attempt(adapter)
    assert failure is None
    assert events[-1] == ModelDone("end", Usage(812, 3, 768))
    assert len(standin.requests) == 2


def test_a_stream_slower_than_the_deadline_fails_at_the_deadline(
    standin: StandIn, make_adapter: AdapterMaker
) -> None:
    # Every event arrives well within a read timeout, but the whole answer takes ~2.1 s.
    standin.reply(Reply.transcript("text.sse", delay_s=0.3))
    started = time.monotonic()
    events, failure = attempt(make_adapter(timeout_s=0.5))
    elapsed = time.monotonic() - started
    assert failure is not None
    assert (failure.kind, failure.retryable) == ("deadline", True)
    assert ModelDone not in {type(e) for e in events}
    assert 0.5 <= elapsed < 1.5


def test_no_server_is_a_connection_failure(make_adapter: AdapterMaker) -> None:
    _, failure = attempt(make_adapter(base_url="http://127.0.0.1:9/v1"))
    assert failure is not None
    assert (failure.kind, failure.retryable) == ("connection", True)


def test_retry_after_as_an_http_date_is_seconds_from_now() -> None:
    from email.utils import formatdate

    from seamhost_model_openai.failures import retry_after

    wait = retry_after({"retry-after": formatdate(time.time() + 30, usegmt=True)})
    assert wait is not None
    assert 28 <= wait <= 31
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None
    assert isinstance(ModelFailed("server", "x"), ModelFailed)
