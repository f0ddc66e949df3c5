"""The shell grammar behind :func:`~.splitter.split`: commands, compound commands, redirections.

A :class:`Parser` reads the tokens of its :class:`~.shellwords.Lexer` and collects each simple
command it finds (:class:`Found`) and every file redirection's target; what the split means and
returns is :mod:`.splitter`'s to say. Parser and lexer are composed, not inherited: the parser
owns the lexer, and is the lexer's :class:`~.shellwords.Nesting`, reading the command lists the
lexer meets inside words (``$(...)``, backquotes, here-document bodies).
"""

from __future__ import annotations

import re

import attrs

from seamhost_tool_policy.heredocs import Heredoc
from seamhost_tool_policy.shellwords import Lexer
from seamhost_tool_policy.tokens import CASE_ENDS, REDIRECTIONS, SEPARATORS, Op, Token, Word

# Reserved words that only introduce the command after them, and those that only close.
_PREFIX_WORDS = frozenset(
    {"if", "then", "elif", "else", "do", "while", "until", "!", "{", "coproc"}
)
_CLOSING_WORDS = frozenset({"fi", "done", "}", "esac"})
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})

_CLOSE_PAREN = re.compile(r"[ \t]*\)")
# What follows >& or <& to duplicate (2>&1), move (3>&1-) or close (>&-) a descriptor.
_DESCRIPTOR = re.compile(r"[0-9]+-?|-")


@attrs.define
class Found:
    """A simple command as read, its here-documents' bodies filled in when their lines come."""

    words: tuple[str, ...]
    assignments: int
    source: str
    stdin: list[str]
    redirects: list[str]


