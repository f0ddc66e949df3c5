"""The scripted adapter streams exactly what the scenario scripts, turn by turn and step by step."""

from __future__ import annotations

import asyncio
import textwrap
import time
from typing import TYPE_CHECKING

import pytest
from seamhost_model_scripted import (
    InvalidModelRequest,
    ScenarioExhausted,
    ScriptedAdapter,
    ScriptedModelError,
)
from seamhost_model_scripted.scenario_reader import load_scenario

from seamhost.errors import SeamhostError
from seamhost.llm.adapter import ModelDone, ModelEvent, ModelRequest, TextDelta, ToolCallProposal

if TYPE_CHECKING:
    from pathlib import Path

SCENARIO = """\
[scenario]
name = "two-turns"

[[turn]]
user = "restart the orders service"
final = "Done."

[[turn.step]]
text = "Reading the config first."
[[turn.step.call]]
tool = "read_file"
args = { zeta = 1, alpha = { b = [1, 2.5, "x"], a = true }, "ü" = "ß\\n\\"q\\"" }
[[turn.step.call]]
tool = "shell"
args_raw = "{not json"

[[turn.step]]
[[turn.step.call]]
tool = "shell"
args_raw = '{ "cmd" : "systemctl restart orders" }'
id = "c-restart"
sandbox_permissions = "danger-full-access"
justification = "needs to restart a system service"
[[turn.step.call]]
tool = "noop"

[[turn]]
user = "say nothing"
"""


@pytest.fixture
def adapter(tmp_path: Path) -> ScriptedAdapter:
    path = tmp_path / "two-turns.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    return ScriptedAdapter(load_scenario(path))


def script(tmp_path: Path, text: str) -> ScriptedAdapter:
    path = tmp_path / "s.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return ScriptedAdapter(load_scenario(path))


def request(turn: int, step: int, session: str = "s-1") -> ModelRequest:
    return ModelRequest(session_id=session, turn=turn, step=step, messages=(), tools=())


async def drain(adapter: ScriptedAdapter, req: ModelRequest) -> list[ModelEvent]:
    return [event async for event in adapter.stream(req)]


def ask(adapter: ScriptedAdapter, turn: int, step: int, session: str = "s-1") -> list[ModelEvent]:
    return asyncio.run(drain(adapter, request(turn, step, session)))


def test_a_step_streams_its_text_then_each_call_then_done(adapter: ScriptedAdapter) -> None:
    assert ask(adapter, 1, 1) == [
        TextDelta("Reading the config first."),
        ToolCallProposal(
            call_id="call-1-1-1",
            name="read_file",
            arguments='{"zeta":1,"alpha":{"b":[1,2.5,"x"],"a":true},"ü":"ß\\n\\"q\\""}',
        ),
        ToolCallProposal(call_id="call-1-1-2", name="shell", arguments="{not json"),
        ModelDone(),
    ]


def test_args_are_compact_json_in_written_order_and_utf8(adapter: ScriptedAdapter) -> None:
    call = ask(adapter, 1, 1)[1]
    assert isinstance(call, ToolCallProposal)
    assert call.arguments.encode() == (
        b'{"zeta":1,"alpha":{"b":[1,2.5,"x"],"a":true},"\xc3\xbc":"\xc3\x9f\\n\\"q\\""}'
    )


def test_explicit_ids_raw_args_and_escalation_are_passed_through(
    adapter: ScriptedAdapter,
) -> None:
    ask(adapter, 1, 1)
    events = ask(adapter, 1, 2)
    assert events == [
        ToolCallProposal(
            call_id="c-restart",
            name="shell",
            arguments='{ "cmd" : "systemctl restart orders" }',
            sandbox_permissions="danger-full-access",
            justification="needs to restart a system service",
        ),
        ToolCallProposal(call_id="call-1-2-2", name="noop", arguments="{}"),
        ModelDone(),
    ]


def test_a_step_past_the_script_is_the_final_text_alone(adapter: ScriptedAdapter) -> None:
    ask(adapter, 1, 1)
    ask(adapter, 1, 2)
    assert ask(adapter, 1, 3) == [TextDelta("Done."), ModelDone()]
    # the second turn scripts no step and no final: an empty answer that ends the turn
    assert ask(adapter, 2, 1) == [ModelDone()]


