"""The walk behind :mod:`.unwrap`: every command of a call, followed through its wrappers.

An :class:`Analyser` splits each script (:func:`~.splitter.split`), records every command and
redirection target it finds, and hands each command to the handler of its program
(:func:`~.handlers.handler_for`), which calls back into it for the commands the program runs:
:meth:`Analyser.argv` for an argv, :meth:`Analyser.script` for shell code. The handlers see it
as a :class:`~.walk.Walk`, the part of it they use, so they need not import it. It keeps the state
those handlers share: what is unsure, where the commands being read run (:class:`Scope`), which
argvs were already followed. What the walk finds is turned into an
:class:`~.unwrap.Analysis` by :mod:`.unwrap`.

Given the call's environment (:mod:`.environment`), it replaces the marks of each command's
words by their values (:mod:`.resolution`) as it reaches the command, for the variables it
takes as pinned: all but `unpinned`, and none inside a wrapper that may start its command with
another environment (:func:`~.handlers.keeps_environment`). It records which it read
(:attr:`Analyser.consulted`) and which the call may set (:meth:`Analyser.changed`), so that
:mod:`.unwrap` reads the call again without those.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import attrs

from seamhost_tool_policy.environment import (
    PINNABLE,
    ShellEnvironment,
    changed_variables,
    sets_unknown_variables,
)
from seamhost_tool_policy.expansion import plain
from seamhost_tool_policy.handlers import handler_for, keeps_environment
from seamhost_tool_policy.options import Parsed
from seamhost_tool_policy.placement import place
from seamhost_tool_policy.resolution import Pins, resolve_word
from seamhost_tool_policy.splitter import MAX_DEPTH, UNKNOWN, split
from seamhost_tool_policy.structure import Command, describe

_CODE_VARIABLES = frozenset(
    {"BASH_ENV", "ENV", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS"}
)


@attrs.frozen
class Scope:
    """Where the commands being read run, as far as their relative and absolute paths go."""

    moved: bool = False  # maybe in another directory than the call's
    rerooted: bool = False  # maybe under another root directory


class Analyser:
    """Walks a call's commands; :attr:`commands`, :attr:`unsure`, :meth:`targets` are found."""

    def __init__(
        self, environment: ShellEnvironment | None = None, unpinned: frozenset[str] = frozenset()
    ) -> None:
        self.environment = environment
        self.unpinned = unpinned if environment and not environment.startup else PINNABLE
        self.consulted: set[str] = set()  # pinned variables whose values were used
        self.touched: set[str] = set()  # variables the call may set
        self.renames = False  # the call may set variables it does not name
        self._tame: set[str] = set()  # words whose unknowns are all a pattern's ...
        self._wild: set[str] = set()  # ... and the same texts seen with another unknown
        self.commands: dict[str, Command] = {}  # each command once (by text), in order found
        # Where the commands may run, relative to the call's directory (""): a literal cd adds
        # its target (it may fail, and a subshell's cd ends with it), any other an unknown one.
        self.directories: tuple[str, ...] = ("",)
        self.unsure: list[str] = []
        self.truncated = False
        self.redirects: list[tuple[str, Scope]] = []
        self.scope = Scope()  # of the commands being read
        self.changes_directory = False  # a cd, pushd or popd anywhere in the call
        # Each argv is followed once: wrappers whose options are not understood try several
        # starting points, and without this their combinations would grow exponentially.
        # Where it runs is part of it: the same argv elsewhere opens other files.
        self._followed: set[tuple[tuple[str, ...], Scope]] = set()

    def targets(self) -> tuple[str, ...]:
        """The redirection targets, each once, as the call shows them (see :meth:`target`)."""
        return tuple(dict.fromkeys(self.target(*found) for found in self.redirects))

    def target(self, written: str, scope: Scope) -> str:
        """A redirection target as the call shows it, marked unknown where it may point."""
        if written.startswith("/"):
            return UNKNOWN + written if scope.rerooted else written
        # A cd reaches every later command of its shell, loops and functions included, so
        # once the call changes directory no relative target can be placed.
        unknown = scope.moved or scope.rerooted or self.changes_directory
        return f"{UNKNOWN}/{written}" if unknown else written

    @contextlib.contextmanager
    def elsewhere(self, *, moved: bool = False, rerooted: bool = False) -> Iterator[None]:
        """Read the commands of the block as run in another directory and/or root."""
        saved = self.scope
        self.scope = Scope(saved.moved or moved, saved.rerooted or rerooted)
        try:
            yield
        finally:
            self.scope = saved

    def emit(self, words: Sequence[str], command: Command | None = None) -> None:
        text = " ".join(words)
        if command is not None:
            self.commands[text] = attrs.evolve(command, text=text)
        else:
            self.commands.setdefault(text, Command(text))

    def opaque(self, why: str) -> None:
        """Record a command nobody can know, for `why`: every matcher may match it."""
        self.unsure.append(why)
        self.commands.setdefault("\0" + why, Command.unknown(why))

    def change_directory(self, target: str | None) -> None:
        """A ``cd`` to `target` (None: somewhere only the run knows) in the call."""
        self.changes_directory = True
        self.touched.update(("PWD", "OLDPWD"))
        searched = target is not None and not target.startswith(("/", "./", "../"))
        if searched and target not in (".", ".."):
            # CDPATH sends a cd to a plain relative name to wherever it lists one
            environment = self.variable("CDPATH")
            if environment is None or environment.cdpath:
                target = None
        if target is None or UNKNOWN in target:
            added: tuple[str, ...] = (UNKNOWN,)
        else:
            added = tuple(f for d in self.directories for f in place(target, d) if d) + (
                (target,) if "" in self.directories else ()
            )
        self.directories = tuple(dict.fromkeys((*self.directories, *added)))

    # ---- the environment ---------------------------------------------------------------------

    def variable(self, name: str) -> ShellEnvironment | None:
        """The environment, when the variable `name` holds its value there (None: unknown)."""
        if self.environment is None or name in self.unpinned:
            return None
        if name in ("PWD", "OLDPWD") and self.scope.moved:
            return None
        self.consulted.add(name)
        return self.environment

    def changed(self) -> frozenset[str]:
        """The pinnable variables the call may set (all when it may set some it does not name)."""
        if self.renames or self.truncated or sets_unknown_variables(self.unsure):
            return PINNABLE
        return frozenset(self.touched)

    def tame(self, word: str) -> bool:
        """Whether every unknown of `word` is a pattern's (:mod:`.placement`)."""
        return UNKNOWN not in word or (word in self._tame and word not in self._wild)

    def resolve(self, word: str) -> str:
        """`word` with its marks replaced by what the shell will make of them here."""
        text, tame = resolve_word(word, Pins(self.environment, self.variable))
        if UNKNOWN in text:
            (self._tame if tame else self._wild).add(text)
        return text

    @contextlib.contextmanager
    def unpinned_variables(self) -> Iterator[None]:
        """Read the block as started with another environment: no variable is pinned."""
        saved = self.unpinned
        self.unpinned = PINNABLE
        try:
            yield
        finally:
            self.unpinned = saved

    def too_deep(self, depth: int) -> bool:
        if depth <= MAX_DEPTH:
            return False
        self.unsure.append(f"nesting deeper than {MAX_DEPTH} levels")
        self.truncated = True
        return True

    def script(self, text: str, depth: int) -> None:
        """Follow the shell code `text`, run `depth` wrappers deep."""
        if self.too_deep(depth):
            return
        self.touched.update(changed_variables(text))
        found = split(text, marked=True)
        self.unsure.extend(found.unsure)
        self.truncated |= found.truncated
        self.redirects.extend((self.resolve(target), self.scope) for target in found.redirects)
        for command in found.commands:
            words = tuple(self.resolve(word) for word in command.words)
            spelt = tuple(plain(word) for word in command.words)
            if spelt != words:
                # A command glob written against the spelling (`cat ~/.ssh/*`) still meets it.
                self.emit(spelt)
            self.emit(words)
            for word in words[: command.assignments]:
                self.assignment(word)
            stdin = tuple(self.resolve(body) for body in command.stdin)
            self.argv(words[command.assignments :], depth, stdin)

    def argv(self, words: tuple[str, ...], depth: int, stdin: tuple[str, ...] = ()) -> None:
        """Follow the command `words`, fed the here-documents and here-strings `stdin`."""
        if not words or (words, self.scope) in self._followed:
            return
        self._followed.add((words, self.scope))
        if self.too_deep(depth):
            return
        name = words[0].rsplit("/", 1)[-1]
        if UNKNOWN in name or not name:
            self.emit(words)
            self.opaque("the program to run is only known at run time")
            return
        if name in ("getopts", "wait") and any(UNKNOWN in word for word in words):
            self.renames = True  # they set the variable a word names
        directories = (UNKNOWN,) if self.scope.moved else self.directories
        command, canonical = describe((name, *words[1:]), directories, self.tame)
        self.emit(words, command)
        if name != words[0]:
            self.emit((name, *words[1:]), command)
        if canonical != (name, *words[1:]):
            self.emit(canonical, command)  # git -C . push is also seen as git push
        handler = handler_for(name)
        if handler is None:
            return
        if keeps_environment(name, words):
            handler(self, (name, *words[1:]), depth, stdin)
            return
        with self.unpinned_variables():
            handler(self, (name, *words[1:]), depth, stdin)

    def interactive(self, program: str, depth: int, stdin: tuple[str, ...]) -> None:
        """A shell that reads its commands from its input: what it is fed, if the line shows it."""
        if not stdin:
            self.opaque(f"{program} reads the commands it runs from its input")
        for body in stdin:
            self.script(body, depth + 1)

    def assignment(self, word: str) -> None:
        name = word.partition("=")[0].rstrip("+")
        if name in _CODE_VARIABLES or name.startswith("BASH_FUNC_"):
            self.unsure.append(f"setting {name}, whose value a shell runs as code")

    def wrapped(
        self, words: tuple[str, ...], parsed: Parsed, depth: int, tail: tuple[str, ...] = ()
    ) -> bool:
        """Follow a wrapper whose options were not understood; False when they were.

        `tail` is what the wrapper adds after the command's own words.
        """
        if parsed.unknown is None:
            return False
        self.opaque(
            f"{words[0]}: option {parsed.unknown} is not understood, so what it runs is not known"
        )
        # The option may or may not take a value: the command starts right after either way.
        # Nor is it known where the command runs.
        with self.elsewhere(moved=True):
            for start in (parsed.operands + 1, parsed.operands + 2):
                if start < len(words):
                    self.argv((*words[start:], *tail), depth + 1)
        return True
