"""Split a shell command line into the simple commands it would run.

The splitter reads the shell language as bash does, far enough to find every simple command a
command line can run, and says when it cannot be sure. It never runs anything.

What it understands (the words come from the lexer, :mod:`seamhost_tool_policy.shellwords`):

* words, with single quotes, double quotes, backslash escapes, ``$'...'`` (ANSI-C) and
  ``$"..."`` quoting, and line continuations; quotes are removed from the words it returns;
* the operators ``;`` ``&`` ``&&`` ``||`` ``|`` ``|&`` and newline, ``( ... )`` subshells,
  ``{ ...; }`` groups, ``!``, comments, and the compound commands ``if``/``while``/``until``/
  ``for``/``select``/``case``, ``[[ ... ]]`` and function definitions, whose inner commands are
  simple commands like any other;
* redirections (``>file``, ``2>&1``, ``<in``, ``&>>log`` ...): they are not command words.
  The target of each one that opens a file is recorded (:attr:`SimpleCommand.redirects`, and
  :attr:`Split.redirects` for the whole line, redirections of compound commands and of
  commands without words included); duplications and closings of descriptors (``2>&1``
  ``>&2`` ``<&0`` ``>&-`` ``3>&1-``), here-documents and here-strings open none.

Text only known at run time is marked with :data:`UNKNOWN` in the words: parameter expansions
(``$x``, ``${x}``), command substitutions, and unquoted file-name patterns (``*``, ``?``,
``[...]``), brace expansions (``{a,b}``) and tildes, which the shell may turn into any text,
even several words. A glob meets such a word over everything it could become
(:meth:`seamhost_tool_policy.globs.Glob.match`).

What it cannot follow makes the split *unsure* (:attr:`Split.unsure` says why), while it still
collects every command it finds, inner ones included: command substitution ``$(...)`` and
backquotes, process substitution ``<(...)``/``>(...)``, here-documents ``<<`` and here-strings
``<<<``, arithmetic (``$((...))``, ``((...))``, ``for ((...))``, ``$[...]``, arithmetic tests in
``[[ ]]``, array subscripts and substring offsets in ``${...}``: bash evaluates variables there as
expressions, which may run commands), prompt expansion ``${x@P}``, unbalanced quotes or
brackets, and nesting deeper than :data:`MAX_DEPTH`. Which *commands* are opaque (``eval``,
``source`` ...) is for :mod:`seamhost_tool_policy.unwrap` to say.
"""

from __future__ import annotations

import re

import attrs

from seamhost_tool_policy.marks import UNKNOWN
from seamhost_tool_policy.shellwords import (
    CASE_ENDS,
    MAX_DEPTH,
    REDIRECTIONS,
    SEPARATORS,
    Heredoc,
    Lexer,
    Op,
    Token,
    Word,
)

__all__ = ["MAX_DEPTH", "UNKNOWN", "SimpleCommand", "Split", "split"]

# Reserved words that only introduce the command after them, and those that only close.
_PREFIX_WORDS = frozenset(
    {"if", "then", "elif", "else", "do", "while", "until", "!", "{", "coproc"}
)
_CLOSING_WORDS = frozenset({"fi", "done", "}", "esac"})
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})

_CLOSE_PAREN = re.compile(r"[ \t]*\)")
# What follows >& or <& to duplicate (2>&1), move (3>&1-) or close (>&-) a descriptor.
_DESCRIPTOR = re.compile(r"[0-9]+-?|-")


@attrs.frozen
class SimpleCommand:
    """One simple command: its words after quote removal, as the shell would run it.

    `assignments` counts the leading ``NAME=value`` words; `source` is the text it was read
    from; `stdin` holds the here-documents and here-strings fed to it; `redirects` the targets
    of its file redirections, as words (:data:`UNKNOWN` marking run-time text).
    """

    words: tuple[str, ...]
    assignments: int = 0
    source: str = ""
    stdin: tuple[str, ...] = ()
    redirects: tuple[str, ...] = ()


