"""Globs: the one dialect every matcher of every shipped plugin uses (tool-policy, user-approval).

Syntax (one glob matches the *whole* text, case-sensitively):

========  ==================================================================================
``*``     any run of characters except ``/`` (it stays within one path segment)
``**``    any run of characters, ``/`` included; as a whole segment it also spans no segment
          at all (``**/.env`` matches ``.env`` and ``a/b/.env``; ``src/**`` matches ``src`` and
          all under it; ``a/**/b`` matches ``a/b``)
``?``     one character, not ``/``
``[...]`` one character of the set, never ``/``: ``[abc]``, ranges ``[a-z]``, negated
          ``[!abc]`` or ``[^abc]``; a ``]`` right after the opening bracket is part of the set
``\\c``   the character ``c`` itself (``\\*`` is a star; ``[*]`` is one too)
========  ==================================================================================

So ``release/notes/*.md`` matches ``release/notes/v1.md`` and never
``release/notes/internal/keys/prod.md``; write ``release/notes/**.md`` or
``release/notes/**/*.md`` to reach below. The same holds in command globs:
``git push *`` matches ``git push origin main``, and ``rm -rf /**`` is needed to reach
``rm -rf /home/me`` (structured matchers, ``program``/``flags``/``operand``, say such things
better).

Command globs (:meth:`Glob.command`) read runs of blanks as one space, so ``rm  -rf /*`` and
``rm -rf /*`` are the same rule; the commands they meet are words joined by single spaces.

Text only known at run time. A caller may mark each stretch of a text that only the run will
know (a shell variable, a file-name pattern) with :data:`UNKNOWN`. :meth:`Glob.match` answers
over everything such a stretch could become: :attr:`Match.MUST` when the glob matches whatever
it becomes (each unknown stretch lies wholly under a ``**``), :attr:`Match.MAY` when it matches
some of them, :attr:`Match.NO` when none.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from typing import NamedTuple

from seamhost.errors import SeamhostError

UNKNOWN = "\ue000"
"""Marks a stretch of a text only the run will know (a Unicode private-use character)."""


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
    """``*``: any run of characters but ``/``."""


class _Any:
    """``**``: any run of characters."""


class _One:
    """``?``."""


class _Optional(NamedTuple):
    """The next `length` tokens may be skipped: ``**/`` and ``/**`` as whole segments."""

    length: int


class _Set(NamedTuple):
    """``[...]``: single characters and inclusive ranges, maybe negated; never ``/``."""

    negated: bool
    ranges: tuple[tuple[str, str], ...]

    def accepts(self, char: str) -> bool:
        inside = any(low <= char <= high for low, high in self.ranges)
        return char != "/" and inside != self.negated

    def regex(self) -> str:
        body = "".join(
            re.escape(low) if low == high else f"{re.escape(low)}-{re.escape(high)}"
            for low, high in self.ranges
        )
        return f"[^{body}/]" if self.negated else f"(?!/)[{body}]"


STAR, ANY, ONE = _Star(), _Any(), _One()
_Token = str | _Star | _Any | _One | _Set | _Optional


def _stars(pattern: str, i: int, out: list[_Token]) -> int:
    """Read the run of stars at `i` into `out`; the index after it."""
    end = i
    while end < len(pattern) and pattern[end] == "*":
        end += 1
    if end - i == 1:
        out.append(STAR)
        return end
    before = i == 0 or pattern[i - 1] == "/"
    after = end == len(pattern) or pattern[end] == "/"
    if before and after and end < len(pattern):  # "**/": any whole segments, none included
        out.extend((_Optional(2), ANY, "/"))
        return end + 1
    if before and after and i > 0 and out and out[-1] == "/":  # "/**" at the end
        out[-1:] = [_Optional(2), "/", ANY]
        return end
    out.append(ANY)
    return end


def _tokens(pattern: str, *, squeeze_blanks: bool) -> list[_Token]:
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
            i = _stars(pattern, i, out)
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


