"""What one attempt sends: the Chat Completions body, headers and exactly one HTTP request.

The stand-in is the one mock this project allows: a remote model API cannot run here.
"""

from __future__ import annotations

import pytest

from seamhost import ToolCallProposal
from tests.model_openai.conftest import KEY, AdapterMaker, attempt, request
from tests.model_openai.standin import Reply, StandIn

READ_FILE = {
    "name": "read_file",
    "description": "Read a file of the workspace.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    "effect": "read-only",  # seamhost's own keys are not sent
}


def test_the_request_maps_messages_and_tools_to_chat_completions(
    standin: StandIn, make_adapter: AdapterMaker
) -> None:
    standin.reply(Reply.transcript("text.sse"))
    conversation = (
        {"role": "context", "content": "Sandbox: workspace-write."},
        {"role": "user", "content": "read a"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"call_id": "call_1", "name": "read_file", "arguments": '{"path":"a"}'}],
        },
        {"role": "tool", "call_id": "call_1", "content": "alpha", "is_error": False},
        {"role": "assistant", "content": "It says alpha.", "tool_calls": []},
    )
    attempt(make_adapter(), request(*conversation, tools=(READ_FILE,)))
    (sent,) = standin.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.body["messages"] == [
        {"role": "system", "content": "Sandbox: workspace-write."},
        {"role": "user", "content": "read a"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path":"a"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "alpha"},
        {"role": "assistant", "content": "It says alpha."},
    ]
    assert sent.body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file of the workspace.",
                "parameters": READ_FILE["input_schema"],
            },
        }
    ]
    assert sent.body["stream"] is True
    assert sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["model"] == "gpt-4o-mini"
    assert sent.headers["authorization"] == f"Bearer {KEY}"


def test_the_models_call_id_round_trips_into_the_next_request(
    standin: StandIn, make_adapter: AdapterMaker
) -> None:
    standin.reply(Reply.transcript("tool_call_split.sse"), Reply.transcript("text.sse"))
    adapter = make_adapter()
    events, _ = attempt(adapter, request(tools=(READ_FILE,)))
    (proposal,) = [e for e in events if isinstance(e, ToolCallProposal)]
    call = {"call_id": proposal.call_id, "name": proposal.name, "arguments": proposal.arguments}
    attempt(
        adapter,
        request(
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "call_id": proposal.call_id, "content": "ok", "is_error": False},
        ),
    )
    messages = standin.requests[1].body["messages"]
    assert messages[1]["tool_calls"][0]["id"] == "call_Qd2x7Ys1"
    assert messages[1]["tool_calls"][0]["function"]["arguments"] == proposal.arguments
    assert messages[2] == {"role": "tool", "tool_call_id": "call_Qd2x7Ys1", "content": "ok"}


def test_the_sampling_options_extra_headers_and_body_are_sent(
    standin: StandIn, make_adapter: AdapterMaker
) -> None:
    standin.reply(Reply.transcript("text.sse"))
    adapter = make_adapter(
        temperature=0.2,
        max_output_tokens=256,
        extra_headers={"X-Title": "seamhost"},
        extra_body={"top_k": 20, "chat_template_kwargs": {"enable_thinking": False}},
    )
    attempt(adapter)
    (sent,) = standin.requests
    assert sent.body["temperature"] == 0.2
    assert sent.body["max_tokens"] == 256
    assert sent.body["top_k"] == 20
    assert sent.body["chat_template_kwargs"] == {"enable_thinking": False}
    assert sent.headers["x-title"] == "seamhost"
    assert "tools" not in sent.body  # no tools: the key is left out, not sent empty


@pytest.mark.parametrize("name", ["server_error.json", "rate_limited.json", "dropped.sse"])
def test_the_sdk_makes_exactly_one_request_per_attempt(
    name: str, standin: StandIn, make_adapter: AdapterMaker
) -> None:
    # Its default would retry these twice; a hidden retry would be an unrecorded attempt.
    standin.reply(Reply.transcript(name, drop=name.endswith(".sse")), Reply.transcript("text.sse"))
    _, failure = attempt(make_adapter())
    assert failure is not None
    assert len(standin.requests) == 1
    assert standin.requests[0].headers.get("x-stainless-retry-count", "0") == "0"


def test_a_message_of_an_unknown_role_is_refused_before_anything_is_sent(
    standin: StandIn, make_adapter: AdapterMaker
) -> None:
    _, failure = attempt(make_adapter(), request({"role": "narrator", "content": "x"}))
    assert failure is not None
    assert (failure.kind, failure.retryable) == ("refused", False)
    assert failure.message == "cannot send a message with role 'narrator'"
    assert standin.requests == []


def test_the_identity_names_the_model_and_endpoint_never_the_key(
    standin: StandIn, make_adapter: AdapterMaker
) -> None:
    adapter = make_adapter(max_attempts=5)
    assert adapter.identity == {
        "plugin": "model-openai",
        "version": "0.1.0",
        "base_url": standin.base_url,
        "model": "gpt-4o-mini",
    }
    assert adapter.max_attempts == 5
    assert KEY not in repr(adapter.settings)
