"""Scenarios: the script ``seamhost run`` drives a session with, replayed by the scripted model.

A scenario is a TOML file (``.toml``), or a JSON file (``.json``) holding the same structure::

    [scenario]                              # optional header
    name = "deploy"                         # default: the file name without its extension
    description = "Restart a service after reading its config."
    workspace = { "deploy.toml" = "service = 'orders'\\n" }   # files to create before the run

    [[turn]]                                # one or more
    user = "restart the orders service"     # required: the user message that opens the turn
    final = "Done."                         # text of the message that ends the turn; default ""

    [[turn.step]]                           # one assistant message, in order
    text = "Reading the config first."      # default ""
    delay_ms = 0                            # sleep this long before answering (crash tests)

    [[turn.step.call]]                      # the calls the message proposes, in order
    tool = "read_file"                      # required, non-empty
    args = { path = "deploy.toml" }         # a table: sent as compact JSON, keys in written order

    [[turn.step.call]]
    tool = "shell"
    args_raw = "{not json"                  # or the raw arguments string, sent verbatim
    id = "c-restart"                        # default: call-<turn>-<step>-<n>
    sandbox_permissions = "danger-full-access"      # an escalation request and its reason,
    justification = "restarts a system service"     # passed on as written
    expect = { "*" = "ok", strict = "SANDBOX_DENIED" }

How the scripted model answers. Within a turn, the model's request for step *k* (1-based) is
answered by ``turn.step[k-1]``: its ``text``, then its calls. A request past the last step is
answered by the turn's ``final`` text alone, which has no calls and so ends the turn. A step
``error = "..."`` makes the model fail instead (nothing is streamed, the turn ends in error).
Since a step without calls and an error step both end the turn, only the last step of a turn may
be one of them, and such a turn has no ``final`` (it would never be asked for).

Rules:

* Every key is known: anything else is refused (a misspelt key would silently do nothing).
* ``args`` and ``args_raw`` are exclusive; neither means ``{}``. ``args`` must be lossless JSON
  (no TOML dates, no NaN, integers within 64 bits). ``args_raw`` is kept verbatim, so invalid
  arguments can be scripted on purpose.
* ``sandbox_permissions`` and ``justification`` are strings carried on the proposed call
  unchanged; whether they form a valid escalation is the kernel's to decide, so a scenario can
  script an invalid one.
* Call ids: an explicit ``id`` is used verbatim and must be unique in the scenario. Without one,
  the call gets ``call-<turn>-<step>-<n>`` from the session's turn and step numbers of the request
  and the call's 1-based position in the step; in a session that starts with the scenario those
  are the scripted numbers. Explicit ids of that form are refused so the two never collide.
* ``expect`` maps a profile name, or ``"*"`` for any other profile, to ``"ok"`` or an error code
  of :class:`~seamhost.errors.ErrorCode`: the outcome ``seamhost run`` should see for the call.
* ``workspace`` maps relative paths (no ``..``) to file contents.

Every problem raises :class:`~seamhost.errors.ConfigError` naming the file and the key path
(``turn[2].step[1].call[0].args_raw: expected a string``; indexes count from 0), which the CLI
reports with exit code 2.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import attrs
import orjson

from seamhost import Expectation, jsonvalue
from seamhost.errors import ConfigError, ErrorCode, join_key
from seamhost.jsonvalue import FrozenDict, freeze

if TYPE_CHECKING:
    from collections.abc import Mapping

OK = "ok"
ANY_PROFILE = "*"
GENERATED_ID = re.compile(r"^call-\d+-\d+-\d+$")
OUTCOMES = frozenset({OK, *(code.value for code in ErrorCode)})


def generated_call_id(turn: int, step: int, n: int) -> str:
    """The id of the `n`-th (1-based) call of a step that has no explicit ``id``."""
    return f"call-{turn}-{step}-{n}"


def _frozen_mapping(value: Mapping[str, Any]) -> FrozenDict:
    return freeze(dict(value))  # type: ignore[no-any-return]


def _frozen_args(value: Mapping[str, Any] | None) -> FrozenDict | None:
    return None if value is None else _frozen_mapping(value)


# --------------------------------------------------------------------------------------------
# the model
# --------------------------------------------------------------------------------------------


@attrs.frozen
class ScenarioCall:
    """One tool call an assistant message proposes."""

    tool: str
    args: FrozenDict | None = attrs.field(default=None, converter=_frozen_args)
    args_raw: str | None = None
    id: str | None = None
    sandbox_permissions: str | None = None
    justification: str | None = None
    expect: FrozenDict = attrs.field(factory=FrozenDict, converter=_frozen_mapping)

    @property
    def arguments(self) -> str:
        """The raw arguments string the model sends: `args_raw`, or `args` as compact JSON."""
        if self.args_raw is not None:
            return self.args_raw
        return jsonvalue.dumps(self.args if self.args is not None else {}).decode()

    def call_id(self, turn: int, step: int, n: int) -> str:
        """This call's id when it is the `n`-th call of session turn `turn`, step `step`."""
        return self.id if self.id is not None else generated_call_id(turn, step, n)

    def expected(self, profile_name: str) -> str | None:
        """The expected outcome under `profile_name` (``"ok"`` or an error code), if any."""
        outcome: str | None = self.expect.get(profile_name, self.expect.get(ANY_PROFILE))
        return outcome


