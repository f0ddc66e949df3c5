"""The scenario format (seamhost_model_scripted.scenario): TOML and JSON load to the same model,
and every
problem is reported with the file and the key path."""

from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from seamhost_model_scripted import scenario as scenario_module
from seamhost_model_scripted.scenario import (
    GENERATED_ID,
    OUTCOMES,
    Scenario,
    ScenarioCall,
    ScenarioStep,
    ScenarioTurn,
)
from seamhost_model_scripted.scenario_reader import load_scenario

from seamhost.errors import ConfigError, ErrorCode
from seamhost.jsonvalue import INT64_MAX, INT64_MIN

if TYPE_CHECKING:
    from pathlib import Path

DEPLOY_TOML = """\
[scenario]
name = "deploy"
description = "Restart a service after reading its config."
workspace = { "deploy.toml" = "service = 'orders'\\n", "etc/notes.txt" = "" }

[[turn]]
user = "restart the orders service"
final = "Done."

[[turn.step]]
text = "Reading the config first."
[[turn.step.call]]
tool = "read_file"
args = { path = "deploy.toml", lines = [1, 20], follow = false }

[[turn.step]]
delay_ms = 5
[[turn.step.call]]
tool = "shell"
args_raw = "{not json"
id = "c-restart"
sandbox_permissions = "danger-full-access"
justification = "needs to restart a system service"
expect = { "*" = "ok", strict = "SANDBOX_DENIED" }
[[turn.step.call]]
tool = "noop"

[[turn]]
user = "and now fail"
[[turn.step]]
error = "upstream overloaded"
"""

DEPLOY_JSON: dict[str, Any] = {
    "scenario": {
        "name": "deploy",
        "description": "Restart a service after reading its config.",
        "workspace": {"deploy.toml": "service = 'orders'\n", "etc/notes.txt": ""},
    },
    "turn": [
        {
            "user": "restart the orders service",
            "final": "Done.",
            "step": [
                {
                    "text": "Reading the config first.",
                    "call": [
                        {
                            "tool": "read_file",
                            "args": {"path": "deploy.toml", "lines": [1, 20], "follow": False},
                        }
                    ],
                },
                {
                    "delay_ms": 5,
                    "call": [
                        {
                            "tool": "shell",
                            "args_raw": "{not json",
                            "id": "c-restart",
                            "sandbox_permissions": "danger-full-access",
                            "justification": "needs to restart a system service",
                            "expect": {"*": "ok", "strict": "SANDBOX_DENIED"},
                        },
                        {"tool": "noop"},
                    ],
                },
            ],
        },
        {"user": "and now fail", "step": [{"error": "upstream overloaded"}]},
    ],
}


def write_json(path: Path, doc: object) -> Path:
    path.write_bytes(orjson.dumps(doc))
    return path


def test_toml_and_json_load_to_the_same_model(tmp_path: Path) -> None:
    toml_path = tmp_path / "deploy.toml"
    toml_path.write_text(DEPLOY_TOML, encoding="utf-8")
    from_toml = load_scenario(toml_path)
    from_json = load_scenario(write_json(tmp_path / "deploy.json", DEPLOY_JSON))

    assert from_toml == from_json
    assert from_toml.source == str(toml_path)
    assert from_json.source == str(tmp_path / "deploy.json")
    assert from_toml.workspace == {"deploy.toml": "service = 'orders'\n", "etc/notes.txt": ""}
    first, second = from_toml.turns
    assert first.final == "Done."
    assert second.final == ""
    read, restart = first.steps
    assert read.text == "Reading the config first."
    assert read.delay_ms == 0
    assert restart.delay_ms == 5
    assert read.calls[0].arguments == '{"path":"deploy.toml","lines":[1,20],"follow":false}'
    shell, noop = restart.calls
    assert shell.arguments == "{not json"
    assert shell.call_id(4, 2, 1) == "c-restart"
    assert (shell.sandbox_permissions, shell.justification) == (
        "danger-full-access",
        "needs to restart a system service",
    )
    assert noop.arguments == "{}"
    assert noop.call_id(4, 2, 2) == "call-4-2-2"
    assert second.steps == (ScenarioStep(error="upstream overloaded"),)
    assert second.steps[0].ends_turn
    assert not read.ends_turn


