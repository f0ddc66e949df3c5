"""Shell words: the lexer the parser (:mod:`.parser`) reads a command line with.

A :class:`Lexer` turns text into tokens (:mod:`.tokens`): operators (``;`` ``&&`` ``|`` ``(``
``>>`` ``<<``...) and words. A word is returned after quote removal (single and double quotes,
backslashes, ``$'...'`` ANSI-C quoting and backquotes (:mod:`.quoting`), ``$"..."``, line
continuations), with every stretch only the shell will know replaced by :data:`UNKNOWN`:
parameter expansions, command, process and arithmetic substitutions, and unquoted tildes, brace
expansions and file-name patterns (:mod:`.expansion`). What the lexer cannot follow is recorded
in :attr:`Lexer.unsure`.

Substitutions hold commands, so reading a word may mean reading a nested command list, which
is the parser's job. The lexer is therefore given a :class:`Nesting` (the parser that owns it)
and hands it those lists; the parser in turn reads its tokens from the lexer. A ``$(...)`` or
``<(...)`` list goes on in the same text, so it is read through this lexer, at its position;
backquoted code and here-document bodies are text of their own, read by a fresh parser.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Protocol

from seamhost_tool_policy.expansion import ASSIGNMENT, expand_patterns, is_assignment, unforged
from seamhost_tool_policy.heredocs import Heredoc, read_body
from seamhost_tool_policy.marks import UNKNOWN, VARIABLES
from seamhost_tool_policy.quoting import backquoted, decode_ansi_c
from seamhost_tool_policy.tokens import CASE_ENDS, REDIRECTIONS, SEPARATORS, Op, Token, Word

MAX_DEPTH = 40
"""Deeper nesting of substitutions, subshells and expansions is unsure, and not followed."""

# Longest first, so that a prefix (">" of ">>") never wins.
_OPERATORS = sorted(
    (SEPARATORS - {"\n"}) | CASE_ENDS | REDIRECTIONS | {"(", ")"}, key=len, reverse=True
)
_CONDITION_OPERATORS = ("&&", "||", "(", ")", "<", ">")  # words inside [[ ]]
_IO_NUMBER = re.compile(r"(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})(?=[<>])")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PARAMETER = re.compile(r"[#!]?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])")


def _variable(name: str | None, quoted: bool) -> str:
    """The mark of the expansion of `name`: its own for a variable the environment may pin."""
    marks = VARIABLES.get(name or "")
    return UNKNOWN if marks is None else marks[0 if quoted else 1]


class Nesting(Protocol):
    """What reads the commands nested in a word for the lexer: the parser."""

    def absorb(self, text: str, *, expansions_only: bool = False) -> None:
        """Read `text` (backquoted code, a here-document body) one level deeper."""

    def nested_list(self, opener: str) -> None:
        """Read the commands of a substitution or subshell, up to its ``)``."""


class Lexer:
    """Reads tokens from `text`, handing nested command lists to `nesting`.

    `text` and `pos` are public because the parser looks at the raw text after a token in the
    few places a token cannot tell constructs apart (``((`` against ``( (``, ``name ( )``).
    """

    def __init__(self, text: str, depth: int, nesting: Nesting) -> None:
        self.text = text
        self.pos = 0
        self.depth = depth
        self.unsure: list[str] = []
        self.truncated = False  # the nesting limit was hit: part of the text was not read
        self._nesting = nesting
        self._peeked: Token | None = None
        self._heredocs: list[Heredoc] = []

    # ---- what the parser uses ----------------------------------------------------------------

    def doubt(self, why: str) -> None:
        """Record why the split is unsure."""
        self.unsure.append(why)

    def deeper(self) -> bool:
        """Enter one nesting level; past `MAX_DEPTH` give up on the rest of the text."""
        if self.depth >= MAX_DEPTH:
            self.doubt(f"nesting deeper than {MAX_DEPTH} levels")
            self.truncated = True
            self.pos = len(self.text)
            self._peeked = None
            return False
        self.depth += 1
        return True

    def peek(self, *, condition: bool = False) -> Token:
        """The next token, left unread; `condition` reads it as inside ``[[ ]]``."""
        if self._peeked is None:
            self._peeked = self._lex(condition)
        return self._peeked

    def next(self) -> Token:
        token = self.peek()
        self._peeked = None
        return token

    @contextlib.contextmanager
    def set_aside(self) -> Iterator[None]:
        """Read a nested list with the lookahead put aside, and restored after it.

        A nested list that ends the text leaves the end token peeked; it belongs to the inner
        read, not to the word or command around it.
        """
        saved, self._peeked = self._peeked, None
        try:
            yield
        finally:
            self._peeked = saved

    def expect_heredoc(self, doc: Heredoc) -> None:
        """Read `doc`'s body after the next newline."""
        self._heredocs.append(doc)

    @property
    def heredocs_pending(self) -> bool:
        return bool(self._heredocs)

    def expansions(self) -> None:
        """Read the text as a here-document body: only its expansions matter."""
        scratch: list[tuple[str, str]] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\":
                self.pos += 2
            elif char == "$":
                self._dollar(scratch, quoted=True)
            elif char == "`":
                self._backquote(scratch)
            else:
                self.pos += 1

    def arithmetic(self) -> None:
        """After ``$((`` or ``((``: skip to the closing ``))``."""
        if not self.deeper():
            return
        self._skip_until(")", "(")
        if self.text.startswith(")", self.pos):
            self.pos += 1
        else:
            self.doubt("an unterminated ((...))")
        self.depth -= 1

    # ---- tokens ------------------------------------------------------------------------------

    def _lex(self, condition: bool) -> Token:
        text = self.text
        while True:
            while self.pos < len(text):
                if text[self.pos] in " \t":
                    self.pos += 1
                elif text.startswith("\\\n", self.pos):
                    self.pos += 2
                else:
                    break
            if self.pos < len(text) and text[self.pos] == "#":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
                continue
            break
        start = self.pos
        if start >= len(text):
            return Op("", start, start)
        char = text[start]
        if char == "\n":
            self.pos += 1
            self._read_heredocs()
            return Op("\n", start, start + 1)
        if condition:
            for word in _CONDITION_OPERATORS:
                if text.startswith(word, start):
                    self.pos += len(word)
                    return Word(word, True, False, start, self.pos)
        number = _IO_NUMBER.match(text, start)
        if number and not condition:
            self.pos = number.end()
            return self._operator(start)
        if char in "<>" and text.startswith("(", start + 1):
            return self._word()
        if char in ";&|()<>":
            return self._operator(start)
        return self._word()

    def _operator(self, start: int) -> Op:
        op = next(o for o in _OPERATORS if self.text.startswith(o, self.pos))
        self.pos += len(op)
        return Op(op, start, self.pos)

    def _word(self) -> Word:
        text = self.text
        start = self.pos
        chars: list[tuple[str, str]] = []  # (character, "u" unquoted | "q" quoted | "x" unknown)
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\n":
                break
            if char in "<>" and text.startswith("(", self.pos + 1):
                self._process_substitution(chars)
            elif char == "(" and ASSIGNMENT.fullmatch("".join(c for c, _ in chars)):
                self.pos += 1  # an array assignment: name=(...)
                if self.deeper():
                    self._skip_until(")", "(")
                    self.depth -= 1
                chars.append((UNKNOWN, "x"))
            elif char in ";&|()<>":
                break
            elif char == "\\":
                if text.startswith("\n", self.pos + 1):
                    self.pos += 2
                else:
                    chars.append((text[self.pos + 1 : self.pos + 2] or "\\", "q"))
                    self.pos += 2
            elif char == "'":
                end = text.find("'", self.pos + 1)
                if end < 0:
                    self.doubt("an unterminated single quote")
                    end = len(text)
                chars.extend((c, "q") for c in text[self.pos + 1 : end])
                self.pos = end + 1
            elif char == '"':
                self._double_quoted(chars)
            elif char == "$":
                self._dollar(chars, quoted=False)
            elif char == "`":
                self._backquote(chars)
            else:
                chars.append((char, "u"))
                self.pos += 1
        self.pos = min(self.pos, len(text))
        chars = unforged(chars)
        assignment = is_assignment(chars)
        value = "".join(c for c, _ in expand_patterns(chars, assignment))
        return Word(value, value == text[start : self.pos], assignment, start, self.pos)

    def _read_heredocs(self) -> None:
        for doc in self._heredocs:
            body, self.pos, ended = read_body(self.text, self.pos, doc)
            if not ended:
                self.doubt(f"a here-document without its end marker {doc.delimiter!r}")
            if doc.expands:
                self._nesting.absorb(body, expansions_only=True)
            doc.sink.append(body)
        self._heredocs.clear()

    # ---- quotes and expansions inside a word -------------------------------------------------

    def _double_quoted(self, chars: list[tuple[str, str]]) -> None:
        text = self.text
        self.pos += 1
        while self.pos < len(text):
            char = text[self.pos]
            if char == '"':
                self.pos += 1
                return
            if char == "\\" and text[self.pos + 1 : self.pos + 2] in ("$", "`", '"', "\\", "\n"):
                if text[self.pos + 1] != "\n":
                    chars.append((text[self.pos + 1], "q"))
                self.pos += 2
            elif char == "$":
                self._dollar(chars, quoted=True)
            elif char == "`":
                self._backquote(chars)
            else:
                chars.append((char, "q"))
                self.pos += 1
        self.doubt("an unterminated double quote")

    def _dollar(self, chars: list[tuple[str, str]], *, quoted: bool) -> None:
        text = self.text
        here = self.pos
        after = text[here + 1 : here + 2]
        if after == "'" and not quoted:
            self.pos, closed = decode_ansi_c(text, self.pos + 1, chars)
            if not closed:
                self.doubt("an unterminated $'...' quote")
        elif after == '"' and not quoted:
            self.pos += 1
            self._double_quoted(chars)
        elif text.startswith("$((", here):
            self.doubt("arithmetic expansion $((...))")
            self.pos += 3
            self.arithmetic()
            chars.append((UNKNOWN, "x"))
        elif after == "(":
            self.doubt("command substitution $(...)")
            self.pos += 2
            self._nesting.nested_list("$(")
            chars.append((UNKNOWN, "x"))
        elif after == "[":
            self.doubt("arithmetic expansion $[...]")
            self.pos += 2
            if self.deeper():
                self._skip_until("]", "[")
                self.depth -= 1
            chars.append((UNKNOWN, "x"))
        elif after == "{":
            self.pos += 2
            body = None
            if self.deeper():
                body = self._skip_until("}", "{")
                self._parameter(body)
                self.depth -= 1
            chars.append((_variable(body, quoted), "x"))
        elif name := _NAME.match(text, here + 1):
            self.pos = name.end()
            chars.append((_variable(name.group(), quoted), "x"))
        elif after and after in "0123456789@*#?-$!":
            self.pos += 2
            chars.append((UNKNOWN, "x"))
        else:
            chars.append(("$", "q" if quoted else "u"))
            self.pos += 1

    def _parameter(self, body: str) -> None:
        """Flag the parameter expansions that evaluate text as code."""
        name = _PARAMETER.match(body)
        rest = body[name.end() :] if name else body
        if "[" in body:
            self.doubt("an array subscript in ${...} (evaluated as arithmetic)")
        if rest.startswith(":") and rest[1:2] not in ("-", "=", "+", "?"):
            self.doubt("a substring offset in ${...} (evaluated as arithmetic)")
        if rest.startswith("@P"):
            self.doubt("prompt expansion ${...@P} (runs substitutions in the value)")

    def _skip_until(self, closer: str, opener: str) -> str:
        """Skip past the `closer` matching an already consumed `opener`; return what is inside.

        Quotes and expansions inside are read as such, so the commands they hold are found.
        """
        text = self.text
        start = self.pos
        depth = 0
        scratch: list[tuple[str, str]] = []
        while self.pos < len(text):
            char = text[self.pos]
            if char == "\\":
                self.pos += 2
            elif char == "'":
                end = text.find("'", self.pos + 1)
                self.pos = len(text) if end < 0 else end + 1
            elif char == '"':
                self._double_quoted(scratch)
            elif char == "$":
                self._dollar(scratch, quoted=False)
            elif char == "`":
                self._backquote(scratch)
            elif char == closer and depth == 0:
                self.pos += 1
                return text[start : self.pos - 1]
            else:
                depth += (char == opener) - (char == closer)
                self.pos += 1
        self.doubt(f"an unterminated {opener}...{closer}")
        self.pos = len(text)
        return text[start:]

    def _backquote(self, chars: list[tuple[str, str]]) -> None:
        self.doubt("command substitution `...`")
        code, self.pos, closed = backquoted(self.text, self.pos)
        if not closed:
            self.doubt("an unterminated `...`")
        self._nesting.absorb(code)
        chars.append((UNKNOWN, "x"))

    def _process_substitution(self, chars: list[tuple[str, str]]) -> None:
        self.doubt(f"process substitution {self.text[self.pos]}(...)")
        self.pos += 2
        self._nesting.nested_list(self.text[self.pos - 2 : self.pos])
        chars.append((UNKNOWN, "x"))
