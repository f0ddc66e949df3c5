"""Shell words: the lexer the splitter reads a command line with.

A :class:`Lexer` turns text into tokens: operators (``;`` ``&&`` ``|`` ``(`` ``>>`` ``<<``...)
and words. A word is returned after quote removal (single and double quotes, backslashes,
``$'...'`` ANSI-C and ``$"..."`` quoting, line continuations), with every stretch only the shell
will know replaced by :data:`UNKNOWN`: parameter expansions, command, process and arithmetic
substitutions, and unquoted tildes, brace expansions and file-name patterns. Substitutions hold
commands, so reading a word may read a nested command list: the parser
(:mod:`seamhost_tool_policy.splitter`) supplies that through :meth:`Lexer._nested_list` and
:meth:`Lexer._absorb`. What the lexer cannot follow is recorded in :attr:`Lexer.unsure`.
"""

from __future__ import annotations

import abc
import re

import attrs

from seamhost_tool_policy.marks import UNKNOWN

MAX_DEPTH = 40
"""Deeper nesting of substitutions, subshells and expansions is unsure, and not followed."""

SEPARATORS = frozenset({";", "&", "&&", "||", "|", "|&", "\n"})
CASE_ENDS = frozenset({";;", ";&", ";;&"})
REDIRECTIONS = frozenset({"<", ">", ">>", ">|", "<>", "<&", ">&", "&>", "&>>", "<<", "<<-", "<<<"})
_OPERATORS = sorted(
    (SEPARATORS - {"\n"}) | CASE_ENDS | REDIRECTIONS | {"(", ")"}, key=len, reverse=True
)
_CONDITION_OPERATORS = ("&&", "||", "(", ")", "<", ">")  # words inside [[ ]]
_IO_NUMBER = re.compile(r"(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})(?=[<>])")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_PARAMETER = re.compile(r"[#!]?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])")
# The escapes of $'...' that stand for one character; \xHH \uHHHH \UHHHHHHHH \NNN give a code.
_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_ANSI_NUMERIC = {"x": (16, 2), "u": (16, 4), "U": (16, 8)}


# --------------------------------------------------------------------------------------------
# tokens
# --------------------------------------------------------------------------------------------


@attrs.frozen
class Word:
    """A word after quote removal, :data:`UNKNOWN` marking run-time text, and where it was."""

    text: str
    plain: bool  # written as is: no quote, escape or expansion (a reserved-word candidate)
    assignment: bool
    start: int
    end: int


@attrs.frozen
class Op:
    """An operator token: a separator, a parenthesis, a redirection or a newline."""

    op: str  # "" at the end of the text
    start: int
    end: int


Token = Word | Op


@attrs.define
class Heredoc:
    """A here-document waiting for its body, read after the next newline into `sink`."""

    delimiter: str
    strip_tabs: bool
    expands: bool
    sink: list[str]


# --------------------------------------------------------------------------------------------
# what word expansion may rewrite
# --------------------------------------------------------------------------------------------


def _is_assignment(chars: list[tuple[str, str]]) -> bool:
    head = ""
    for char, kind in chars:
        if kind != "u":
            break
        head += char
        if char == "=":
            break
    return _ASSIGNMENT.fullmatch(head) is not None


def _replace(chars: list[tuple[str, str]], start: int, end: int) -> None:
    chars[start:end] = [(UNKNOWN, "x")]


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


