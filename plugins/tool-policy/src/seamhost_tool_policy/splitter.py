"""Split a shell command line into the simple commands it would run.

The splitter reads the shell language as bash does, far enough to find every simple command a
command line can run, and says when it cannot be sure. It never runs anything.

What it understands (the lexer, :mod:`seamhost_tool_policy.shellwords`, reads the words; the
grammar, :mod:`seamhost_tool_policy.parser`, the commands they make):

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
(:meth:`seamhost_tool_policy.globs.Glob.match`). Asked for them (``marked``), it keeps the
marks of what the call's environment may pin instead (``~``, ``$HOME``, ``$PWD``, ``$OLDPWD``,
and patterns, which stay within one path segment: :mod:`.marks`), for the analyser to resolve.

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

import attrs

from seamhost_tool_policy.expansion import plain
from seamhost_tool_policy.marks import UNKNOWN
from seamhost_tool_policy.parser import Parser
from seamhost_tool_policy.shellwords import MAX_DEPTH

__all__ = ["MAX_DEPTH", "UNKNOWN", "SimpleCommand", "Split", "split"]


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


def split(text: str, *, marked: bool = False) -> Split:
    """Split `text` (what ``bash -c`` would run) into its simple commands.

    `marked` keeps the marks of what the environment may pin (:mod:`.marks`) in the words, the
    redirection targets and the here-strings, for the analyser to replace; otherwise they are
    :data:`UNKNOWN` like any run-time text.
    """
    parser = Parser(text, 0)
    parser.run()
    keep = (lambda word: word) if marked else plain
    commands = tuple(
        SimpleCommand(
            tuple(keep(w) for w in f.words),
            f.assignments,
            f.source,
            tuple(keep(s) for s in f.stdin),
            tuple(keep(r) for r in f.redirects),
        )
        for f in parser.found
    )
    unsure = tuple(dict.fromkeys(parser.unsure))
    redirects = tuple(keep(r) for r in parser.redirects)
    return Split(commands, unsure, parser.truncated, redirects)