def test_the_format_reference_example_is_a_valid_scenario(tmp_path: Path) -> None:
    reference = scenario_module.__doc__ or ""
    example = textwrap.dedent(reference.split("::\n\n", 1)[1].split("\nHow the scripted", 1)[0])
    path = tmp_path / "reference.toml"
    path.write_text(example, encoding="utf-8")
    scenario = load_scenario(path)
    (turn,) = scenario.turns
    (step,) = turn.steps
    assert [call.tool for call in step.calls] == ["read_file", "shell"]
    assert step.calls[1].expected("strict") == "SANDBOX_DENIED"


def test_expected_outcome_per_profile_falls_back_to_star() -> None:
    call = ScenarioCall("shell", expect={"*": "ok", "strict": "SANDBOX_DENIED"})
    assert call.expected("strict") == "SANDBOX_DENIED"
    assert call.expected("default") == "ok"
    only_ci = ScenarioCall("shell", expect={"ci": "DENIED_BY_POLICY"})
    assert only_ci.expected("ci") == "DENIED_BY_POLICY"
    assert only_ci.expected("default") is None
    assert ScenarioCall("shell").expected("default") is None


def test_defaults_name_from_the_file_and_empty_text(tmp_path: Path) -> None:
    path = tmp_path / "smoke-test.toml"
    path.write_text('[[turn]]\nuser = "hi"\n', encoding="utf-8")
    scenario = load_scenario(path)
    assert scenario == Scenario(name="smoke-test", turns=(ScenarioTurn(user="hi"),))
    assert scenario.description == ""
    assert scenario.workspace == {}


def test_a_closing_step_may_end_the_last_position(tmp_path: Path) -> None:
    doc = {
        "turn": [
            {
                "user": "u",
                "step": [
                    {"call": [{"tool": "t"}]},
                    {"text": "all done", "delay_ms": 50},
                ],
            }
        ]
    }
    scenario = load_scenario(write_json(tmp_path / "s.json", doc))
    closing = scenario.turns[0].steps[1]
    assert closing == ScenarioStep(text="all done", delay_ms=50)
    assert closing.ends_turn


# --------------------------------------------------------------------------------------------
# every problem names the file and the key path
# --------------------------------------------------------------------------------------------


def turn_with(call: dict[str, Any] | None = None, **step: Any) -> dict[str, Any]:
    """A one-turn document whose only step holds `step` and, if given, `call`."""
    if call is not None:
        step["call"] = [call]
    return {"turn": [{"user": "u", "step": [step]}]}


CALL0 = "turn[0].step[0].call[0]"

