"""The scripted model adapter: answers each model request from a scenario, deterministically.

Which scripted turn answers a request: each session has a cursor that starts before scripted
turn 1 and moves to the next scripted turn whenever a request's ``turn`` differs from the previous
request's. The first request of a session therefore maps to scripted turn 1 whatever the
session's turn number (a resumed session starts at turn N > 1). This relies on the loop's
contract that one session's requests arrive one after the other. Within the turn, the request's
``step`` (1-based) picks the scripted step; a step past the scripted ones is answered by the
turn's ``final`` text alone, which proposes no calls and so ends the turn.

Given `first_turn` (``seamhost run`` passes it through ``llm/replay``), the mapping is fixed
instead: session turn ``first_turn + i`` is scripted turn ``i + 1``. That is what resuming a turn
parked on a deferred approval needs: its next request must find that turn's script, whatever
the process that asks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from seamhost import ModelDone, TextDelta, ToolCallProposal
from seamhost.errors import SeamhostError
from seamhost.version import installed_version

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from seamhost import ModelEvent, ModelRequest
    from seamhost_model_scripted.scenario import Scenario, ScenarioStep, ScenarioTurn


class ScriptedModelError(SeamhostError, RuntimeError):
    """The scenario scripts a model failure (``error = "..."``) for this step."""

    scenario: str
    turn: int
    step: int
    message: str

    def __str__(self) -> str:
        return (
            f"scripted model error: {self.message} "
            f"(scenario {self.scenario}, session turn {self.turn}, step {self.step})"
        )


class ScenarioExhausted(SeamhostError, LookupError):
    """The session asked the model for more turns than the scenario scripts."""

    scenario: str
    scripted_turn: int
    session_turn: int
    scripted: int

    def __str__(self) -> str:
        return (
            f"scenario {self.scenario} has no turn {self.scripted_turn} "
            f"(session turn {self.session_turn} asked for it): it scripts {self.scripted} "
            "turn(s); add a [[turn]] or run fewer turns"
        )


class InvalidModelRequest(SeamhostError, ValueError):
    """A model request breaks the loop's numbering contract (steps count from 1)."""

    turn: int
    step: int

    def __str__(self) -> str:
        return f"model request for turn {self.turn} has step {self.step}; steps count from 1"


@attrs.define
class _Cursor:
    """Where one session is in the script: the scripted turn index and the turn it answers."""

    index: int = -1
    session_turn: int | None = None


class ScriptedAdapter:
    """A :class:`~seamhost.llm.adapter.ModelAdapter` replaying `scenario`, one cursor per
    session."""

    name = "model-scripted"
    max_attempts = 1  # a script answers the same way every time: retrying cannot help

    def __init__(self, scenario: Scenario, first_turn: int | None = None) -> None:
        self.scenario = scenario
        self.first_turn = first_turn
        self._cursors: dict[str, _Cursor] = {}

    @property
    def identity(self) -> dict[str, Any]:
        """What the bundle snapshot records: the plugin, its version and the scenario replayed."""
        return {
            "plugin": self.name,
            "version": installed_version("seamhost-model-scripted"),
            "base_url": None,  # nothing is sent anywhere
            "model": self.scenario.name,
            "scenario": self.scenario.source or None,
        }

    def scripted_turn(self, request: ModelRequest) -> ScenarioTurn:
        """The scripted turn answering `request`, advancing the session's cursor on a new turn.

        Raises :class:`ScenarioExhausted` when the scenario has no further turn.
        """
        turns = self.scenario.turns
        if self.first_turn is not None:
            index = request.turn - self.first_turn
        else:
            cursor = self._cursors.setdefault(request.session_id, _Cursor())
            if cursor.session_turn != request.turn:
                cursor.index += 1
                cursor.session_turn = request.turn
            index = cursor.index
        if not 0 <= index < len(turns):
            raise ScenarioExhausted(self._label, index + 1, request.turn, len(turns))
        return turns[index]

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream the scripted answer: the text (if any), each call in order, then the end."""
        if request.step < 1:
            raise InvalidModelRequest(request.turn, request.step)
        turn = self.scripted_turn(request)
        step: ScenarioStep | None = (
            turn.steps[request.step - 1] if request.step <= len(turn.steps) else None
        )
        if step is None:
            if turn.final:
                yield TextDelta(turn.final)
            yield ModelDone()
            return
        if step.delay_ms:
            import asyncio  # loaded by the running loop; not imported with the adapter

            await asyncio.sleep(step.delay_ms / 1000)
        if step.error is not None:
            raise ScriptedModelError(self._label, request.turn, request.step, step.error)
        if step.text:
            yield TextDelta(step.text)
        for n, call in enumerate(step.calls, start=1):
            yield ToolCallProposal(
                call_id=call.call_id(request.turn, request.step, n),
                name=call.tool,
                arguments=call.arguments,
                sandbox_permissions=call.sandbox_permissions,
                justification=call.justification,
            )
        yield ModelDone()

    @property
    def _label(self) -> str:
        return self.scenario.source or repr(self.scenario.name)