@attrs.frozen
class ScenarioStep:
    """One assistant message: text and calls, or a model failure, after an optional delay."""

    text: str = ""
    calls: tuple[ScenarioCall, ...] = ()
    error: str | None = None
    delay_ms: int = 0

    @property
    def ends_turn(self) -> bool:
        """True when the loop stops after this step: it proposes no calls, or it fails."""
        return self.error is not None or not self.calls


@attrs.frozen
class ScenarioTurn:
    """A user message and the assistant messages that answer it."""

    user: str
    steps: tuple[ScenarioStep, ...] = ()
    final: str = ""


@attrs.frozen
class Scenario:
    """A loaded, validated scenario. `source` (the file it came from) is not part of equality."""

    name: str
    turns: tuple[ScenarioTurn, ...]
    description: str = ""
    workspace: FrozenDict = attrs.field(factory=FrozenDict, converter=_frozen_mapping)
    source: str = attrs.field(default="", eq=False)

    @property
    def user_messages(self) -> tuple[str, ...]:
        """The user message of each turn (what ``seamhost run`` sends; ``llm/replay``'s script)."""
        return tuple(turn.user for turn in self.turns)

    def expectations(self, profile: str, first_turn: int) -> Iterator[Expectation]:
        """The outcome each call expects under `profile`, for turns numbered from `first_turn`."""
        for t, turn in enumerate(self.turns):
            for s, step in enumerate(turn.steps, start=1):
                for n, call in enumerate(step.calls, start=1):
                    expected = call.expected(profile)
                    if expected is not None:
                        yield Expectation(call.call_id(first_turn + t, s, n), call.tool, expected)

    def to_document(self) -> dict[str, Any]:
        """The JSON document this scenario loads back from, with defaults left out."""
        header: dict[str, Any] = {"name": self.name}
        if self.description:
            header["description"] = self.description
        if self.workspace:
            header["workspace"] = dict(self.workspace)
        return {"scenario": header, "turn": [_turn_document(t) for t in self.turns]}


def _turn_document(turn: ScenarioTurn) -> dict[str, Any]:
    out: dict[str, Any] = {"user": turn.user}
    if turn.final:
        out["final"] = turn.final
    if turn.steps:
        out["step"] = [_step_document(s) for s in turn.steps]
    return out


def _step_document(step: ScenarioStep) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if step.text:
        out["text"] = step.text
    if step.error is not None:
        out["error"] = step.error
    if step.delay_ms:
        out["delay_ms"] = step.delay_ms
    if step.calls:
        out["call"] = [_call_document(c) for c in step.calls]
    return out


def _call_document(call: ScenarioCall) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": call.tool}
    optional = {
        "args": jsonvalue.thaw(call.args) if call.args is not None else None,
        "args_raw": call.args_raw,
        "id": call.id,
        "sandbox_permissions": call.sandbox_permissions,
        "justification": call.justification,
        "expect": dict(call.expect) or None,
    }
    out.update((key, value) for key, value in optional.items() if value is not None)
    return out


# --------------------------------------------------------------------------------------------
# loading and validation
# --------------------------------------------------------------------------------------------


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
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(label, "", f"cannot read the scenario: {exc.strerror}") from None
    try:
        doc = tomllib.loads(data.decode()) if suffix == ".toml" else orjson.loads(data)
    except (tomllib.TOMLDecodeError, orjson.JSONDecodeError, UnicodeDecodeError) as exc:
        kind = "TOML" if suffix == ".toml" else "JSON"
        raise ConfigError(label, "", f"not valid {kind}: {exc}") from None
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
        top = self.table(doc, (), ("scenario", "turn"))
        header = self.table(top.get("scenario", {}), ("scenario",), _HEADER_KEYS)
        if "turn" not in top:
            raise self.fail(("turn",), "a scenario needs at least one [[turn]]")
        turns = self.tables(top["turn"], ("turn",))
        if not turns:
            raise self.fail(("turn",), "a scenario needs at least one [[turn]]")
        return Scenario(
            name=self.string(header, "name", ("scenario",), default_name),
            description=self.string(header, "description", ("scenario",)),
            workspace=self.workspace(header.get("workspace", {}), ("scenario", "workspace")),
            turns=tuple(self.turn(t, ("turn", i)) for i, t in enumerate(turns)),
            source=self.label,
        )

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
        if GENERATED_ID.match(call_id):
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
            if type(outcome) is not str or outcome not in OUTCOMES:
                raise self.fail(
                    (*key, profile),
                    f'expected "ok" or an error code ({", ".join(ErrorCode)}), got {outcome!r}',
                )
        return value


_HEADER_KEYS = ("name", "description", "workspace")
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
