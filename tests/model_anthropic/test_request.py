"""What the adapter sends: the request as the stand-in received it.

Against the stand-in, THE ONE MOCK THIS PROJECT ALLOWS: a remote model API cannot run here.
"""

from __future__ import annotations

from typing import Any

from seamhost import ModelDone
from tests.model_anthropic.driver import drain, make_adapter, request
from tests.model_anthropic.standin import Recorded, serve, stream

READ = {
    "name": "read_file",
    "description": "Read a file.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
    "effect": "read",  # a key the API does not take: not sent
}


def sent(*messages: dict[str, Any], **config: Any) -> Recorded:
    with serve([stream("text")]) as api:
        out = drain(make_adapter(api.url, **config), request(*messages, tools=(READ,)))
    assert isinstance(out[-1], ModelDone), out
    (only,) = api.requests
    return only


def test_the_basics_model_max_tokens_tools_stream_and_key() -> None:
    got = sent({"role": "user", "content": "hi"})
    assert got.body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "tools": [{k: v for k, v in READ.items() if k != "effect"}],
        "stream": True,
    }
    # the key as the SDK sends it (x-api-key, or a bearer token in recent versions)
    keys = {
        got.headers.get("x-api-key"),
        got.headers.get("authorization", "").removeprefix("Bearer "),
    }
    assert "sk-ant-test" in keys
    assert got.headers["anthropic-version"]
    assert got.headers["x-stainless-retry-count"] == "0"


def test_options_temperature_max_output_tokens_extra_headers_and_body() -> None:
    got = sent(
        {"role": "user", "content": "hi"},
        temperature=0.2,
        max_output_tokens=512,
        extra_headers={"anthropic-beta": "x-2025"},
        extra_body={"top_k": 40, "metadata": {"user_id": "u1"}},
    )
    assert got.body["temperature"] == 0.2
    assert got.body["max_tokens"] == 512
    assert got.body["top_k"] == 40
    assert got.body["metadata"] == {"user_id": "u1"}
    assert got.headers["anthropic-beta"] == "x-2025"


def test_leading_notices_are_the_system_prompt_later_ones_stay_in_place() -> None:
    got = sent(
        {"role": "context", "content": "Sandbox: workspace-write."},
        {"role": "context", "content": "Approval policy: ask."},
        {"role": "user", "content": "list the files"},
        {"role": "assistant", "content": "Done.", "tool_calls": []},
        {"role": "context", "content": "The approval policy is now `never`."},
        {"role": "user", "content": "and now?"},
    )
    assert got.body["system"] == "Sandbox: workspace-write.\n\nApproval policy: ask."
    assert got.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "list the files"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "[runtime notice] The approval policy is now `never`."},
                {"type": "text", "text": "and now?"},
            ],
        },
    ]


def test_tool_calls_and_their_results_round_trip_with_the_models_ids() -> None:
    calls = [
        {"call_id": "toolu_A", "name": "read_file", "arguments": '{"path": "a.md"}'},
        {"call_id": "toolu_B", "name": "shell", "arguments": "", "sandbox_permissions": None},
        {
            "call_id": "toolu_C",
            "name": "shell",
            "arguments": '{"command": "make"}',
            "sandbox_permissions": "danger-full-access",
            "justification": "needs the network",
        },
    ]
    got = sent(
        {"role": "user", "content": "read a.md"},
        {"role": "assistant", "content": "", "tool_calls": calls},
        {"role": "tool", "call_id": "toolu_A", "content": "# A", "is_error": False},
        {"role": "tool", "call_id": "toolu_B", "content": "denied by rule", "is_error": True},
        {"role": "tool", "call_id": "toolu_C", "content": "ok", "is_error": False},
        {"role": "context", "content": "The outcome of call toolu_B is now known."},
    )
    assert "system" not in got.body
    assert got.body["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_A",
                    "name": "read_file",
                    "input": {"path": "a.md"},
                },
                {"type": "tool_use", "id": "toolu_B", "name": "shell", "input": {}},
                {
                    "type": "tool_use",
                    "id": "toolu_C",
                    "name": "shell",
                    "input": {
                        "command": "make",
                        "sandbox_permissions": "danger-full-access",
                        "justification": "needs the network",
                    },
                },
            ],
        },
        {  # the three results merged into one user message, the later notice after them
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_A",
                    "content": "# A",
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_B",
                    "content": "denied by rule",
                    "is_error": True,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_C",
                    "content": "ok",
                    "is_error": False,
                },
                {
                    "type": "text",
                    "text": "[runtime notice] The outcome of call toolu_B is now known.",
                },
            ],
        },
    ]


def test_an_empty_assistant_message_is_left_out_and_its_neighbours_merge() -> None:
    got = sent(
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "", "tool_calls": []},
        {"role": "user", "content": "two"},
    )
    assert got.body["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
        }
    ]


def test_arguments_that_are_not_a_json_object_go_back_as_an_empty_input() -> None:
    calls = [{"call_id": "toolu_X", "name": "shell", "arguments": '{"command": "ls'}]
    got = sent(
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "Running.", "tool_calls": calls},
        {"role": "tool", "call_id": "toolu_X", "content": "invalid arguments", "is_error": True},
    )
    assert got.body["messages"][1]["content"] == [
        {"type": "text", "text": "Running."},
        {"type": "tool_use", "id": "toolu_X", "name": "shell", "input": {}},
    ]
