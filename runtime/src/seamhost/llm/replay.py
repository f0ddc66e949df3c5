"""What a replaying model gives ``seamhost run``: a script of the conversation it will replay.

A plugin that can replay a recorded conversation declares it by providing ``llm/replay``; the CLI
finds it by that capability, never by a plugin name. ``llm_replay(path)`` loads and validates the
file, arms the plugin's ``llm/adapter`` to replay it, and returns a :class:`Script`: the files the
workspace starts with, the user message of each turn, and the outcome each scripted call is
expected to have under a profile (``seamhost run --check``). The format of the file is the
plugin's own (model-scripted documents its scenario format in its ``scenario`` module).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import NamedTuple, Protocol


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
