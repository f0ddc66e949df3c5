"""The contract every ``llm/adapter`` provider passes: subclass :class:`ModelAdapterContract`.

A provider's test module subclasses it and supplies one fixture, ``model_driver``, returning a
:class:`ModelDriver`: the adapter under test, and a way to make the provider answer the next
request with a :class:`CannedAnswer` (a real provider's answer comes from a local stand-in for
its API; a scripted one's from its script)::

    import pytest
    from seamhost.testing.model_adapter import ModelAdapterContract, ModelDriver

    class TestMyAdapter(ModelAdapterContract):
        @pytest.fixture
        def model_driver(self) -> ModelDriver:
            return MyDriver()

The contract (docs/plugin-guide.md, "Writing a model adapter"): a text-only answer streams its
text and ends with exactly one :class:`~seamhost.ModelDone`, the last event; each tool call is
proposed once, complete, with the model's own call id; a failed attempt raises
:class:`~seamhost.ModelFailed` of the staged kind and yields no proposal and no ``ModelDone``;
``identity`` names plugin, version, base URL and model, no secret; ``max_attempts`` is an int
≥ 1. Failures are staged for the kinds a driver lists in ``failures`` (none: skipped, saying so).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any, Protocol

import attrs
import pytest

from seamhost.llm.adapter import (
    ModelDone,
    ModelEvent,
    ModelFailed,
    ModelRequest,
    TextDelta,
    ToolCallProposal,
)

FAILURE_KINDS = ("connection", "rate-limited", "server", "malformed", "incomplete", "refused")


@attrs.frozen
class CannedCall:
    """A tool call the provider is to answer with."""

    call_id: str  # the model's own id for the call
    name: str  # the tool
    arguments: str  # the raw JSON arguments


@attrs.frozen
class CannedAnswer:
    """What the provider answers the next request with; `fail` stages a failure of that kind
    after the text and calls have begun (so a buffered call must not be proposed)."""

    text: str = ""
    calls: tuple[CannedCall, ...] = ()
    fail: str | None = None  # one of FAILURE_KINDS, or None for a complete answer


class ContractAdapter(Protocol):
    """What the contract reads of an adapter."""

    @property
    def name(self) -> str: ...
    @property
    def identity(self) -> Mapping[str, Any]: ...
    @property
    def max_attempts(self) -> int: ...
    def stream(self, request: ModelRequest) -> Any: ...


class ModelDriver(Protocol):
    """The provider under test, and how to make it answer."""

    @property
    def adapter(self) -> ContractAdapter: ...  # read after `answer`: it may make a new one
    @property
    def failures(self) -> tuple[str, ...]: ...  # the failure kinds `answer` can stage
    @property
    def secret(self) -> str | None: ...  # the credential the adapter was given, if any

    def answer(self, canned: CannedAnswer) -> None:
        """Make the provider answer the next request with `canned`."""


def contract_request(calls: tuple[CannedCall, ...] = ()) -> ModelRequest:
    """The request the contract sends: one user message, a declaration for each called tool."""
    schema = {"type": "object", "additionalProperties": True}
    names = dict.fromkeys(call.name for call in calls)
    tools = tuple(
        {"name": n, "description": f"The {n} tool.", "input_schema": schema} for n in names
    )
    return ModelRequest("contract-session", 1, 1, ({"role": "user", "content": "go"},), tools)


def run_attempt(
    adapter: ContractAdapter, request: ModelRequest
) -> tuple[list[ModelEvent], ModelFailed | None]:
    """The events of one attempt, and the ModelFailed that ended it (None if it completed)."""

    async def drive() -> tuple[list[ModelEvent], ModelFailed | None]:
        events: list[ModelEvent] = []
        try:
            async for event in adapter.stream(request):
                events.append(event)
        except ModelFailed as exc:
            return events, exc
        finally:
            close = getattr(adapter, "aclose", None)
            if close is not None:
                await close()
        return events, None

    return asyncio.run(drive())


class ModelAdapterContract:
    """Subclass it, with a ``model_driver`` fixture giving a :class:`ModelDriver`."""

    def test_a_text_answer_streams_its_text_and_ends_with_one_model_done(
        self, model_driver: ModelDriver
    ) -> None:
        model_driver.answer(CannedAnswer(text="Hello from the contract."))
        events, failure = run_attempt(model_driver.adapter, contract_request())
        assert failure is None, f"the attempt failed: {failure}"
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == (
            "Hello from the contract."
        )
        assert [type(e) for e in events].count(ModelDone) == 1
        assert isinstance(events[-1], ModelDone), "ModelDone must be the last event"
        assert not [e for e in events if isinstance(e, ToolCallProposal)]

    def test_tool_calls_are_proposed_complete_and_once(self, model_driver: ModelDriver) -> None:
        calls = (
            CannedCall("call_a1", "read_file", '{"path": "a \\"quoted\\" name.txt"}'),
            CannedCall("call_b2", "shell", '{"command": "ls -la", "timeout": 5}'),
        )
        model_driver.answer(CannedAnswer(text="Two calls.", calls=calls))
        events, failure = run_attempt(model_driver.adapter, contract_request(calls))
        assert failure is None, f"the attempt failed: {failure}"
        proposals = [e for e in events if isinstance(e, ToolCallProposal)]
        got = [(p.call_id, p.name, json.loads(p.arguments)) for p in proposals]
        assert got == [(c.call_id, c.name, json.loads(c.arguments)) for c in calls]
        assert isinstance(events[-1], ModelDone)
        assert [type(e) for e in events].count(ModelDone) == 1

    def test_a_failed_attempt_raises_model_failed_and_proposes_nothing(
        self, model_driver: ModelDriver
    ) -> None:
        if not model_driver.failures:
            pytest.skip("this driver cannot stage a provider failure")
        calls = (CannedCall("call_f1", "shell", '{"command": "true"}'),)
        for kind in model_driver.failures:
            model_driver.answer(CannedAnswer(text="Partial", calls=calls, fail=kind))
            events, failure = run_attempt(model_driver.adapter, contract_request(calls))
            assert failure is not None, f"a staged {kind} failure did not raise ModelFailed"
            assert failure.kind == kind
            assert isinstance(failure.retryable, bool)
            done = [e for e in events if isinstance(e, ToolCallProposal | ModelDone)]
            assert not done, f"a failed attempt ({kind}) yielded {done}"

    def test_the_identity_names_the_adapter_and_holds_no_secret(
        self, model_driver: ModelDriver
    ) -> None:
        model_driver.answer(CannedAnswer(text="x"))
        identity = dict(model_driver.adapter.identity)
        assert {"plugin", "version", "base_url", "model"} <= set(identity), identity
        assert isinstance(identity["plugin"], str)
        assert identity["plugin"]
        shown = json.dumps(identity, default=str)
        if model_driver.secret:
            assert model_driver.secret not in shown, "the identity holds the credential"
        assert not {k for k in identity if "key" in k.lower() or "token" in k.lower()}

    def test_max_attempts_is_a_whole_number_of_at_least_one(
        self, model_driver: ModelDriver
    ) -> None:
        model_driver.answer(CannedAnswer(text="x"))
        attempts = model_driver.adapter.max_attempts
        assert type(attempts) is int, f"max_attempts is {attempts!r}"
        assert attempts >= 1


__all__ = [
    "FAILURE_KINDS",
    "CannedAnswer",
    "CannedCall",
    "ContractAdapter",
    "ModelAdapterContract",
    "ModelDriver",
    "contract_request",
    "run_attempt",
]