def test_the_cursor_follows_turn_changes_not_turn_numbers(adapter: ScriptedAdapter) -> None:
    # a resumed session: its first request is turn 7, answered by scripted turn 1
    first = ask(adapter, 7, 1)
    assert [e.call_id for e in first if isinstance(e, ToolCallProposal)] == [
        "call-7-1-1",
        "call-7-1-2",
    ]
    assert ask(adapter, 7, 3) == [TextDelta("Done."), ModelDone()]
    # any other turn number moves to the next scripted turn
    assert ask(adapter, 9, 1) == [ModelDone()]
    with pytest.raises(ScenarioExhausted) as info:
        ask(adapter, 10, 1)
    assert isinstance(info.value, SeamhostError)
    assert str(info.value) == (
        f"scenario {adapter.scenario.source} has no turn 3 (session turn 10 asked for it): "
        "it scripts 2 turn(s); add a [[turn]] or run fewer turns"
    )


def test_each_session_has_its_own_cursor(adapter: ScriptedAdapter) -> None:
    ask(adapter, 1, 1, session="a")
    assert ask(adapter, 2, 1, session="a") == [ModelDone()]
    # session b starts at scripted turn 1 although session a is at turn 2
    assert ask(adapter, 2, 1, session="b")[0] == TextDelta("Reading the config first.")
    assert ask(adapter, 2, 2, session="a") == [ModelDone()]


def test_the_same_request_is_answered_the_same_way(adapter: ScriptedAdapter) -> None:
    # a retry of a step (same turn, same step) replays it; it does not move the cursor
    assert ask(adapter, 1, 1) == ask(adapter, 1, 1)
    assert ask(adapter, 1, 2)[0] == ask(adapter, 1, 2)[0]


def test_an_error_step_raises_after_streaming_nothing(tmp_path: Path) -> None:
    adapter = script(
        tmp_path,
        """
        [[turn]]
        user = "u"
        [[turn.step]]
        error = "upstream overloaded"
        """,
    )
    seen: list[ModelEvent] = []

    async def consume() -> None:
        async for event in adapter.stream(request(3, 1)):
            seen.append(event)

    with pytest.raises(ScriptedModelError) as info:
        asyncio.run(consume())
    assert seen == []
    assert isinstance(info.value, SeamhostError)
    assert str(info.value) == (
        f"scripted model error: upstream overloaded (scenario {tmp_path / 's.toml'}, "
        "session turn 3, step 1)"
    )


def test_a_delay_sleeps_on_the_event_loop_before_the_first_event(tmp_path: Path) -> None:
    adapter = script(
        tmp_path,
        """
        [[turn]]
        user = "u"
        [[turn.step]]
        delay_ms = 300
        text = "late"
        [[turn.step.call]]
        tool = "t"
        """,
    )
    order: list[str] = []

    async def other_task() -> None:
        await asyncio.sleep(0.01)
        order.append("other task ran")

    async def main() -> float:
        started = time.monotonic()
        other = asyncio.create_task(other_task())
        async for event in adapter.stream(request(1, 1)):
            order.append(type(event).__name__)
        await other
        return time.monotonic() - started

    elapsed = asyncio.run(main())
    # the delay yields to the loop (a blocking sleep would run the other task last) ...
    assert order == ["other task ran", "TextDelta", "ToolCallProposal", "ModelDone"]
    # ... and is not cut short (a lower bound only: the machine may be slow, never fast)
    assert elapsed >= 0.29


def test_a_delayed_error_step_still_fails(tmp_path: Path) -> None:
    adapter = script(
        tmp_path,
        """
        [[turn]]
        user = "u"
        [[turn.step]]
        delay_ms = 20
        error = "timeout upstream"
        """,
    )
    with pytest.raises(ScriptedModelError, match="timeout upstream"):
        ask(adapter, 1, 1)


def test_step_numbers_start_at_one(adapter: ScriptedAdapter) -> None:
    with pytest.raises(InvalidModelRequest, match="steps count from 1"):
        ask(adapter, 1, 0)
    # the refused request did not move the cursor
    assert ask(adapter, 5, 1)[0] == TextDelta("Reading the config first.")