@attrs.frozen
class Split:
    """The simple commands of a command line, and why the split is unsure (empty: reliable).

    `redirects` holds the target of every file redirection in the line, in order: those of its
    simple commands, and those written after a compound command (``{ ...; } >log``) or with
    no command at all (``>file`` alone truncates it). `truncated` says the nesting limit was
    hit, so some of the text was not read at all.
    """

    commands: tuple[SimpleCommand, ...]
    unsure: tuple[str, ...] = ()
    truncated: bool = False
    redirects: tuple[str, ...] = ()

    @property
    def reliable(self) -> bool:
        return not self.unsure


def split(text: str) -> Split:
    """Split `text` (what ``bash -c`` would run) into its simple commands."""
    reader = _Reader(text, 0)
    reader.run()
    return reader.result()


@attrs.define
class _Found:
    words: tuple[str, ...]
    assignments: int
    source: str
    stdin: list[str]
    redirects: list[str]


class _Reader(Lexer):
    """The parser: reads commands, compound commands and redirections from the lexer's tokens."""

    def __init__(self, text: str, depth: int) -> None:
        super().__init__(text, depth)
        self.found: list[_Found] = []
        self.redirects: list[str] = []  # every file redirection's target, in order

    def run(self) -> None:
        self._list(frozenset())
        if self._heredocs:
            self._unsure("a here-document without its body")

    def result(self) -> Split:
        commands = tuple(
            SimpleCommand(f.words, f.assignments, f.source, tuple(f.stdin), tuple(f.redirects))
            for f in self.found
        )
        unsure = tuple(dict.fromkeys(self.unsure))
        return Split(commands, unsure, self.truncated, tuple(self.redirects))

    def _absorb(self, text: str, *, expansions_only: bool = False) -> None:
        """Read `text` (backquoted code, a here-document body) one level deeper."""
        if not self._deeper():
            return
        inner = _Reader(text, self.depth)
        if expansions_only:
            inner.expansions()
        else:
            inner.run()
        self.found.extend(inner.found)
        self.redirects.extend(inner.redirects)
        self.unsure.extend(inner.unsure)
        self.truncated |= inner.truncated
        self.depth -= 1

    def _nested_list(self, opener: str) -> None:
        """The commands of a substitution or subshell, up to its ``)``."""
        saved, self._peeked = self._peeked, None
        if self._deeper():
            if self._list(frozenset({")"})) is None:
                self._unsure(f"an unterminated {opener}")
            self.depth -= 1
        self._peeked = saved

    def _list(
        self, closers: frozenset[str], stop_words: frozenset[str] = frozenset()
    ) -> str | None:
        """Read commands up to the end (``None``), a closing operator or a stop word (returned)."""
        while True:
            token = self._peek()
            if isinstance(token, Op):
                if not token.op:
                    return None
                self._next()
                if token.op in closers:
                    return token.op
                if token.op in SEPARATORS:
                    continue
                if token.op == "(":
                    if self.text.startswith("(", self.pos):
                        self.pos += 1
                        self._unsure("an arithmetic command ((...))")
                        self._arithmetic()
                    else:
                        self._nested_list("(")
                elif token.op == ")":
                    self._unsure("an unmatched )")
                elif token.op in CASE_ENDS:
                    self._unsure(f"{token.op} outside a case statement")
                else:
                    self._simple(first=token)
                continue
            reserved = token.text if token.plain else ""
            if reserved in stop_words:
                self._next()
                return reserved
            if reserved in _PREFIX_WORDS or reserved in _CLOSING_WORDS:
                self._next()
            elif reserved in ("for", "select"):
                self._next()
                self._for()
            elif reserved == "case":
                self._next()
                self._case()
            elif reserved == "function":
                self._next()
                self._function()
            elif reserved == "[[":
                self._next()
                self._condition(token)
            else:
                self._simple()

    def _skip_newlines(self) -> Token:
        while isinstance(token := self._peek(), Op) and token.op == "\n":
            self._next()
        return token

    def _for(self) -> None:
        token = self._peek()
        if isinstance(token, Op) and token.op == "(" and self.text.startswith("(", self.pos):
            self._next()
            self.pos += 1
            self._unsure("an arithmetic for loop for ((...))")
            self._arithmetic()
            return
        if isinstance(token, Word):
            self._next()
        token = self._skip_newlines()
        if isinstance(token, Word) and token.plain and token.text == "in":
            self._next()
            while isinstance(self._peek(), Word):
                self._next()

    def _case(self) -> None:
        if isinstance(self._peek(), Word):
            self._next()
        token = self._skip_newlines()
        if not (isinstance(token, Word) and token.plain and token.text == "in"):
            self._unsure("a case statement without in")
            return
        self._next()
        while True:
            token = self._skip_newlines()
            if isinstance(token, Word) and token.plain and token.text == "esac":
                self._next()
                return
            if isinstance(token, Op) and token.op == "(":
                self._next()
            while True:  # the patterns, up to the ) that ends them
                token = self._next()
                if isinstance(token, Op) and token.op == ")":
                    break
                if isinstance(token, Op) and token.op not in ("|", "\n"):
                    self._unsure("a malformed case statement")
                    return
            ended = self._list(CASE_ENDS, frozenset({"esac"}))
            if ended is None:
                self._unsure("a case statement without esac")
            if ended in (None, "esac"):
                return

    def _function(self) -> None:
        if isinstance(self._peek(), Word):
            self._next()
        token = self._peek()
        if isinstance(token, Op) and token.op == "(" and _CLOSE_PAREN.match(self.text, self.pos):
            self._next()
            self._next()

    def _condition(self, opener: Word) -> None:
        words = [opener.text]
        end = opener.end
        while True:
            token = self._peek(condition=True)
            if isinstance(token, Op):
                self._unsure("a [[ without ]]")
                break
            self._next()
            words.append(token.text)
            end = token.end
            if token.plain and token.text == "]]":
                break
        if _ARITHMETIC_TESTS.intersection(words):
            self._unsure("an arithmetic comparison in [[ ]] (evaluates variables as code)")
        self.found.append(_Found(tuple(words), 0, self.text[opener.start : end], [], []))

    def _simple(self, first: Op | None = None) -> None:
        """One simple command; `first` is a redirection operator already consumed."""
        words: list[str] = []
        assignments = 0
        stdin: list[str] = []
        redirects: list[str] = []
        start = end = first.start if first else self._peek().start
        if first is not None:
            end = self._redirect(first, stdin, redirects)
        while True:
            token = self._peek()
            if isinstance(token, Word):
                self._next()
                if token.assignment and assignments == len(words):
                    assignments += 1
                words.append(token.text)
                end = token.end
            elif token.op in REDIRECTIONS:
                self._next()
                end = self._redirect(token, stdin, redirects)
            elif (
                token.op == "("
                and len(words) == 1
                and not assignments
                and _CLOSE_PAREN.match(self.text, self.pos)
            ):
                self._next()  # NAME ( ): a function definition; its body follows
                self._next()
                return
            else:
                if token.op == "(":
                    self._unsure("a ( right after a command")
                break
        if words:
            found = _Found(tuple(words), assignments, self.text[start:end], stdin, redirects)
            self.found.append(found)

    def _redirect(self, op: Op, stdin: list[str], redirects: list[str]) -> int:
        target = self._peek()
        if not isinstance(target, Word):
            self._unsure(f"a {op.op} redirection without its target")
            return op.end
        self._next()
        if op.op in ("<<", "<<-"):
            self._unsure("a here-document <<")
            self._heredocs.append(Heredoc(target.text, op.op == "<<-", target.plain, stdin))
        elif op.op == "<<<":
            self._unsure("a here-string <<<")
            stdin.append(target.text + "\n")
        elif op.op not in ("<&", ">&") or _opens_file(op, target.text, self.text):
            redirects.append(target.text)
            self.redirects.append(target.text)
        return target.end


def _opens_file(op: Op, target: str, text: str) -> bool:
    """Whether ``>&`` or ``<&`` with this target opens a file rather than a descriptor.

    Bash reads ``>&word`` and ``1>&word`` as ``&>word`` when the word is not a descriptor
    number, a moved one (``3-``) or ``-``; any other descriptor, or ``<&``, with such a word
    is an error that opens nothing. Text only known at run time may be either, so it counts.
    """
    if _DESCRIPTOR.fullmatch(target):
        return False
    return op.op == ">&" and text[op.start : op.end - len(op.op)] in ("", "1")