JSON_PROBLEMS: list[tuple[str, object, str, str]] = [
    ("top-level array", [1], "", "expected a table"),
    ("unknown top key", {"turns": [], "turn": [{"user": "u"}]}, "turns", "unknown key"),
    ("no turn", {"scenario": {"name": "x"}}, "turn", "at least one [[turn]]"),
    ("empty turn list", {"turn": []}, "turn", "at least one [[turn]]"),
    ("turn not an array", {"turn": {"user": "u"}}, "turn", "expected an array of tables"),
    ("turn entry not a table", {"turn": ["u"]}, "turn[0]", "expected a table"),
    (
        "unknown header key",
        {"scenario": {"title": "x"}, "turn": [{"user": "u"}]},
        "scenario.title",
        "unknown key; expected one of name, description, workspace",
    ),
    (
        "header name not a string",
        {"scenario": {"name": 3}, "turn": [{"user": "u"}]},
        "scenario.name",
        "expected a string, got int 3",
    ),
    (
        "workspace not a table",
        {"scenario": {"workspace": ["a"]}, "turn": [{"user": "u"}]},
        "scenario.workspace",
        "expected a table",
    ),
    (
        "workspace absolute path",
        {"scenario": {"workspace": {"/etc/passwd": ""}}, "turn": [{"user": "u"}]},
        "scenario.workspace./etc/passwd",
        "relative path inside the workspace",
    ),
    (
        "workspace escaping path",
        {"scenario": {"workspace": {"a/../../x": ""}}, "turn": [{"user": "u"}]},
        "scenario.workspace.a/../../x",
        "relative path inside the workspace",
    ),
    (
        "workspace content not a string",
        {"scenario": {"workspace": {"a.txt": 1}}, "turn": [{"user": "u"}]},
        "scenario.workspace.a.txt",
        "file content as a string",
    ),
    ("missing user", {"turn": [{"final": "x"}]}, "turn[0].user", "required"),
    ("user is null", {"turn": [{"user": None}]}, "turn[0].user", "expected a string, got null"),
    ("unknown turn key", {"turn": [{"user": "u", "steps": []}]}, "turn[0].steps", "unknown key"),
    (
        "final not a string",
        {"turn": [{"user": "u", "final": 1}]},
        "turn[0].final",
        "expected a string",
    ),
    ("unknown step key", turn_with({"tool": "t"}, txt="x"), "turn[0].step[0].txt", "unknown key"),
    (
        "negative delay",
        turn_with({"tool": "t"}, delay_ms=-1),
        "turn[0].step[0].delay_ms",
        "milliseconds >= 0",
    ),
    (
        "boolean delay",
        turn_with({"tool": "t"}, delay_ms=True),
        "turn[0].step[0].delay_ms",
        "milliseconds >= 0",
    ),
    (
        "float delay",
        turn_with({"tool": "t"}, delay_ms=1.5),
        "turn[0].step[0].delay_ms",
        "milliseconds >= 0",
    ),
    (
        "error with calls",
        turn_with({"tool": "t"}, error="boom"),
        "turn[0].step[0].error",
        "streams nothing",
    ),
    (
        "error with text",
        turn_with(error="boom", text="hi"),
        "turn[0].step[0].error",
        "streams nothing",
    ),
    ("error not a string", turn_with(error=1), "turn[0].step[0].error", "expected a string"),
    (
        "closing step before another",
        {"turn": [{"user": "u", "step": [{"text": "x"}, {"call": [{"tool": "t"}]}]}]},
        "turn[0].step[0]",
        "would never be asked for",
    ),
    (
        "error step before another",
        {"turn": [{"user": "u", "step": [{"error": "x"}, {"call": [{"tool": "t"}]}]}]},
        "turn[0].step[0]",
        "would never be asked for",
    ),
    (
        "final after a closing step",
        {"turn": [{"user": "u", "final": "f", "step": [{"text": "x"}]}]},
        "turn[0].final",
        "`final` would never be asked for",
    ),
    (
        "call not an array",
        {"turn": [{"user": "u", "step": [{"call": {"tool": "t"}}]}]},
        "turn[0].step[0].call",
        "expected an array of tables",
    ),
    ("missing tool", turn_with({"args": {}}), f"{CALL0}.tool", "required"),
    ("empty tool", turn_with({"tool": ""}), f"{CALL0}.tool", "required"),
    (
        "unknown call key",
        turn_with({"tool": "t", "arguments": "{}"}),
        f"{CALL0}.arguments",
        "unknown key",
    ),
    (
        "args not a table",
        turn_with({"tool": "t", "args": "{}"}),
        f"{CALL0}.args",
        "expected a table, got str",
    ),
    (
        "args null",
        turn_with({"tool": "t", "args": None}),
        f"{CALL0}.args",
        "expected a table, got null",
    ),
    (
        "args and args_raw",
        turn_with({"tool": "t", "args": {}, "args_raw": "{}"}),
        f"{CALL0}.args_raw",
        "not both",
    ),
    (
        "args_raw not a string",
        turn_with({"tool": "t", "args_raw": {"a": 1}}),
        f"{CALL0}.args_raw",
        "expected a string",
    ),
    ("id not a string", turn_with({"tool": "t", "id": 7}), f"{CALL0}.id", "expected a string"),
    ("empty id", turn_with({"tool": "t", "id": ""}), f"{CALL0}.id", "non-empty"),
    (
        "generated-form id",
        turn_with({"tool": "t", "id": "call-1-1-2"}),
        f"{CALL0}.id",
        "form of a generated id",
    ),
    (
        "sandbox_permissions not a string",
        turn_with({"tool": "t", "sandbox_permissions": ["danger-full-access"]}),
        f"{CALL0}.sandbox_permissions",
        "expected a string",
    ),
    (
        "justification not a string",
        turn_with({"tool": "t", "justification": False}),
        f"{CALL0}.justification",
        "expected a string",
    ),
    (
        "expect not a table",
        turn_with({"tool": "t", "expect": "ok"}),
        f"{CALL0}.expect",
        "expected a table of profile name = outcome",
    ),
    (
        "expect unknown code",
        turn_with({"tool": "t", "expect": {"strict": "DENIED"}}),
        f"{CALL0}.expect.strict",
        'expected "ok" or an error code',
    ),
    (
        "expect code not a string",
        turn_with({"tool": "t", "expect": {"*": ["ok"]}}),
        f"{CALL0}.expect.*",
        'expected "ok" or an error code',
    ),
    (
        "expect empty profile",
        turn_with({"tool": "t", "expect": {"": "ok"}}),
        f"{CALL0}.expect",
        "empty key",
    ),
]


