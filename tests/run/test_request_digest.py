"""`request_digest` is computed incrementally, and is the digest of the whole request."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from seamhost import jsonvalue
from seamhost.run.model_request import RequestDigests

TEXT = st.text(max_size=6)
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "context"]), "content": TEXT},
    optional={
        "tool_calls": st.lists(
            st.fixed_dictionaries({"call_id": TEXT, "name": TEXT, "arguments": TEXT}), max_size=2
        ),
        "is_error": st.booleans(),
    },
)
TOOLS = st.lists(
    st.fixed_dictionaries({"name": TEXT, "input_schema": st.just({"type": "object"})}), max_size=3
).map(tuple)


def whole(messages: Any, tools: Any) -> str:
    return jsonvalue.digest({"messages": jsonvalue.thaw(messages), "tools": jsonvalue.thaw(tools)})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(MESSAGE, max_size=4), min_size=1, max_size=5), TOOLS)
def test_a_growing_conversation_gets_the_digest_of_its_whole_request(
    growth: list[list[dict[str, Any]]], tools: tuple[dict[str, Any], ...]
) -> None:
    digests = RequestDigests()
    conversation: list[dict[str, Any]] = []
    for new in growth:  # the agent's list, extended between requests
        conversation.extend(new)
        assert digests.of(tuple(conversation), tools) == whole(conversation, tools)


@settings(max_examples=100, deadline=None)
@given(st.lists(MESSAGE, min_size=1, max_size=4), st.lists(MESSAGE, min_size=1, max_size=4), TOOLS)
def test_another_conversation_is_hashed_afresh(
    first: list[dict[str, Any]], second: list[dict[str, Any]], tools: tuple[dict[str, Any], ...]
) -> None:
    digests = RequestDigests()
    digests.of(tuple(first), tools)
    assert digests.of(tuple(second), tools) == whole(second, tools)  # another last message
    assert digests.of((), ()) == whole([], [])  # a shorter one
    assert digests.of(tuple(first[:1]), tools) == whole(first[:1], tools)
