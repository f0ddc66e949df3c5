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

Expectations of a whole run (``seamhost matrix``, and ``pytest --seamhost-matrix``): an optional
top-level ``[expect]`` table says how a fresh session running the scenario should end::

    [expect]
    outcome = "completed"                   # completed, parked or failed (the session's outcome)
    [expect.calls]                          # a call by its id, or by its position (1 = the first)
    write-report = "DENIED_BY_GUARD"        # its result: "ok" or an ErrorCode value
    2 = "not run"                           # its body never started (refused, or never proposed)
    3 = { decision = "ask", code = "APPROVAL_UNAVAILABLE" }   # or a table of decision, code, ran

    [expect.profile.default]                # what differs under one profile (by its name)
    outcome = "parked"
    calls = { write-report = "ok" }         # replaces that call's expectation only

``decision`` is ``allow`` (the body was dispatched without asking), ``ask`` (an approval was
asked) or ``deny`` (refused before the body started, nobody asked); ``ran`` is whether the body
started. A call's ``expect`` above still applies: its code counts for a profile unless
``[expect]`` gives that call a code of its own. A call named in ``[expect]`` must exist, so a
renamed call fails the matrix before it runs.

Every problem raises :class:`~seamhost.errors.ConfigError` naming the file and the key path
(``turn[2].step[1].call[0].args_raw: expected a string``; indexes count from 0), which the CLI
reports with exit code 2.

The value classes live here; :mod:`seamhost_model_scripted.scenario_reader` reads and validates a
file into them (:func:`~seamhost_model_scripted.scenario_reader.load_scenario`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import attrs

from seamhost import CallExpectation, CellExpectations, Expectation, jsonvalue
from seamhost.errors import ErrorCode
from seamhost.jsonvalue import FrozenDict, freeze

if TYPE_CHECKING:
    from collections.abc import Mapping

OK = "ok"
ANY_PROFILE = "*"
GENERATED_ID = re.compile(r"^call-\d+-\d+-\d+$")
OUTCOMES = frozenset({OK, *(code.value for code in ErrorCode)})
NOT_RUN = "not run"


def generated_call_id(turn: int, step: int, n: int) -> str:
    """The id of the `n`-th (1-based) call of a step that has no explicit ``id``."""
    return f"call-{turn}-{step}-{n}"


def _frozen_mapping(value: Mapping[str, Any]) -> FrozenDict:
    return freeze(dict(value))  # type: ignore[no-any-return]


def _frozen_args(value: Mapping[str, Any] | None) -> FrozenDict | None:
    return None if value is None else _frozen_mapping(value)


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
class CallCheck:
    """What ``[expect]`` says of one call; a field left ``None`` is not checked."""

    code: str | None = None  # "ok" or an ErrorCode value
    decision: str | None = None  # allow, deny or ask
    ran: bool | None = None  # whether the body started


@attrs.frozen
class RunExpect:
    """A scenario's ``[expect]`` table: the general expectations and each profile's changes."""

    outcome: str | None = None
    calls: tuple[tuple[str, CallCheck], ...] = ()  # call key (id or 1-based position) → check
    profiles: tuple[tuple[str, RunExpect], ...] = ()  # profile name → what differs under it

    def under(self, profile: str) -> tuple[str | None, list[dict[str, CallCheck]]]:
        """The outcome under `profile`, and the call checks in layers, the profile's last."""
        outcome, layers = self.outcome, [dict(self.calls)]
        for name, changes in self.profiles:
            if name == profile:
                outcome = changes.outcome if changes.outcome is not None else outcome
                layers.append(dict(changes.calls))
        return outcome, layers


@attrs.frozen
class Scenario:
    """A loaded, validated scenario. `source` (the file it came from) is not part of equality."""

    name: str
    turns: tuple[ScenarioTurn, ...]
    description: str = ""
    workspace: FrozenDict = attrs.field(factory=FrozenDict, converter=_frozen_mapping)
    source: str = attrs.field(default="", eq=False)
    expect: RunExpect = attrs.field(factory=RunExpect)

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

    def numbered_calls(self, first_turn: int = 1) -> Iterator[tuple[str, ScenarioCall]]:
        """Each call with its id, in the scenario's order, for turns numbered from `first_turn`."""
        for t, turn in enumerate(self.turns):
            for s, step in enumerate(turn.steps, start=1):
                for n, call in enumerate(step.calls, start=1):
                    yield call.call_id(first_turn + t, s, n), call

    def cell_expectations(self, profile: str) -> CellExpectations:
        """The outcome and each call's expectations of a fresh session run under `profile`.

        A call's code is its ``[expect]`` code under `profile`, else its own ``expect``'s.
        """
        outcome, layers = self.expect.under(profile)
        calls = []
        for position, (call_id, call) in enumerate(self.numbered_calls(), start=1):
            check = CallCheck()
            for checks in layers:  # a later layer replaces the call's check, by id or position
                check = checks.get(call_id) or checks.get(str(position)) or check
            code = check.code if check.code is not None else call.expected(profile)
            if code is not None or check.decision is not None or check.ran is not None:
                calls.append(CallExpectation(call_id, call.tool, code, check.decision, check.ran))
        return CellExpectations(outcome, tuple(calls))

    def to_document(self) -> dict[str, Any]:
        """The JSON document this scenario loads back from, with defaults left out."""
        header: dict[str, Any] = {"name": self.name}
        if self.description:
            header["description"] = self.description
        if self.workspace:
            header["workspace"] = dict(self.workspace)
        doc = {"scenario": header, "turn": [_turn_document(t) for t in self.turns]}
        if self.expect != RunExpect():
            doc["expect"] = _expect_document(self.expect)
        return doc


def _expect_document(expect: RunExpect) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if expect.outcome is not None:
        out["outcome"] = expect.outcome
    if expect.calls:
        out["calls"] = {key: _check_document(check) for key, check in expect.calls}
    if expect.profiles:
        out["profile"] = {name: _expect_document(changes) for name, changes in expect.profiles}
    return out


def _check_document(check: CallCheck) -> dict[str, Any]:
    fields = {"code": check.code, "decision": check.decision, "ran": check.ran}
    return {key: value for key, value in fields.items() if value is not None}


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


__all__ = [
    "ANY_PROFILE",
    "GENERATED_ID",
    "NOT_RUN",
    "OK",
    "OUTCOMES",
    "CallCheck",
    "RunExpect",
    "Scenario",
    "ScenarioCall",
    "ScenarioStep",
    "ScenarioTurn",
    "generated_call_id",
]