@pytest.mark.parametrize(
    ("doc", "key", "problem"),
    [pytest.param(doc, key, problem, id=name) for name, doc, key, problem in JSON_PROBLEMS],
)
def test_json_problems_name_the_file_and_key(
    tmp_path: Path, doc: object, key: str, problem: str
) -> None:
    path = write_json(tmp_path / "broken.json", doc)
    with pytest.raises(ConfigError) as info:
        load_scenario(path)
    assert info.value.file == str(path)
    assert info.value.key == key
    assert problem in info.value.problem
    assert str(info.value).startswith(f"{path}: {key}: " if key else f"{path}: ")


def test_the_briefs_example_path_for_a_deep_args_raw(tmp_path: Path) -> None:
    ok_turn = {"user": "u", "step": [{"call": [{"tool": "t"}]}]}
    bad_turn = {
        "user": "u",
        "step": [{"call": [{"tool": "t"}]}, {"call": [{"tool": "t", "args_raw": 1}]}],
    }
    path = write_json(tmp_path / "deep.json", {"turn": [ok_turn, ok_turn, bad_turn]})
    with pytest.raises(ConfigError) as info:
        load_scenario(path)
    assert str(info.value) == (
        f"{path}: turn[2].step[1].call[0].args_raw: expected a string, got int 1"
    )


def test_duplicate_call_ids_name_both_places(tmp_path: Path) -> None:
    doc = {
        "turn": [
            {"user": "u", "step": [{"call": [{"tool": "a", "id": "x"}]}]},
            {"user": "v", "step": [{"call": [{"tool": "b"}, {"tool": "c", "id": "x"}]}]},
        ]
    }
    path = write_json(tmp_path / "dup.json", doc)
    with pytest.raises(ConfigError) as info:
        load_scenario(path)
    assert info.value.key == "turn[1].step[0].call[1].id"
    assert "already used at turn[0].step[0].call[0]" in info.value.problem


TOML_PROBLEMS: list[tuple[str, str, str, str]] = [
    ("not TOML", "[[turn]\nuser = 1", "", "not valid TOML"),
    (
        "a date in args",
        """
        [[turn]]
        user = "u"
        [[turn.step]]
        [[turn.step.call]]
        tool = "t"
        args = { when = 2024-01-01T00:00:00Z }
        """,
        f"{CALL0}.args.when",
        "datetime is not a plain JSON value",
    ),
    (
        "nan deep in args",
        """
        [[turn]]
        user = "u"
        [[turn.step]]
        [[turn.step.call]]
        tool = "t"
        args = { items = [1, nan] }
        """,
        f"{CALL0}.args.items[1]",
        "not representable in JSON",
    ),
    (
        "an integer wider than 64 bits",
        """
        [[turn]]
        user = "u"
        [[turn.step]]
        [[turn.step.call]]
        tool = "t"
        args.deep.n = 99999999999999999999
        """,
        f"{CALL0}.args.deep.n",
        "does not fit in 64 bits",
    ),
    (
        "workspace as dotted keys",
        """
        [scenario]
        workspace.dir.file = "x"
        [[turn]]
        user = "u"
        """,
        "scenario.workspace.dir",
        "file content as a string",
    ),
    (
        "unknown key in a step",
        """
        [[turn]]
        user = "u"
        [[turn.step]]
        txt = "typo"
        """,
        "turn[0].step[0].txt",
        "unknown key; expected one of text, call, error, delay_ms",
    ),
]


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [pytest.param(text, key, problem, id=name) for name, text, key, problem in TOML_PROBLEMS],
)
def test_toml_problems_name_the_file_and_key(
    tmp_path: Path, text: str, key: str, problem: str
) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_scenario(path)
    assert (info.value.file, info.value.key) == (str(path), key)
    assert problem in info.value.problem


