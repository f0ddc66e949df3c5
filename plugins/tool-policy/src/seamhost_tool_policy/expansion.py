"""What word expansion may rewrite in a word the lexer (:mod:`.shellwords`) has read.

The lexer reads a word as (character, kind) pairs, the kind being ``"u"`` (unquoted), ``"q"``
(quoted) or ``"x"`` (:data:`~.marks.UNKNOWN`, already run-time text). Only unquoted characters
can start a tilde, brace or file-name expansion, and where an assignment's value starts decides
where a tilde counts, so these functions read the kinds rather than the finished text. They are
pure: the lexer's reading state has no part in them.

What the environment may pin is marked rather than made unknown (:mod:`.marks`): a tilde prefix
(``~``, ``~+``, ``~-``, ``~name``) and a file-name pattern, whose stretch stays within one path
segment. :func:`plain` makes every mark unknown, for a reader without an environment.
"""

from __future__ import annotations

import re

from seamhost_tool_policy.marks import (
    GLOB,
    MARK,
    SYMBOLS,
    TILDE,
    UNKNOWN,
    USER_END,
    USER_TILDE,
    VARIABLES,
    merge_unknowns,
)

ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
"""The ``NAME=``, ``NAME+=`` or ``NAME[subscript]=`` that starts an assignment word."""


def is_assignment(chars: list[tuple[str, str]]) -> bool:
    """Whether the word starts with an unquoted ``NAME=`` (quoting any of it makes an argument)."""
    head = ""
    for char, kind in chars:
        if kind != "u":
            break
        head += char
        if char == "=":
            break
    return ASSIGNMENT.fullmatch(head) is not None


_LOGIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\$?")
"""A name ``~name`` may look up (the portable login names, and Samba's trailing ``$``)."""

_TILDES = {"": TILDE, "+": VARIABLES["PWD"][0], "-": VARIABLES["OLDPWD"][0]}


def _replace(chars: list[tuple[str, str]], start: int, end: int, mark: str = UNKNOWN) -> None:
    chars[start:end] = [(mark, "x")]


def _tilde(prefix: str) -> list[tuple[str, str]]:
    """What the tilde prefix ``~prefix`` is marked as: a tilde, a user's home, or unknown
    (``~N``, ``~+N``: the directory stack)."""
    if prefix in _TILDES:
        return [(_TILDES[prefix], "x")]
    if _LOGIN.fullmatch(prefix):
        return [(USER_TILDE, "x"), *((c, "x") for c in prefix), (USER_END, "x")]
    return [(UNKNOWN, "x")]


def unforged(chars: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The word's characters with every mark the call wrote itself read as unknown text."""
    return [(UNKNOWN, "x") if c in SYMBOLS and k != "x" else (c, k) for c, k in chars]


def plain(text: str) -> str:
    """`text` with every mark made :data:`UNKNOWN` (neighbouring ones read as one)."""
    if MARK.search(text) is None:
        return text
    return merge_unknowns(MARK.sub(UNKNOWN, text))


def _closing(chars: list[tuple[str, str]], start: int, opener: str, closer: str) -> int:
    """The index of the unquoted `closer` matching the unquoted `opener` at `start`, or -1."""
    depth = 0
    for index in range(start, len(chars)):
        char, kind = chars[index]
        if kind != "u":
            continue
        if char == opener:
            depth += 1
        elif char == closer:
            depth -= 1
            if depth == 0:
                return index
    return -1


def expand_patterns(chars: list[tuple[str, str]], assignment: bool) -> list[tuple[str, str]]:
    """Mark what word expansion may rewrite: tildes, braces, file-name patterns."""
    chars = list(chars)
    starts = [0]
    if assignment:
        starts.append(next(i for i, (c, k) in enumerate(chars) if c == "=" and k == "u") + 1)
    for start in reversed(starts):
        if start < len(chars) and chars[start] == ("~", "u"):
            end = start
            while end < len(chars) and chars[end] != ("/", "u"):  # the first unquoted /
                end += 1
            if all(kind == "u" for _, kind in chars[start:end]):
                chars[start:end] = _tilde("".join(c for c, _ in chars[start + 1 : end]))
    # In NAME=value only the value is scanned. Bash expands no pattern in an assignment, but
    # the same word after a command name (make CFLAGS=*) is an argument, where it does: marking
    # it either way errs on the safe side.
    index = starts[-1]
    while index < len(chars):
        char, kind = chars[index]
        if kind == "u" and char == "{":
            end = _closing(chars, index, "{", "}")
            inner = "".join(c if k == "u" else "\0" for c, k in chars[index + 1 : max(end, 0)])
            if end > 0 and ("," in inner or ".." in inner):
                _replace(chars, index, end + 1)
        elif kind == "u" and char in "*?":
            _replace(chars, index, index + 1, GLOB)
        elif kind == "u" and char == "[":
            end = next((j for j in range(index + 2, len(chars)) if chars[j] == ("]", "u")), -1)
            if end > 0:
                _replace(chars, index, end + 1, GLOB)
        index += 1
    # Neighbouring unknown stretches read as one: an UNKNOWN already stands for any text, and a
    # GLOB for any within a segment.
    merged: list[tuple[str, str]] = []
    for char, kind in chars:
        if merged and char in (UNKNOWN, GLOB) and merged[-1][0] in (UNKNOWN, GLOB):
            merged[-1] = (GLOB if char == merged[-1][0] == GLOB else UNKNOWN, "x")
        else:
            merged.append((char, kind))
    return merged
