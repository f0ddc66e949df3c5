"""A scenario's ``[expect]`` table as model-scripted reads it: what it accepts, what it refuses
(naming the file and the key), and how a profile's changes layer over the general expectations."""

from __future__ import annotations

from pathlib import Path

import pytest
from seamhost_model_scripted.scenario_reader import load_scenario

from seamhost import CallExpectation
from seamhost.errors import ConfigError
from tests.matrix.kit import SCENARIOS

TWO_CALLS = """
[[turn]]
user = "two writes"
[[turn.step]]
[[turn.step.call]]
tool = "write_file"
id = "first"
args = { path = "a", content = "" }
expect = { "*" = "ok", strict = "DENIED_BY_GUARD" }
[[turn.step.call]]
tool = "write_file"
args = { path = "b", content = "" }
"""


def scenario(tmp_path: Path, expect: str) -> Path:
    path = tmp_path / "two.toml"
    path.write_text(TWO_CALLS + expect)
    return path


def test_profile_changes_layer_over_the_general_expectations(tmp_path: Path) -> None:
    path = scenario(
        tmp_path,
        '[expect]\noutcome = "completed"\ncalls = { first = { decision = "allow" }, 2 = "ok" }\n'
        '[expect.profile.strict]\ncalls = { 1 = { decision = "deny", ran = false } }\n'
        '[expect.profile.minimal]\noutcome = "failed"\n',
    )
    loaded = load_scenario(path)
    default = loaded.cell_expectations("default")
    assert default.outcome == "completed"
    assert default.calls == (
        CallExpectation("first", "write_file", "ok", "allow", None),
        CallExpectation("call-1-1-2", "write_file", "ok", None, None),
    )
    strict = loaded.cell_expectations("strict")  # by position, replacing the check by id
    assert strict.calls[0] == CallExpectation(
        "first", "write_file", "DENIED_BY_GUARD", "deny", False
    )
    assert loaded.cell_expectations("minimal").outcome == "failed"


def test_not_run_and_the_per_call_expect_alone(tmp_path: Path) -> None:
    loaded = load_scenario(scenario(tmp_path, '[expect.calls]\n2 = "not run"\n'))
    assert loaded.cell_expectations("x").calls == (
        CallExpectation("first", "write_file", "ok", None, None),
        CallExpectation("call-1-1-2", "write_file", None, None, False),
    )
    assert load_scenario(SCENARIOS / "read.toml").cell_expectations("x").calls == ()


def test_the_table_round_trips_through_the_document(tmp_path: Path) -> None:
    from seamhost_model_scripted.scenario_reader import _Reader

    loaded = load_scenario(SCENARIOS / "write.toml")
    again = _Reader("again").scenario(loaded.to_document(), default_name="write")
    assert again == loaded
    assert again.expect.profiles[0][0] == "strict"


@pytest.mark.parametrize(
    ("expect", "key", "says"),
    [
        ('[expect]\noutcome = "done"\n', "expect.outcome", "expected one of completed"),
        ("[expect]\nverdict = 1\n", "expect.verdict", "unknown key"),
        ('[expect.calls]\n3 = "ok"\n', "expect.calls.3", "no such call"),
        ('[expect.calls]\nsecond = "ok"\n', "expect.calls.second", "no such call"),
        ('[expect.calls]\nfirst = "fine"\n', "expect.calls.first", 'expected "ok", "not run"'),
        (
            '[expect.calls]\nfirst = { decision = "maybe" }\n',
            "expect.calls.first.decision",
            "expected one of allow, deny, ask",
        ),
        ('[expect.calls]\nfirst = { ran = "no" }\n', "expect.calls.first.ran", "true or false"),
        ("[expect.calls]\nfirst = {}\n", "expect.calls.first", "at least one of"),
        (
            "[expect.profile.strict]\nprofile = { x = {} }\n",
            "expect.profile.strict.profile",
            "unknown key",
        ),
        (
            '[expect.profile.strict.calls]\nthird = "ok"\n',
            "expect.profile.strict.calls.third",
            "no such call",
        ),
    ],
)
def test_a_bad_table_names_the_file_and_the_key(
    tmp_path: Path, expect: str, key: str, says: str
) -> None:
    path = scenario(tmp_path, expect)
    with pytest.raises(ConfigError) as caught:
        load_scenario(path)
    assert caught.value.file == str(path)
    assert caught.value.key == key
    assert says in caught.value.problem