def test_invalid_json_is_reported_with_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"turn": [', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"s\.json: not valid JSON"):
        load_scenario(path)


def test_an_unreadable_or_misnamed_file_is_a_config_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(ConfigError) as info:
        load_scenario(missing)
    assert info.value.file == str(missing)
    assert "cannot read the scenario: No such file or directory" in info.value.problem
    yaml = tmp_path / "s.yaml"
    yaml.write_text("turn: []", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"s\.yaml: a scenario is a \.toml or a \.json file"):
        load_scenario(yaml)


def test_every_error_code_is_an_accepted_outcome() -> None:
    assert {*ErrorCode} | {"ok"} == OUTCOMES


# --------------------------------------------------------------------------------------------
# round trip: any valid scenario, written as JSON, loads back equal
# --------------------------------------------------------------------------------------------

texts = st.text(st.characters(codec="utf-8"), max_size=12)
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(INT64_MIN, INT64_MAX)
    | st.floats(allow_nan=False, allow_infinity=False).filter(
        lambda x: not (x == 0 and math.copysign(1.0, x) < 0)
    )
    | texts
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
explicit_ids = st.text(min_size=1, max_size=8).filter(lambda s: not GENERATED_ID.match(s))
outcomes = st.sampled_from(sorted(OUTCOMES))
expects = st.dictionaries(st.sampled_from(["*", "default", "strict", "ci"]), outcomes, max_size=3)


@st.composite
def scenario_calls(draw: st.DrawFn, used_ids: set[str]) -> ScenarioCall:
    form = draw(st.sampled_from(["args", "args_raw", "none"]))
    call_id = draw(st.none() | explicit_ids)
    if call_id in used_ids:
        call_id = None
    if call_id is not None:
        used_ids.add(call_id)
    return ScenarioCall(
        tool=draw(texts.filter(bool)),
        args=draw(st.dictionaries(texts, json_values, max_size=4)) if form == "args" else None,
        args_raw=draw(texts) if form == "args_raw" else None,
        id=call_id,
        sandbox_permissions=draw(st.none() | texts),
        justification=draw(st.none() | texts),
        expect=draw(expects),
    )


@st.composite
def scenario_turns(draw: st.DrawFn, used_ids: set[str]) -> ScenarioTurn:
    delays = st.integers(0, 10_000)
    steps = [
        ScenarioStep(
            text=draw(texts),
            calls=tuple(draw(st.lists(scenario_calls(used_ids), min_size=1, max_size=3))),
            delay_ms=draw(delays),
        )
        for _ in range(draw(st.integers(0, 3)))
    ]
    closing = draw(st.sampled_from(["none", "text", "error"]))
    if closing == "text":
        steps.append(ScenarioStep(text=draw(texts), delay_ms=draw(delays)))
    elif closing == "error":
        steps.append(ScenarioStep(error=draw(texts), delay_ms=draw(delays)))
    final = draw(texts) if closing == "none" else ""
    return ScenarioTurn(user=draw(texts), steps=tuple(steps), final=final)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    used_ids: set[str] = set()
    paths = st.from_regex(r"[a-z]{1,5}(/[a-z.]{1,5}){0,2}", fullmatch=True).filter(
        lambda p: ".." not in p.split("/")
    )
    return Scenario(
        name=draw(texts),
        description=draw(texts),
        workspace=draw(st.dictionaries(paths, texts, max_size=3)),
        turns=tuple(draw(st.lists(scenario_turns(used_ids), min_size=1, max_size=3))),
    )


@settings(max_examples=150, deadline=None)
@given(scenario=scenarios())
def test_generated_scenarios_round_trip_through_json(
    tmp_path_factory: pytest.TempPathFactory, scenario: Scenario
) -> None:
    path = write_json(
        tmp_path_factory.mktemp("roundtrip") / "generated.json", scenario.to_document()
    )
    loaded = load_scenario(path)
    assert loaded == scenario
    # equality of frozen tables ignores key order; the arguments string must keep it
    assert [c.arguments for t in loaded.turns for s in t.steps for c in s.calls] == [
        c.arguments for t in scenario.turns for s in t.steps for c in s.calls
    ]
    assert loaded.to_document() == scenario.to_document()