def _regex(tokens: tuple[_Token, ...]) -> str:
    out: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if isinstance(token, _Optional):
            out.append(f"(?:{_regex(tokens[i + 1 : i + 1 + token.length])})?")
            i += 1 + token.length
            continue
        if token is STAR:
            out.append("[^/]*")
        elif token is ANY:
            out.append(".*")
        elif token is ONE:
            out.append("[^/]")
        elif isinstance(token, _Set):
            out.append(token.regex())
        elif isinstance(token, str):
            out.append(re.escape(token))
        i += 1
    return "".join(out)


# --------------------------------------------------------------------------------------------
# matching text with unknown stretches
# --------------------------------------------------------------------------------------------


def _single(token: _Token, char: str) -> bool:
    if token is ONE:
        return char != "/"
    if isinstance(token, _Set):
        return token.accepts(char)
    return token == char


def _steps(
    tokens: tuple[_Token, ...], text: str, i: int, j: int, *, must: bool
) -> Iterator[tuple[int, int]]:
    """The states reachable in one step from (glob position `i`, text position `j`).

    With ``must`` an unknown stretch may only be swallowed whole by a ``**`` (then it matches
    whatever the stretch becomes: it may hold a ``/``); without, it may become any text at
    all, so it may also vanish or feed any single-character token.
    """
    token = tokens[i] if i < len(tokens) else None
    char = text[j] if j < len(text) else None
    if isinstance(token, _Optional):
        yield i + 1, j
        yield i + 1 + token.length, j
        return
    if token is STAR or token is ANY:
        yield i + 1, j
        if char == UNKNOWN:
            if token is ANY or not must:
                yield i, j + 1
        elif char is not None and (token is ANY or char != "/"):
            yield i, j + 1
        return
    if char == UNKNOWN:
        if not must:
            yield i, j + 1  # the stretch ends here (or was empty)
            if token is not None:
                yield i + 1, j  # the stretch supplies one character this token accepts
    elif char is not None and token is not None and _single(token, char):
        yield i + 1, j + 1


def _reaches_end(tokens: tuple[_Token, ...], text: str, *, must: bool) -> bool:
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
    """A compiled glob; build with :meth:`of` or :meth:`command`.

    Building one parses the pattern, so a malformed glob fails then; the regular expression
    behind :meth:`matches` is compiled on the first match. A value: nothing changes it once
    built (but that cached expression), and two globs are equal when their patterns are. A
    plain class, not attrs: every bundle with a plugin using globs builds each of its globs.
    """

    __slots__ = ("_regex", "_tokens", "pattern")

    def __init__(self, pattern: str, tokens: tuple[_Token, ...]) -> None:
        self.pattern = pattern
        self._tokens = tokens
        self._regex: re.Pattern[str] | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Glob):
            return NotImplemented
        return self._tokens == other._tokens

    def __hash__(self) -> int:
        return hash(self._tokens)

    def __repr__(self) -> str:
        return f"Glob({self.pattern!r})"

    @classmethod
    def of(cls, pattern: str) -> Glob:
        """A glob over a text: a name, an argument value, a path."""
        return cls(pattern, tuple(_tokens(pattern, squeeze_blanks=False)))

    @classmethod
    def command(cls, pattern: str) -> Glob:
        """A glob over one simple command (its words joined by single spaces)."""
        stripped = pattern.strip()
        return cls(stripped, tuple(_tokens(stripped, squeeze_blanks=True)))

    @property
    def literal(self) -> bool:
        """True when the glob has no wildcard: it matches exactly one text."""
        return all(isinstance(token, str) for token in self._tokens)

    def matches(self, text: str) -> bool:
        """True when the glob matches `text`, read literally."""
        if self._regex is None:
            self._regex = re.compile(_regex(self._tokens), re.DOTALL)
        return self._regex.fullmatch(text) is not None

    def match(self, text: str) -> Match:
        """How the glob meets `text`, whose :data:`UNKNOWN` marks stand for any text."""
        if UNKNOWN not in text:
            return Match.MUST if self.matches(text) else Match.NO
        if _reaches_end(self._tokens, text, must=True):
            return Match.MUST
        return Match.MAY if _reaches_end(self._tokens, text, must=False) else Match.NO