class Parser:
    """Reads commands, compound commands and redirections from its lexer's tokens."""

    def __init__(self, text: str, depth: int) -> None:
        self.lexer = Lexer(text, depth, self)
        self.found: list[Found] = []
        self.redirects: list[str] = []  # every file redirection's target, in order

    @property
    def unsure(self) -> list[str]:
        return self.lexer.unsure

    @property
    def truncated(self) -> bool:
        return self.lexer.truncated

    def run(self) -> None:
        self._list(frozenset())
        if self.lexer.heredocs_pending:
            self.lexer.doubt("a here-document without its body")

    # ---- the lexer's Nesting -----------------------------------------------------------------

    def absorb(self, text: str, *, expansions_only: bool = False) -> None:
        """Read `text` (backquoted code, a here-document body) one level deeper."""
        lexer = self.lexer
        if not lexer.deeper():
            return
        inner = Parser(text, lexer.depth)
        if expansions_only:
            inner.lexer.expansions()
        else:
            inner.run()
        self.found.extend(inner.found)
        self.redirects.extend(inner.redirects)
        lexer.unsure.extend(inner.unsure)
        lexer.truncated |= inner.truncated
        lexer.depth -= 1

    def nested_list(self, opener: str) -> None:
        """The commands of a substitution or subshell, up to its ``)``."""
        lexer = self.lexer
        with lexer.set_aside():
            if lexer.deeper():
                if self._list(frozenset({")"})) is None:
                    lexer.doubt(f"an unterminated {opener}")
                lexer.depth -= 1

    # ---- the grammar -------------------------------------------------------------------------

    def _list(
        self, closers: frozenset[str], stop_words: frozenset[str] = frozenset()
    ) -> str | None:
        """Read commands up to the end (``None``), a closing operator or a stop word (returned)."""
        lexer = self.lexer
        while True:
            token = lexer.peek()
            if isinstance(token, Op):
                if not token.op:
                    return None
                lexer.next()
                if token.op in closers:
                    return token.op
                if token.op in SEPARATORS:
                    continue
                if token.op == "(":
                    if lexer.text.startswith("(", lexer.pos):
                        lexer.pos += 1
                        lexer.doubt("an arithmetic command ((...))")
                        lexer.arithmetic()
                    else:
                        self.nested_list("(")
                elif token.op == ")":
                    lexer.doubt("an unmatched )")
                elif token.op in CASE_ENDS:
                    lexer.doubt(f"{token.op} outside a case statement")
                else:
                    self._simple(first=token)
                continue
            reserved = token.text if token.plain else ""
            if reserved in stop_words:
                lexer.next()
                return reserved
            if reserved in _PREFIX_WORDS or reserved in _CLOSING_WORDS:
                lexer.next()
            elif reserved in ("for", "select"):
                lexer.next()
                self._for()
            elif reserved == "case":
                lexer.next()
                self._case()
            elif reserved == "function":
                lexer.next()
                self._function()
            elif reserved == "[[":
                lexer.next()
                self._condition(token)
            else:
                self._simple()

    def _skip_newlines(self) -> Token:
        while isinstance(token := self.lexer.peek(), Op) and token.op == "\n":
            self.lexer.next()
        return token

    def _for(self) -> None:
        lexer = self.lexer
        token = lexer.peek()
        if isinstance(token, Op) and token.op == "(" and lexer.text.startswith("(", lexer.pos):
            lexer.next()
            lexer.pos += 1
            lexer.doubt("an arithmetic for loop for ((...))")
            lexer.arithmetic()
            return
        if isinstance(token, Word):
            lexer.next()
        token = self._skip_newlines()
        if isinstance(token, Word) and token.plain and token.text == "in":
            lexer.next()
            while isinstance(lexer.peek(), Word):
                lexer.next()

    def _case(self) -> None:
        lexer = self.lexer
        if isinstance(lexer.peek(), Word):
            lexer.next()
        token = self._skip_newlines()
        if not (isinstance(token, Word) and token.plain and token.text == "in"):
            lexer.doubt("a case statement without in")
            return
        lexer.next()
        while True:
            token = self._skip_newlines()
            if isinstance(token, Word) and token.plain and token.text == "esac":
                lexer.next()
                return
            if isinstance(token, Op) and token.op == "(":
                lexer.next()
            while True:  # the patterns, up to the ) that ends them
                token = lexer.next()
                if isinstance(token, Op) and token.op == ")":
                    break
                if isinstance(token, Op) and token.op not in ("|", "\n"):
                    lexer.doubt("a malformed case statement")
                    return
            ended = self._list(CASE_ENDS, frozenset({"esac"}))
            if ended is None:
                lexer.doubt("a case statement without esac")
            if ended in (None, "esac"):
                return

    def _function(self) -> None:
        lexer = self.lexer
        if isinstance(lexer.peek(), Word):
            lexer.next()
        token = lexer.peek()
        if isinstance(token, Op) and token.op == "(" and _CLOSE_PAREN.match(lexer.text, lexer.pos):
            lexer.next()
            lexer.next()

    def _condition(self, opener: Word) -> None:
        lexer = self.lexer
        words = [opener.text]
        end = opener.end
        while True:
            token = lexer.peek(condition=True)
            if isinstance(token, Op):
                lexer.doubt("a [[ without ]]")
                break
            lexer.next()
            words.append(token.text)
            end = token.end
            if token.plain and token.text == "]]":
                break
        if _ARITHMETIC_TESTS.intersection(words):
            lexer.doubt("an arithmetic comparison in [[ ]] (evaluates variables as code)")
        self.found.append(Found(tuple(words), 0, lexer.text[opener.start : end], [], []))

    def _simple(self, first: Op | None = None) -> None:
        """One simple command; `first` is a redirection operator already consumed."""
        lexer = self.lexer
        words: list[str] = []
        assignments = 0
        stdin: list[str] = []
        redirects: list[str] = []
        start = end = first.start if first else lexer.peek().start
        if first is not None:
            end = self._redirect(first, stdin, redirects)
        while True:
            token = lexer.peek()
            if isinstance(token, Word):
                lexer.next()
                if token.assignment and assignments == len(words):
                    assignments += 1
                words.append(token.text)
                end = token.end
            elif token.op in REDIRECTIONS:
                lexer.next()
                end = self._redirect(token, stdin, redirects)
            elif (
                token.op == "("
                and len(words) == 1
                and not assignments
                and _CLOSE_PAREN.match(lexer.text, lexer.pos)
            ):
                lexer.next()  # NAME ( ): a function definition; its body follows
                lexer.next()
                return
            else:
                if token.op == "(":
                    lexer.doubt("a ( right after a command")
                break
        if words:
            found = Found(tuple(words), assignments, lexer.text[start:end], stdin, redirects)
            self.found.append(found)

    def _redirect(self, op: Op, stdin: list[str], redirects: list[str]) -> int:
        lexer = self.lexer
        target = lexer.peek()
        if not isinstance(target, Word):
            lexer.doubt(f"a {op.op} redirection without its target")
            return op.end
        lexer.next()
        if op.op in ("<<", "<<-"):
            lexer.doubt("a here-document <<")
            lexer.expect_heredoc(Heredoc(target.text, op.op == "<<-", target.plain, stdin))
        elif op.op == "<<<":
            lexer.doubt("a here-string <<<")
            stdin.append(target.text + "\n")
        elif op.op not in ("<&", ">&") or _opens_file(op, target.text, lexer.text):
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
