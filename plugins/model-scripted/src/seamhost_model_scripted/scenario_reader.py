"""Reading a scenario file: parsing TOML or JSON, and validating it into a :class:`Scenario`.

The format is specified in :mod:`seamhost_model_scripted.scenario`, which holds the value classes
built here.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import attrs

from seamhost import CALL_DECISIONS, SESSION_OUTCOMES, jsonvalue
from seamhost.errors import ConfigError, ErrorCode, join_key
from seamhost.input_limits import SCENARIO_BYTES, parse_json, parse_toml, read_capped
from seamhost_model_scripted import scenario as spec
from seamhost_model_scripted.scenario import (
    CallCheck,
    RunExpect,
    Scenario,
    ScenarioCall,
    ScenarioStep,
    ScenarioTurn,
)

if TYPE_CHECKING:
    from collections.abc import Mapping


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate the scenario at `path` (``.toml`` or ``.json``).

    Raises :class:`~seamhost.errors.ConfigError` naming the file and the key path of the first
    problem.
    """
    path = Path(path)
    label = str(path)
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise ConfigError(label, "", "a scenario is a .toml or a .json file")
    data = read_capped(path, SCENARIO_BYTES, "scenario")
    doc = parse_toml(data, label) if suffix == ".toml" else parse_json(data, label)
    return _Reader(label).scenario(doc, default_name=path.stem)


Key = tuple[str | int, ...]


