"""What a handler sees of the walk it serves: the :class:`Walk` protocol and the ``Handler`` type.

The :class:`~.analyser.Analyser` walks a call's commands and hands each to the handler of its
program (:mod:`.handlers`), which reads the program's words and calls back into the walk for
the commands that program runs. The analyser imports the handlers to dispatch to them, so they
meet it through this protocol, which names only what they use, and import nothing above them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import contextlib

    from seamhost_tool_policy.environment import ShellEnvironment
    from seamhost_tool_policy.options import Parsed


class Walk(Protocol):
    """The walk a handler reads for: where it records what it finds and follows what runs."""

    unsure: list[str]  # why the call is unsure, each reason once found
    renames: bool  # the call may set variables it does not name

    def argv(self, words: tuple[str, ...], depth: int, stdin: tuple[str, ...] = ()) -> None:
        """Follow the command `words`, fed the here-documents and here-strings `stdin`."""

    def script(self, text: str, depth: int) -> None:
        """Follow the shell code `text`, run `depth` wrappers deep."""

    def interactive(self, program: str, depth: int, stdin: tuple[str, ...]) -> None:
        """A shell that reads its commands from its input: what it is fed, if the line shows it."""

    def wrapped(
        self, words: tuple[str, ...], parsed: Parsed, depth: int, tail: tuple[str, ...] = ()
    ) -> bool:
        """Follow a wrapper whose options were not understood; False when they were."""

    def elsewhere(
        self, *, moved: bool = False, rerooted: bool = False
    ) -> contextlib.AbstractContextManager[None]:
        """Read the commands of the block as run in another directory and/or root."""

    def assignment(self, word: str) -> None:
        """A ``NAME=value`` word the command is given: unsure when the shell runs its value."""

    def opaque(self, why: str) -> None:
        """Record a command nobody can know, for `why`: every matcher may match it."""

    def change_directory(self, target: str | None) -> None:
        """A ``cd`` to `target` (None: somewhere only the run knows) in the call."""

    def variable(self, name: str) -> ShellEnvironment | None:
        """The environment, when the variable `name` holds its value there (None: unknown)."""


Handler = Callable[[Walk, tuple[str, ...], int, tuple[str, ...]], None]
"""Reads a program's words (its name without directory first) for the commands it runs."""
