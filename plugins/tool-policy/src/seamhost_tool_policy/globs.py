"""Globs: how tool-policy rules match tool names, commands, arguments and paths.

Syntax (one glob matches the *whole* text):

========  ==================================================================================
``*``     any run of characters; in a text glob it crosses ``/`` and spaces, in a path glob it
          stays within one path segment
``**``    path globs only, and only as a whole segment: any number of segments, none included
          (``**/.env`` matches ``.env`` and ``a/b/.env``; ``src/**`` matches ``src`` and all
          under it)
``?``     one character (in a path glob, not ``/``)
``[...]`` one character of the set: ``[abc]``, ranges ``[a-z]``, negated ``[!abc]`` or
          ``[^abc]``; a ``]`` right after the opening bracket is part of the set
``\\c``   the character ``c`` itself (``\\*`` is a star)
========  ==================================================================================

Command globs (:meth:`Glob.command`) are text globs whose runs of blanks read as one space, so
``rm  -rf /*`` and ``rm -rf /*`` are the same rule; the commands they meet are words joined by
single spaces.

Text only known at run time. The shell splitter marks each stretch of a command that only the
shell will know (a variable, a file-name pattern, a command substitution) with
:data:`~seamhost_tool_policy.marks.UNKNOWN`. :meth:`Glob.match` answers over everything such
a stretch could become: :attr:`Match.MUST` when the glob matches whatever it becomes (each
unknown stretch lies wholly under a ``*``), :attr:`Match.MAY` when it matches some of them,
:attr:`Match.NO` when none.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from typing import NamedTuple

from seamhost.errors import SeamhostError
from seamhost_tool_policy.marks import UNKNOWN


class Match(enum.IntEnum):
    """How a glob meets a text that may hold unknown stretches."""

    NO = 0  # no text the unknown stretches could become matches
    MAY = 1  # some do, some do not
    MUST = 2  # every one does (always the answer for a fully known text that matches)


class GlobError(SeamhostError, ValueError):
    """A glob in a rule is malformed."""

    pattern: str
    problem: str

    def __str__(self) -> str:
        return f"{self.pattern!r} is not a valid glob: {self.problem}"


# --------------------------------------------------------------------------------------------
# tokens
# --------------------------------------------------------------------------------------------


class _Star:
    """``*``."""


class _Globstar:
    """``**`` as a whole path segment."""


class _One:
    """``?``."""


class _Set(NamedTuple):
    """``[...]``: single characters and inclusive ranges, maybe negated."""

    negated: bool
    ranges: tuple[tuple[str, str], ...]

    def accepts(self, char: str) -> bool:
        inside = any(low <= char <= high for low, high in self.ranges)
        return inside != self.negated

    def regex(self, *, path: bool) -> str:
        body = "".join(
            re.escape(low) if low == high else f"{re.escape(low)}-{re.escape(high)}"
            for low, high in self.ranges
        )
        if self.negated:
            return f"[^{body}/]" if path else f"[^{body}]"
        return f"(?!/)[{body}]" if path else f"[{body}]"


STAR, GLOBSTAR, ONE = _Star(), _Globstar(), _One()
_Token = str | _Star | _Globstar | _One | _Set


def _tokens(pattern: str, *, path: bool, squeeze_blanks: bool) -> list[_Token]:
    out: list[_Token] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if i + 1 == len(pattern):
                raise GlobError(pattern, "it ends with a lone backslash; write \\\\ for one")
            out.append(pattern[i + 1])
            i += 2
        elif char == "*":
            if pattern.startswith("**", i) and path:
                before_ok = i == 0 or pattern[i - 1] == "/"
                after_ok = i + 2 == len(pattern) or pattern[i + 2] == "/"
                if not (before_ok and after_ok):
                    raise GlobError(pattern, "** must be a whole path segment (as in a/**/b)")
                out.append(GLOBSTAR)
                i += 2
            else:
                if not (out and out[-1] is STAR):
                    out.append(STAR)
                i += 1
        elif char == "?":
            out.append(ONE)
            i += 1
        elif char == "[":
            charset, i = _charset(pattern, i)
            out.append(charset)
        elif squeeze_blanks and char in " \t\n":
            if out and out[-1] != " ":
                out.append(" ")
            i += 1
        else:
            out.append(char)
            i += 1
    return out


def _charset(pattern: str, start: int) -> tuple[_Set, int]:
    i = start + 1
    negated = i < len(pattern) and pattern[i] in "!^"
    if negated:
        i += 1
    ranges: list[tuple[str, str]] = []
    first = True
    while True:
        if i >= len(pattern):
            raise GlobError(
                pattern, f"the [ at position {start} is never closed; close it or write \\["
            )
        char = pattern[i]
        if char == "]" and not first:
            return _Set(negated, tuple(ranges)), i + 1
        first = False
        if char == "\\" and i + 1 < len(pattern):
            char = pattern[i + 1]
            i += 1
        if i + 2 < len(pattern) and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            high = pattern[i + 2]
            if high < char:
                raise GlobError(pattern, f"the range {char}-{high} runs backwards")
            ranges.append((char, high))
            i += 3
        else:
            ranges.append((char, char))
            i += 1


def _regex(tokens: list[_Token], *, path: bool) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if token is GLOBSTAR:
            if nxt == "/":
                out.append("(?:.*/)?")  # zero or more whole segments
                i += 2
                continue
            out.append(".*")
        elif token == "/" and nxt is GLOBSTAR and i + 2 == len(tokens):
            out.append("(?:/.*)?")  # "a/**" also matches "a" itself
            i += 2
            continue
        elif token is STAR:
            out.append("[^/]*" if path else ".*")
        elif token is ONE:
            out.append("[^/]" if path else ".")
        elif isinstance(token, _Set):
            out.append(token.regex(path=path))
        elif isinstance(token, str):
            out.append(re.escape(token))
        i += 1
    return re.compile("".join(out), re.DOTALL)


# --------------------------------------------------------------------------------------------
# matching text with unknown stretches
# --------------------------------------------------------------------------------------------


def _single(token: _Token, char: str) -> bool:
    if token is ONE:
        return True
    if isinstance(token, _Set):
        return token.accepts(char)
    return token == char


def _steps(
    tokens: list[_Token], text: str, i: int, j: int, *, must: bool
) -> Iterator[tuple[int, int]]:
    """The states reachable in one step from (glob position `i`, text position `j`).

    With ``must`` an unknown stretch may only be swallowed whole by a star (then it matches
    whatever the stretch becomes); without, it may become any text at all, so it may also
    vanish or feed any single-character token.
    """
    token = tokens[i] if i < len(tokens) else None
    char = text[j] if j < len(text) else None
    if token is STAR:
        yield i + 1, j
        if char is not None:
            yield i, j + 1
    if char == UNKNOWN and not must:
        yield i, j + 1  # the stretch ends here (or was empty)
        if token is not None and token is not STAR:
            yield i + 1, j  # the stretch supplies one character this token accepts
    elif char not in (None, UNKNOWN) and token not in (None, STAR) and _single(token, char):
        yield i + 1, j + 1


def _reaches_end(tokens: list[_Token], text: str, *, must: bool) -> bool:
    goal = (len(tokens), len(text))
    seen = {(0, 0)}
    todo = [(0, 0)]
    while todo:
        state = todo.pop()
        if state == goal:
            return True
        for nxt in _steps(tokens, text, *state, must=must):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


# --------------------------------------------------------------------------------------------
# the glob
# --------------------------------------------------------------------------------------------


class Glob:
    """A compiled glob; build with :meth:`text`, :meth:`command` or :meth:`path`.

    Building one parses the pattern, so a malformed glob fails then; the regular expression
    behind :meth:`matches` is compiled on the first match. A value: nothing changes it once
    built (but that cached expression), and two globs are equal when their pattern and kind
    are. A plain class, not attrs: every bundle with this plugin builds each glob of its table.
    """

    __slots__ = ("_regex", "_tokens", "is_path", "pattern")

    def __init__(self, pattern: str, is_path: bool, tokens: tuple[_Token, ...]) -> None:
        self.pattern = pattern
        self.is_path = is_path
        self._tokens = tokens
        self._regex: re.Pattern[str] | None = None

    @classmethod
    def _build(cls, pattern: str, *, path: bool, squeeze_blanks: bool) -> Glob:
        tokens = _tokens(pattern, path=path, squeeze_blanks=squeeze_blanks)
        return cls(pattern, path, tuple(tokens))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Glob):
            return NotImplemented
        return (self.pattern, self.is_path) == (other.pattern, other.is_path)

    def __hash__(self) -> int:
        return hash((self.pattern, self.is_path))

    def __repr__(self) -> str:
        return f"Glob(pattern={self.pattern!r}, is_path={self.is_path!r})"

    @classmethod
    def text(cls, pattern: str) -> Glob:
        """A glob over plain text: tool names, argument values."""
        return cls._build(pattern, path=False, squeeze_blanks=False)

    @classmethod
    def command(cls, pattern: str) -> Glob:
        """A glob over one simple command (its words joined by single spaces)."""
        return cls._build(pattern.strip(), path=False, squeeze_blanks=True)

    @classmethod
    def path(cls, pattern: str) -> Glob:
        """A glob over a path (relative to the workspace inside it, absolute outside)."""
        return cls._build(pattern, path=True, squeeze_blanks=False)

    def matches(self, text: str) -> bool:
        """True when the glob matches `text`, read literally."""
        if self._regex is None:
            self._regex = _regex(list(self._tokens), path=self.is_path)
        return self._regex.fullmatch(text) is not None

    def match(self, text: str) -> Match:
        """How the glob meets `text`, whose :data:`UNKNOWN` marks stand for any text."""
        if UNKNOWN not in text or self.is_path:
            return Match.MUST if self.matches(text) else Match.NO
        tokens = list(self._tokens)
        if _reaches_end(tokens, text, must=True):
            return Match.MUST
        return Match.MAY if _reaches_end(tokens, text, must=False) else Match.NO
