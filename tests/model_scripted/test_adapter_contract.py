"""model-scripted passes the model-adapter contract of seamhost.testing.

A script cannot stage a provider failure (its ``error`` is the scenario's own failure, not a
ModelFailed), so the failure test is skipped for it, saying so.
"""

from __future__ import annotations

import attrs
import pytest
from seamhost_model_scripted.adapter import ScriptedAdapter
from seamhost_model_scripted.scenario import (
    Scenario,
    ScenarioCall,
    ScenarioStep,
    ScenarioTurn,
)

from seamhost.testing.model_adapter import CannedAnswer, ModelAdapterContract, ModelDriver


def _scenario(canned: CannedAnswer) -> Scenario:
    calls = tuple(
        ScenarioCall(tool=c.name, args_raw=c.arguments, id=c.call_id) for c in canned.calls
    )
    step = ScenarioStep(text=canned.text, calls=calls)
    return Scenario(name="contract", turns=(ScenarioTurn(user="go", steps=(step,)),))


@attrs.define
class ScriptedDriver:
    """A fresh adapter replaying each canned answer as a one-step scenario."""

    adapter: ScriptedAdapter = attrs.field(
        factory=lambda: ScriptedAdapter(_scenario(CannedAnswer()))
    )
    failures: tuple[str, ...] = ()
    secret: str | None = None

    def answer(self, canned: CannedAnswer) -> None:
        self.adapter = ScriptedAdapter(_scenario(canned))


class TestScriptedAdapterContract(ModelAdapterContract):
    @pytest.fixture
    def model_driver(self) -> ModelDriver:
        return ScriptedDriver()


def test_the_identity_names_the_scenario() -> None:
    adapter = ScriptedAdapter(_scenario(CannedAnswer(text="x")))
    assert adapter.identity == {
        "plugin": "model-scripted",
        "version": "0.1.0",
        "base_url": None,
        "model": "contract",
        "scenario": None,
    }
    assert adapter.max_attempts == 1
