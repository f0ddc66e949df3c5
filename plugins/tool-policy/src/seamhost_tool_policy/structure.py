"""A simple command read as the structured matchers see it: program, subcommand, flags, operands.

The program is the basename of the first word (wrappers already unwrapped by the analyser).
Global options the programs table (:mod:`.programs`) lists for it are skipped (``git -C . -c
k=v push`` is a ``git push``); the subcommand is then the first operand. The other options are
normalised: clusters split (``-fr`` is ``-f -r``) and each spelling mapped to one
(``--recursive``, ``-R`` → ``-r`` for ``rm``), wherever they stand, as GNU programs read them;
after ``--`` every word is an operand. Each operand is resolved against every directory the
line may have moved to by a literal ``cd`` before it (``cd / && rm -rf .`` removes ``/``), so an
operand has one form per such directory, ``..`` resolved (:mod:`.placement`). Where the call
says where it runs (its workspace, or its ``cwd`` argument), a relative form is also known by
the absolute names it has there, as written with ``..`` resolved and with symlinks followed
(:meth:`Command.names`): in a workspace two levels down, ``rm -rf ../..`` removes ``/``. The
words reach here with ``~``, ``$HOME``, ``$PWD`` and ``$OLDPWD`` already replaced by their
values where the call's environment pins them (:mod:`.resolution`).

Text only known at run time (:data:`~seamhost_tool_policy.marks.UNKNOWN`) may be anything: a
word starting with it may be an option (so any flag *may* be present) and an unknown global
option may take the next word, so the subcommand is then unknown too. In an operand it may lead
anywhere, unless it is a file-name pattern's (:mod:`.placement`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence

import attrs

from seamhost_tool_policy.marks import UNKNOWN
from seamhost_tool_policy.placement import place
from seamhost_tool_policy.programs import program, split_flag


@attrs.frozen
class Command:
    """One command a rule is matched against: words joined by single spaces, and its structure.

    `program` is None for a command seen only as text (with its ``NAME=value`` prefix or its
    program's directory); `opaque` says why a command is not known at all (a wrapper whose
    options were not understood, a shell reading its input): it may be any command.
    """

    text: str
    program: str | None = None
    subcommand: str | None = None
    flags: frozenset[str] = frozenset()
    maybe_flags: bool = False  # a word only known at run time may be an option
    operands: tuple[tuple[str, ...], ...] = ()  # each operand in one form per directory
    opaque: str = ""
    directory: str = ""  # the call's own directory, absolute, when the call says where it runs

    def names(self, form: str) -> tuple[str, ...]:
        """The names one operand form goes by: as written, and, for a relative one, the absolute
        names it has from :attr:`directory` (``..`` resolved; symlinks followed)."""
        if not self.directory or form.startswith(("/", UNKNOWN)):
            return (form,)
        # A relative form's unknowns are a pattern's (a wild one starts the form: placement).
        found = [form, *place(form, self.directory, tame=True)]
        # An embedded NUL cannot be resolved: the lexical form is then all there is.
        if UNKNOWN not in form:
            with contextlib.suppress(OSError, ValueError):
                found.extend(place(os.path.realpath(found[1]), "/"))
        return tuple(dict.fromkeys(found))

    @property
    def resolved(self) -> tuple[tuple[str, ...], ...]:
        """Each operand as the places it names: absolute where the call says where it runs,
        ``..`` resolved (with links followed too, where that differs), or an unknown-led form
        for one that may be anywhere."""
        found = []
        for forms in self.operands:
            names = [n for f in forms for n in self.names(f) if n.startswith(("/", UNKNOWN))]
            found.append(tuple(dict.fromkeys(names or forms)))
        return tuple(found)

    @property
    def display(self) -> str:
        """The command for people: run-time text shown as ``…``."""
        return self.text.replace(UNKNOWN, "…")

    @classmethod
    def unknown(cls, why: str) -> Command:
        """A command nobody can know: every matcher may match it."""
        return cls(UNKNOWN, UNKNOWN, UNKNOWN, frozenset(), True, ((UNKNOWN,),), why)


def describe(
    words: Sequence[str], directories: Sequence[str], tame: Callable[[str], bool]
) -> tuple[Command, tuple[str, ...]]:
    """The structure of the command `words` (program basename first), and its words with the
    global options dropped (the same words when it has none). `tame` says whether a word's
    unknowns are all a pattern's (:mod:`.placement`)."""
    name = words[0]
    entry = program(name)
    index = 1
    subcommand_known = True
    while index < len(words) and words[index].startswith("-") and words[index] != "--":
        word = words[index]
        option = word.partition("=")[0] if word.startswith("--") else word[:2]
        if option in entry.global_valued:
            glued = "=" in word if word.startswith("--") else len(word) > 2
            index += 1 if glued else 2
        elif word in entry.global_flags:
            index += 1
        else:
            subcommand_known = not (entry.global_flags or entry.global_valued)
            break
    rest = words[index:]
    flags: set[str] = set()
    operands: list[str] = []
    maybe_flags = not subcommand_known
    ended = False
    for word in rest:
        if not ended and word == "--":
            ended = True
        elif not ended and word.startswith("-") and len(word) > 1:
            flags.update(split_flag(word, entry))
            maybe_flags |= UNKNOWN in word
        else:
            operands.append(word)
            maybe_flags |= not ended and word.startswith(UNKNOWN)
    subcommand = operands[0] if operands else None
    if not subcommand_known:
        subcommand = UNKNOWN
    forms = tuple(
        tuple(dict.fromkeys(f for d in directories for f in place(o, d, tame=tame(o))))
        for o in operands
    )
    command = Command(" ".join(words), name, subcommand, frozenset(flags), maybe_flags, forms)
    return command, (name, *rest)
