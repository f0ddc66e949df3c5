"""One attempt's stream, transcript by transcript: the exact events, or the exact failure.

Against the stand-in, THE ONE MOCK THIS PROJECT ALLOWS: a remote model API cannot run here.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from seamhost import ModelDone, ModelFailed, TextDelta, ToolCallProposal, Usage
from tests.model_anthropic.driver import drain, failure, make_adapter, request
from tests.model_anthropic.standin import Reply, error, serve, stream


def test_text_streams_in_pieces_and_ends_with_usage() -> None:
    with serve([stream("text")]) as api:
        out = drain(make_adapter(api.url))
    assert out == [
        TextDelta("Hello"),
        TextDelta(', wörld — "quoted".'),
        ModelDone("end", Usage(input_tokens=472, output_tokens=12, cached_input_tokens=0)),
    ]
    assert len(api.requests) == 1
    assert api.requests[0].path == "/v1/messages"


def test_two_tool_uses_with_input_split_mid_string_and_mid_escape() -> None:
    with serve([stream("two_tools")]) as api:
        out = drain(make_adapter(api.url))
    assert out == [
        TextDelta("I'll read both files."),
        ToolCallProposal(
            "toolu_01A09q90qw90lq917835lq9", "read_file", '{"path": "notes/a b\\u00e9.md"}'
        ),
        ToolCallProposal(
            "toolu_01B7fN2xqY4oZk8Lr3vPs1Tq", "shell", '{"command": "echo \\"hi\\"\\n"}'
        ),
        # usage split: input and cache counts from message_start, output from message_delta;
        # input_tokens counts the cached (1000) and cache-creation (30) tokens too
        ModelDone(
            "tool_calls", Usage(input_tokens=1150, output_tokens=89, cached_input_tokens=1000)
        ),
    ]


def test_a_tool_use_without_input_deltas_proposes_an_empty_object() -> None:
    with serve([stream("empty_input")]) as api:
        out = drain(make_adapter(api.url))
    assert out == [
        ToolCallProposal("toolu_empty", "list_dir", "{}"),
        ModelDone("tool_calls", Usage(input_tokens=10, output_tokens=7)),
    ]


FAILURES = {
    "dropped": ("connection", True, None),
    "no_stop": ("incomplete", True, None),
    "bad_json": ("malformed", False, None),
    "overloaded_event": ("server", True, None),
    "after_stop": ("malformed", False, None),
    "unknown_block": ("malformed", False, None),
}


@pytest.mark.parametrize("name", sorted(FAILURES))
def test_a_broken_stream_fails_the_attempt_and_proposes_nothing(name: str) -> None:
    with serve([stream(name)]) as api:
        out = drain(make_adapter(api.url))
    assert failure(out) == FAILURES[name]
    assert not [e for e in out if isinstance(e, ToolCallProposal | ModelDone)], out
    assert len(api.requests) == 1, "the adapter retried on its own"


STATUSES = {
    "429 with Retry-After": (
        error(429, "rate_limit_error", "slow down", **{"retry-after": "7"}),
        ("rate-limited", True, 7.0),
    ),
    "429 with retry-after-ms": (
        error(429, "rate_limit_error", "slow down", **{"retry-after-ms": "250"}),
        ("rate-limited", True, 0.25),
    ),
    "500": (error(500, "api_error", "Internal server error"), ("server", True, None)),
    "529 overloaded": (error(529, "overloaded_error", "Overloaded"), ("server", True, None)),
    "401 bad key": (
        error(401, "authentication_error", "invalid x-api-key"),
        ("refused", False, None),
    ),
    "400 bad request": (error(400, "invalid_request_error", "bad"), ("refused", False, None)),
    "404 unknown model": (error(404, "not_found_error", "model: x"), ("refused", False, None)),
}


@pytest.mark.parametrize("case", sorted(STATUSES))
def test_an_error_status_is_one_classified_failure_with_no_hidden_retry(case: str) -> None:
    reply, expected = STATUSES[case]
    with serve([reply, stream("text")]) as api:
        out = drain(make_adapter(api.url))
    assert failure(out) == expected
    assert len(out) == 1
    assert len(api.requests) == 1, "the SDK's own retries must be off"


def test_429_then_success_is_two_attempts_each_one_request() -> None:
    with serve(
        [error(429, "rate_limit_error", "slow", **{"retry-after": "1"}), stream("text")]
    ) as api:
        adapter = make_adapter(api.url)
        first = drain(adapter)
        assert failure(first) == ("rate-limited", True, 1.0)
        assert len(api.requests) == 1
        second = drain(adapter)
    assert isinstance(second[-1], ModelDone)
    assert len(api.requests) == 2
    assert api.requests[0].body == api.requests[1].body


def test_a_stream_slower_than_the_deadline_fails_at_the_deadline() -> None:
    import time

    with serve([stream("slow")]) as api:
        start = time.monotonic()
        out = drain(make_adapter(api.url, timeout_s=0.4))
        elapsed = time.monotonic() - start
    # each event comes 0.15 s after the last, well within the transport's read timeout: only the
    # attempt's own deadline can stop it
    assert failure(out) == ("deadline", True, None)
    assert 0.35 < elapsed < 1.0, elapsed


def test_an_unreachable_server_is_a_retryable_connection_failure() -> None:
    with serve([]) as api:
        url = api.url
    out = drain(make_adapter(url))  # the port is closed now
    assert failure(out) == ("connection", True, None)


def test_the_failure_message_names_what_happened() -> None:
    with serve([error(529, "overloaded_error", "Overloaded"), stream("overloaded_event")]) as api:
        adapter = make_adapter(api.url)
        status, event = drain(adapter)[-1], drain(adapter)[-1]
    assert isinstance(status, ModelFailed)
    assert isinstance(event, ModelFailed)
    assert str(status) == "model request failed (server): HTTP 529: Overloaded"
    assert str(event) == "model request failed (server): error event overloaded_error: Overloaded"


def test_a_reply_past_the_transcript_is_a_server_error() -> None:
    # the stand-in itself: a test that sends more requests than it scripted sees them fail
    with serve([Reply(200, "")]) as api:
        adapter = make_adapter(api.url)
        assert failure(drain(adapter)) == ("incomplete", True, None)
        assert failure(drain(adapter)) == ("server", True, None)


def test_a_deadline_passing_while_the_caller_holds_an_event_fails_the_next_read() -> None:
    async def slow_consumer(url: str) -> list[object]:
        out: list[object] = []
        try:
            # The first event must come within the deadline, which a loaded machine (the suite
            # on four workers over two cores) missed at 0.3 s: a second is still quick here.
            async for event in make_adapter(url, timeout_s=1.0).stream(request()):
                out.append(event)
                await asyncio.sleep(1.5)  # the caller, not the stream, is slow
        except ModelFailed as failed:
            out.append(failed)
        return out

    with serve([stream("text")]) as api:
        out = asyncio.run(slow_consumer(api.url))
    assert out[0] == TextDelta("Hello")
    assert failure(out) == ("deadline", True, None)
    assert len(out) == 2


def test_cancelling_the_caller_is_a_cancellation_not_a_deadline() -> None:
    async def cancel_midway(url: str) -> bool:
        async def consume() -> None:
            async for _ in make_adapter(url, timeout_s=5).stream(request()):
                pass

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.2)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return task.cancelled()

    with serve([stream("slow")]) as api:
        assert asyncio.run(cancel_midway(api.url))
