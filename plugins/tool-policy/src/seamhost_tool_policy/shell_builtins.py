"""The handlers of shell builtins that run or evaluate text, or move the directory.

``eval`` and ``trap`` run text as commands (split here too, so a floor still sees it),
``source`` a file the policy cannot read; ``alias`` and ``let`` are opaque; the declaring and
reading builtins (``declare`` ... ``read``, ``mapfile``, ``printf -v``, ``unset``) evaluate array
subscripts, integer values and callbacks as arithmetic, which may run commands. Each makes the
call unsure, saying why. ``cd``, ``pushd`` and ``popd`` only mark that relative paths after
them point elsewhere. Which builtin is read by which handler is :mod:`.handlers`'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost_tool_policy.marks import UNKNOWN

if TYPE_CHECKING:
    from seamhost_tool_policy.walk import Handler, Walk


def eval_text(an: Walk, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
    an.unsure.append("eval runs text as a command")
    an.script(" ".join(words[1:]), depth + 1)


def trap(an: Walk, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
    an.unsure.append("trap runs text as a command later")
    if len(words) > 2 and not words[1].startswith("-"):
        an.script(words[1], depth + 1)


def source(an: Walk, words: tuple[str, ...], depth: int, stdin: tuple[str, ...]) -> None:
    an.unsure.append(f"{words[0]} runs the commands of a file the policy cannot read")
    for body in stdin:  # source /dev/stdin <<< CODE
        an.script(body, depth + 1)


def directory(an: Walk, words: tuple[str, ...], _depth: int, _s: tuple[str, ...]) -> None:
    """``cd``, ``pushd``, ``popd``: relative paths after it are relative to somewhere else.

    A literal ``cd DIR`` (or ``pushd DIR``) adds DIR to where the later commands may run, and so
    does ``cd`` (HOME) where the environment pins HOME; any other form (``cd -``, whose OLDPWD
    the call's own ``cd`` makes unknown, ``popd``, options) adds a place only the run knows.
    """
    operands = words[1:]
    literal = words[0] != "popd" and len(operands) == 1 and not operands[0].startswith("-")
    target = operands[0] if literal else None
    if words[0] == "cd" and not operands:
        environment = an.variable("HOME")
        target = None if environment is None else environment.value("HOME") or None
    an.change_directory(target)


def opaque(why: str) -> Handler:
    """A builtin whose effect the analysis cannot follow: the call is unsure, for `why`."""

    def handle(an: Walk, _w: tuple[str, ...], _depth: int, _s: tuple[str, ...]) -> None:
        an.unsure.append(why)

    return handle


_SUBSCRIPT = "an array subscript (bash evaluates it as arithmetic, which may run commands)"


def _subscripted(name: str) -> bool:
    """True when a variable name may hold an array subscript (written or only known later)."""
    return "[" in name or UNKNOWN in name


def declaration(an: Walk, words: tuple[str, ...], _depth: int, _s: tuple[str, ...]) -> None:
    """``declare``, ``typeset``, ``local``, ``export``, ``readonly``: what they assign."""
    for word in words[1:]:
        if word.startswith(("-", "+")) and "n" in word:
            an.renames = True  # a name reference: setting it sets the variable it names
        if word.startswith("-") and "i" in word:
            an.unsure.append(f"{words[0]} {word}: integer variables evaluate values as arithmetic")
        elif not word.startswith(("-", "+")):
            an.assignment(word)
            if _subscripted(word.partition("=")[0]):
                an.unsure.append(_SUBSCRIPT)


# The options of read, mapfile/readarray and unset that take a value other than a name.
_VALUED = {"read": "dinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc", "unset": ""}


def variables(an: Walk, words: tuple[str, ...], _depth: int, _s: tuple[str, ...]) -> None:
    """``read``, ``mapfile``/``readarray``, ``unset``, ``printf -v``: the variables they name."""
    names: list[str] = []
    if words[0] == "printf":
        names.extend(words[words.index("-v") + 1 :][:1] if "-v" in words else ())
    else:
        if words[0] in ("mapfile", "readarray") and any(w.startswith("-C") for w in words[1:]):
            an.unsure.append(f"{words[0]} -C runs a callback")
        skip = False
        for word in words[1:]:
            if skip:
                skip = False
            elif word.startswith("-") and len(word) > 1:
                skip = word[-1] in _VALUED[words[0]]
            else:
                names.append(word)
    if any(_subscripted(name) for name in names):
        an.unsure.append(_SUBSCRIPT)
