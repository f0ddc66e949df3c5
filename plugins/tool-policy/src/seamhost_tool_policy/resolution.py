"""The marks of a word (:mod:`.marks`) replaced by what the shell will make of them.

The analyser (:mod:`.analyser`) calls :func:`resolve_word` on every word, redirection target and
here-string before anything else reads it, passing a :class:`Pins`: the call's environment and
which of its variables still hold their values at that command. A pinned expansion becomes its
value, as quoted text; a bare (unquoted) one only when bash would keep it one word as it is
(not empty, no blank to split at, no pattern to glob); every other mark becomes
:data:`~.marks.UNKNOWN`.

It also says whether the word is *tame*: each unknown stretch left in it is a file-name
pattern's, which stays within one path segment. Any other unknown (a variable, a substitution)
may hold ``/`` and ``..`` and so lead anywhere, which is how :mod:`.placement` reads it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import attrs

from seamhost_tool_policy.environment import ShellEnvironment, user_home
from seamhost_tool_policy.marks import (
    GLOB,
    MARK,
    SYMBOLS,
    TILDE,
    UNKNOWN,
    VARIABLES,
    merge_unknowns,
)

_MARKS = {
    mark: (name, bare)
    for name, marks in VARIABLES.items()
    for mark, bare in zip(marks, (False, True), strict=True)
}
"""Each variable's mark: its name and whether it is bare (see :data:`.marks.VARIABLES`)."""

_SPLIT_OR_GLOBBED = re.compile(r"[ \t\n*?\[]")


@attrs.frozen
class Pins:
    """What the analyser knows at a command: `variable` gives the environment when the named
    variable holds its environment value there (and records that it was read), else None."""

    environment: ShellEnvironment | None
    variable: Callable[[str], ShellEnvironment | None]


def _value(mark: str, user: str | None, pins: Pins) -> str | None:
    """What one mark becomes; None: unknown."""
    if user is not None:
        if pins.environment is None:
            return None
        home = user_home(user)
        return f"~{user}" if home is None else home
    if mark == TILDE:
        environment = pins.variable("HOME")
        return None if environment is None else environment.tilde
    if mark == GLOB:
        return None
    name, bare = _MARKS[mark]
    environment = pins.variable(name)
    if environment is None:
        return None
    value = environment.value(name)
    if bare and (pins.variable("IFS") is None or not value or _SPLIT_OR_GLOBBED.search(value)):
        return None
    return value


def resolve_word(word: str, pins: Pins) -> tuple[str, bool]:
    """`word` with its marks replaced, and whether it is tame (see the module docstring)."""
    if MARK.search(word) is None:
        return word, UNKNOWN not in word
    pieces: list[str] = []
    tame = UNKNOWN not in word
    end = 0
    for found in MARK.finditer(word):
        pieces.append(word[end : found.start()])
        end = found.end()
        value = _value(found.group()[0], found.group(1), pins)
        if value is not None and not any(c in value for c in (*SYMBOLS, UNKNOWN)):
            pieces.append(value)
        else:
            pieces.append(UNKNOWN)
            tame = tame and found.group() == GLOB
    pieces.append(word[end:])
    return merge_unknowns("".join(pieces)), tame