def _expand_patterns(chars: list[tuple[str, str]], assignment: bool) -> list[tuple[str, str]]:
    """Mark what word expansion may rewrite: tildes, braces, file-name patterns."""
    chars = list(chars)
    starts = [0]
    if assignment:
        starts.append(next(i for i, (c, k) in enumerate(chars) if c == "=" and k == "u") + 1)
    for start in reversed(starts):
        if start < len(chars) and chars[start] == ("~", "u"):
            end = start
            while end < len(chars) and chars[end][0] != "/":
                end += 1
            if all(kind == "u" for _, kind in chars[start:end]):
                _replace(chars, start, end)
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
            _replace(chars, index, index + 1)
        elif kind == "u" and char == "[":
            end = next((j for j in range(index + 2, len(chars)) if chars[j] == ("]", "u")), -1)
            if end > 0:
                _replace(chars, index, end + 1)
        index += 1
    merged: list[tuple[str, str]] = []
    for item in chars:
        if not (item[1] == "x" and merged and merged[-1][1] == "x"):
            merged.append(item)
    return merged


# --------------------------------------------------------------------------------------------
# the lexer
# --------------------------------------------------------------------------------------------


class Lexer(abc.ABC):
    """Reads tokens from `text`; nested command lists are read by the subclass (the parser)."""

    def __init__(self, text: str, depth: int) -> None:
        self.text = text
        self.pos = 0
        self.depth = depth
        self.unsure: list[str] = []
        self.truncated = False  # the nesting limit was hit: part of the text was not read
        self._peeked: Token | None = None
        self._heredocs: list[Heredoc] = []

    @abc.abstractmethod
    def _absorb(self, text: str, *, expansions_only: bool = False) -> None:
        """Read `text` (backquoted code, a here-document body) one level deeper."""

    @abc.abstractmethod
    def _nested_list(self, opener: str) -> None:
        """Read the commands of a substitution or subshell, up to its ``)``."""

    def _unsure(self, why: str) -> None:
        self.unsure.append(why)

    def _deeper(self) -> bool:
        """Enter one nesting level; past `MAX_DEPTH` give up on the rest of the text."""
        if self.depth >= MAX_DEPTH:
            self._unsure(f"nesting deeper than {MAX_DEPTH} levels")
            self.truncated = True
            self.pos = len(self.text)
            self._peeked = None
            return False
        self.depth += 1
        return True

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

    def _peek(self, *, condition: bool = False) -> Token:
        if self._peeked is None:
            self._peeked = self._lex(condition)
        return self._peeked

    def _next(self) -> Token:
        token = self._peek()
        self._peeked = None
        return token

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
            elif char == "(" and _ASSIGNMENT.fullmatch("".join(c for c, _ in chars)):
                self.pos += 1  # an array assignment: name=(...)
                if self._deeper():
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
                    self._unsure("an unterminated single quote")
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
        assignment = _is_assignment(chars)
        value = "".join(c for c, _ in _expand_patterns(chars, assignment))
        return Word(value, value == text[start : self.pos], assignment, start, self.pos)

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
        self._unsure("an unterminated double quote")

    def _ansi_c(self, chars: list[tuple[str, str]]) -> None:
        """``$'...'``: the position is at the opening quote."""
        text = self.text
        self.pos += 1
        while self.pos < len(text):
            char = text[self.pos]
            if char == "'":
                self.pos += 1
                return
            if char != "\\" or self.pos + 1 >= len(text):
                chars.append((char, "q"))
                self.pos += 1
                continue
            code = text[self.pos + 1]
            self.pos += 2
            if code in _ANSI_SIMPLE:
                chars.append((_ANSI_SIMPLE[code], "q"))
            elif code in _ANSI_NUMERIC or code in "01234567":
                base, width = _ANSI_NUMERIC.get(code, (8, 3))
                if base == 8:
                    self.pos -= 1
                digits = re.match(
                    f"[0-7]{{1,{width}}}" if base == 8 else f"[0-9a-fA-F]{{1,{width}}}",
                    text[self.pos :],
                )
                if digits is None:
                    chars.extend((c, "q") for c in "\\" + code)
                    continue
                self.pos += digits.end()
                value = int(digits.group(), base)
                chars.append((chr(value) if value <= 0x10FFFF else UNKNOWN, "q"))
            elif code == "c" and self.pos < len(text):
                chars.append((chr(ord(text[self.pos]) & 0x1F), "q"))
                self.pos += 1
            else:
                chars.extend((c, "q") for c in "\\" + code)
        self._unsure("an unterminated $'...' quote")

    def _dollar(self, chars: list[tuple[str, str]], *, quoted: bool) -> None:
        text = self.text
        here = self.pos
        after = text[here + 1 : here + 2]
        if after == "'" and not quoted:
            self.pos += 1
            self._ansi_c(chars)
        elif after == '"' and not quoted:
            self.pos += 1
            self._double_quoted(chars)
        elif text.startswith("$((", here):
            self._unsure("arithmetic expansion $((...))")
            self.pos += 3
            self._arithmetic()
            chars.append((UNKNOWN, "x"))
        elif after == "(":
            self._unsure("command substitution $(...)")
            self.pos += 2
            self._nested_list("$(")
            chars.append((UNKNOWN, "x"))
        elif after == "[":
            self._unsure("arithmetic expansion $[...]")
            self.pos += 2
            if self._deeper():
                self._skip_until("]", "[")
                self.depth -= 1
            chars.append((UNKNOWN, "x"))
        elif after == "{":
            self.pos += 2
            if self._deeper():
                self._parameter(self._skip_until("}", "{"))
                self.depth -= 1
            chars.append((UNKNOWN, "x"))
        elif _NAME.match(text, here + 1):
            self.pos = _NAME.match(text, here + 1).end()  # type: ignore[union-attr]  # matched above
            chars.append((UNKNOWN, "x"))
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
            self._unsure("an array subscript in ${...} (evaluated as arithmetic)")
        if rest.startswith(":") and rest[1:2] not in ("-", "=", "+", "?"):
            self._unsure("a substring offset in ${...} (evaluated as arithmetic)")
        if rest.startswith("@P"):
            self._unsure("prompt expansion ${...@P} (runs substitutions in the value)")

    def _arithmetic(self) -> None:
        """After ``$((`` or ``((``: skip to the closing ``))``."""
        if not self._deeper():
            return
        self._skip_until(")", "(")
        if self.text.startswith(")", self.pos):
            self.pos += 1
        else:
            self._unsure("an unterminated ((...))")
        self.depth -= 1

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
        self._unsure(f"an unterminated {opener}...{closer}")
        self.pos = len(text)
        return text[start:]

    def _backquote(self, chars: list[tuple[str, str]]) -> None:
        text = self.text
        self._unsure("command substitution `...`")
        index = self.pos + 1
        code: list[str] = []
        while index < len(text) and text[index] != "`":
            if text[index] == "\\" and text[index + 1 : index + 2] in ("$", "`", "\\"):
                index += 1
            code.append(text[index])
            index += 1
        if index >= len(text):
            self._unsure("an unterminated `...`")
        self.pos = index + 1
        self._absorb("".join(code))
        chars.append((UNKNOWN, "x"))

    def _process_substitution(self, chars: list[tuple[str, str]]) -> None:
        self._unsure(f"process substitution {self.text[self.pos]}(...)")
        self.pos += 2
        self._nested_list(self.text[self.pos - 2 : self.pos])
        chars.append((UNKNOWN, "x"))

    def _read_heredocs(self) -> None:
        text = self.text
        for doc in self._heredocs:
            lines: list[str] = []
            while True:
                if self.pos >= len(text):
                    self._unsure(f"a here-document without its end marker {doc.delimiter!r}")
                    break
                end = text.find("\n", self.pos)
                stop = len(text) if end < 0 else end
                line = text[self.pos : stop]
                self.pos = stop + 1
                if doc.strip_tabs:
                    line = line.lstrip("\t")
                if line == doc.delimiter:
                    break
                lines.append(line)
            body = "".join(line + "\n" for line in lines)
            if doc.expands:
                self._absorb(body, expansions_only=True)
            doc.sink.append(body)
        self._heredocs.clear()
