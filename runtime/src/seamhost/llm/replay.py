"""What a replaying model gives ``seamhost run``: a script of the conversation it will replay.

A plugin that can replay a recorded conversation declares it by providing ``llm/replay``; the CLI
finds it by that capability, never by a plugin name. ``llm_replay(path)`` loads and validates the
file, arms the plugin's ``llm/adapter`` to replay it, and returns a :class:`Script`: the files the
workspace starts with, the user message of each turn, and the outcome each scripted call is
expected to have under a profile (``seamhost run --check``). The format of the file is the
plugin's own (model-scripted documents its scenario format in its ``scenario`` module).

A script may say more about how a run of it should end, for ``seamhost matrix`` and its pytest
form (:mod:`seamhost.matrix`): an :class:`ExpectingScript` also gives, per profile, the outcome
the session should have and, per call, its result code, its decision and whether its body ran
(:class:`CellExpectations`). A script that does not is held to its :meth:`Script.expectations`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import NamedTuple, Protocol, runtime_checkable


class Expectation(NamedTuple):
    """The outcome a scripted call should have: ``ok`` or an error code."""

    call_id: str  # the call's id
    tool: str  # the tool it calls
    outcome: str  # ok, or the ErrorCode value it should end with


class Script(Protocol):
    """A loaded conversation that the bundle's model will replay."""

    @property
    def workspace(self) -> Mapping[str, str]:
        """Files (path relative to the workspace → text) to create where they do not exist."""
        ...

    @property
    def user_messages(self) -> Sequence[str]:
        """The user message of each turn, in order."""
        ...

    def expectations(self, profile: str, first_turn: int) -> Iterator[Expectation]:
        """What each call should end with under `profile`, numbering turns from `first_turn`."""
        ...


# The words of a call's decision (seamhost.matrix.cells derives it from the session's log):
# allow, its body was dispatched without asking anyone; ask, an approval was asked; deny, it was
# refused before its body started without asking (guard, policy, arguments, budget, sandbox).
CALL_DECISIONS = ("allow", "deny", "ask")
# The outcomes a session can end with, in the words of `seamhost run --json`'s summary.
SESSION_OUTCOMES = ("completed", "parked", "failed")


class CallExpectation(NamedTuple):
    """What one call should come to; a field left ``None`` is not checked."""

    call_id: str  # the call's id in a session the script starts
    tool: str  # the tool it calls
    code: str | None = None  # "ok" or the ErrorCode value its result should have
    decision: str | None = None  # one of CALL_DECISIONS
    ran: bool | None = None  # whether its body started (False: "not run")


class CellExpectations(NamedTuple):
    """How a fresh session running the whole script under one profile should end."""

    outcome: str | None  # one of SESSION_OUTCOMES, or None: not checked
    calls: tuple[CallExpectation, ...]  # in the script's order


@runtime_checkable
class ExpectingScript(Script, Protocol):
    """A script that states a whole run's expectations, per profile."""

    def cell_expectations(self, profile: str) -> CellExpectations:
        """The session outcome and each call's expectations under `profile` (turns from 1)."""
        ...