class _Reader:
    """Validates a parsed document, raising `ConfigError` for this file at the offending key."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.ids: dict[str, Key] = {}

    def fail(self, key: Key, problem: str) -> ConfigError:
        return ConfigError(self.label, join_key(key), problem)

    def table(self, value: object, key: Key, known: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, "expected a table")
        for name in value:
            if name not in known:
                raise self.fail((*key, name), f"unknown key; expected one of {', '.join(known)}")
        return value

    def tables(self, value: object, key: Key) -> list[object]:
        if not isinstance(value, list):
            raise self.fail(key, "expected an array of tables")
        return value

    def string(self, table: Mapping[str, Any], name: str, key: Key, default: str = "") -> str:
        value = table.get(name, default)
        if type(value) is not str:
            raise self.fail((*key, name), f"expected a string, got {_kind(value)}")
        return value

    def optional_string(self, table: Mapping[str, Any], name: str, key: Key) -> str | None:
        return self.string(table, name, key) if name in table else None

    # -- the document, top down ---------------------------------------------------------------

    def scenario(self, doc: object, *, default_name: str) -> Scenario:
        top = self.table(doc, (), ("scenario", "turn", "expect"))
        header = self.table(top.get("scenario", {}), ("scenario",), _HEADER_KEYS)
        if "turn" not in top:
            raise self.fail(("turn",), "a scenario needs at least one [[turn]]")
        turns = self.tables(top["turn"], ("turn",))
        if not turns:
            raise self.fail(("turn",), "a scenario needs at least one [[turn]]")
        scenario = Scenario(
            name=self.string(header, "name", ("scenario",), default_name),
            description=self.string(header, "description", ("scenario",)),
            workspace=self.workspace(header.get("workspace", {}), ("scenario", "workspace")),
            turns=tuple(self.turn(t, ("turn", i)) for i, t in enumerate(turns)),
            source=self.label,
        )
        if "expect" not in top:
            return scenario
        calls = [call_id for call_id, _ in scenario.numbered_calls()]
        expect = self.run_expect(top["expect"], ("expect",), calls, nested=True)
        return attrs.evolve(scenario, expect=expect)

    # -- [expect]: how a whole run should end (seamhost matrix) -------------------------------

    def run_expect(self, value: object, key: Key, calls: list[str], *, nested: bool) -> RunExpect:
        table = self.table(value, key, _EXPECT_KEYS if nested else _EXPECT_KEYS[:2])
        outcome = self.optional_string(table, "outcome", key)
        if outcome is not None and outcome not in SESSION_OUTCOMES:
            raise self.fail(
                (*key, "outcome"), f"expected one of {', '.join(SESSION_OUTCOMES)}, got {outcome!r}"
            )
        checks = self.table_of_calls(table.get("calls", {}), (*key, "calls"), calls)
        profiles = table.get("profile", {})  # any key names a profile
        if not isinstance(profiles, dict):
            raise self.fail((*key, "profile"), "expected a table of profile name = expectations")
        return RunExpect(
            outcome=outcome,
            calls=tuple(
                (name, self.call_check(check, (*key, "calls", name)))
                for name, check in checks.items()
            ),
            profiles=tuple(
                (name, self.run_expect(changes, (*key, "profile", name), calls, nested=False))
                for name, changes in profiles.items()
            ),
        )

    def table_of_calls(self, value: object, key: Key, calls: list[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, "expected a table of call id (or position) = expectation")
        for name in value:
            if name not in calls and not (name.isdigit() and 1 <= int(name) <= len(calls)):
                raise self.fail(
                    (*key, name),
                    f"no such call: name one by its id ({', '.join(calls)}) or by its position "
                    f"(1 to {len(calls)})",
                )
        return value

    def call_check(self, value: object, key: Key) -> CallCheck:
        if isinstance(value, str):
            if value == spec.NOT_RUN:
                return CallCheck(ran=False)
            return CallCheck(code=self.code(value, key))
        table = self.table(value, key, ("code", "decision", "ran"))
        if not table:
            raise self.fail(key, "expected at least one of code, decision, ran")
        decision = self.optional_string(table, "decision", key)
        if decision is not None and decision not in CALL_DECISIONS:
            raise self.fail(
                (*key, "decision"), f"expected one of {', '.join(CALL_DECISIONS)}, got {decision!r}"
            )
        ran = table.get("ran")
        if ran is not None and type(ran) is not bool:
            raise self.fail((*key, "ran"), f"expected true or false, got {_kind(ran)}")
        code = self.code(table["code"], (*key, "code")) if "code" in table else None
        return CallCheck(code=code, decision=decision, ran=ran)

    def code(self, value: object, key: Key) -> str:
        if type(value) is not str or value not in spec.OUTCOMES:
            raise self.fail(
                key,
                f'expected "ok", "{spec.NOT_RUN}" or an error code ({", ".join(ErrorCode)}), '
                f"got {value!r}",
            )
        return value

    def workspace(self, value: object, key: Key) -> dict[str, str]:
        if not isinstance(value, dict):
            raise self.fail(key, "expected a table of relative path = file content")
        for name, content in value.items():
            path = PurePosixPath(name)
            if not path.parts or path.is_absolute() or ".." in path.parts:
                raise self.fail(
                    (*key, name), "expected a relative path inside the workspace (no '..')"
                )
            if type(content) is not str:
                raise self.fail(
                    (*key, name), f"expected the file content as a string, got {_kind(content)}"
                )
        return value

    def turn(self, value: object, key: Key) -> ScenarioTurn:
        table = self.table(value, key, _TURN_KEYS)
        if "user" not in table:
            raise self.fail((*key, "user"), "required: the user message that opens the turn")
        user = self.string(table, "user", key)
        raw_steps = self.tables(table.get("step", []), (*key, "step"))
        steps = tuple(self.step(s, (*key, "step", i)) for i, s in enumerate(raw_steps))
        for index, step in enumerate(steps[:-1]):
            if step.ends_turn:
                raise self.fail(
                    (*key, "step", index),
                    "this step ends the turn (it has no calls, or an error), so the steps after "
                    "it would never be asked for; give it a call or move it last",
                )
        if "final" in table and steps and steps[-1].ends_turn:
            raise self.fail(
                (*key, "final"),
                "the last step already ends the turn (no calls, or an error), so `final` would "
                "never be asked for; remove it, or give that step a call",
            )
        return ScenarioTurn(
            user=user,
            steps=steps,
            final=self.string(table, "final", key),
        )

    def step(self, value: object, key: Key) -> ScenarioStep:
        table = self.table(value, key, _STEP_KEYS)
        delay = table.get("delay_ms", 0)
        if type(delay) is not int or delay < 0:
            raise self.fail((*key, "delay_ms"), f"expected milliseconds >= 0, got {delay!r}")
        error = self.optional_string(table, "error", key)
        raw_calls = self.tables(table.get("call", []), (*key, "call"))
        if error is not None and (raw_calls or "text" in table):
            raise self.fail(
                (*key, "error"), "an error step streams nothing; remove its `text` and `call`"
            )
        return ScenarioStep(
            text=self.string(table, "text", key),
            calls=tuple(self.call(c, (*key, "call", i)) for i, c in enumerate(raw_calls)),
            error=error,
            delay_ms=delay,
        )

    def call(self, value: object, key: Key) -> ScenarioCall:
        table = self.table(value, key, _CALL_KEYS)
        tool = self.string(table, "tool", key)
        if not tool:
            raise self.fail((*key, "tool"), "required: the name of the tool to call")
        if "args" in table and "args_raw" in table:
            raise self.fail((*key, "args_raw"), "give `args` or `args_raw`, not both")
        args = table.get("args")
        if "args" in table:
            if not isinstance(args, dict):
                raise self.fail((*key, "args"), f"expected a table, got {_kind(args)}")
            lossy = _lossy((*key, "args"), args)
            if lossy is not None:
                raise self.fail(lossy[0], f"not a JSON value: {lossy[1]}")
        call_id = self.optional_string(table, "id", key)
        if call_id is not None:
            self.check_id(call_id, (*key, "id"))
        return ScenarioCall(
            tool=tool,
            args=args,
            args_raw=self.optional_string(table, "args_raw", key),
            id=call_id,
            sandbox_permissions=self.optional_string(table, "sandbox_permissions", key),
            justification=self.optional_string(table, "justification", key),
            expect=self.expect(table.get("expect", {}), (*key, "expect")),
        )

    def check_id(self, call_id: str, key: Key) -> None:
        if not call_id:
            raise self.fail(key, "expected a non-empty call id")
        if spec.GENERATED_ID.match(call_id):
            raise self.fail(
                key, f"{call_id!r} has the form of a generated id (call-T-S-N); choose another"
            )
        if call_id in self.ids:
            raise self.fail(
                key, f"call id {call_id!r} is already used at {join_key(self.ids[call_id])}"
            )
        self.ids[call_id] = key[:-1]

    def expect(self, value: object, key: Key) -> dict[str, str]:
        if not isinstance(value, dict):
            raise self.fail(key, 'expected a table of profile name = outcome ("*" for any other)')
        for profile, outcome in value.items():
            if not profile:
                raise self.fail(key, 'expected profile names (or "*"), got an empty key')
            if type(outcome) is not str or outcome not in spec.OUTCOMES:
                raise self.fail(
                    (*key, profile),
                    f'expected "ok" or an error code ({", ".join(ErrorCode)}), got {outcome!r}',
                )
        return value


_HEADER_KEYS = ("name", "description", "workspace")
_EXPECT_KEYS = ("outcome", "calls", "profile")
_TURN_KEYS = ("user", "final", "step")
_STEP_KEYS = ("text", "call", "error", "delay_ms")
_CALL_KEYS = (
    "tool",
    "args",
    "args_raw",
    "id",
    "sandbox_permissions",
    "justification",
    "expect",
)


def _kind(value: object) -> str:
    return f"{type(value).__name__} {value!r}" if value is not None else "null"


def _lossy(key: Key, value: object) -> tuple[Key, str] | None:
    """Where in `value` (parsed TOML or JSON) a value is not lossless JSON, and why."""
    items: list[tuple[str | int, object]]
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        try:
            jsonvalue.check_lossless(value)
        except jsonvalue.LossyValue as exc:
            return key, exc.problem
        return None
    for name, item in items:
        found = _lossy((*key, name), item)
        if found is not None:
            return found
    return None


__all__ = ["Key", "load_scenario"]
