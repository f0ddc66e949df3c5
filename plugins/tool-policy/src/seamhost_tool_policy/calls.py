"""What a tool call shows the rules: its commands, where it acts, and its argument values.

A call is a *shell call* when its arguments hold a ``command`` string (run as ``bash -c``) or a
``command``/``argv`` list of strings (run directly); its commands are then those of
:mod:`seamhost_tool_policy.unwrap`. Where it acts, its places (:class:`Place`), is the
``path`` argument, else the ``cwd`` argument, else, for a shell call, the workspace; relative
paths are relative to the workspace (``~`` is an ordinary name, as for the file tools; in a shell
command it is what bash makes of it, see :mod:`.environment`). A shell
call also acts on the target of each of its file redirections
(:attr:`~seamhost_tool_policy.unwrap.Analysis.redirects`), relative to its ``cwd`` argument if
it has one, else to the workspace; path globs apply to these as to a ``path`` argument. Each
place is looked at twice: as written with ``..`` resolved, and with symlinks followed, so a
link out of the workspace is outside.

Two kinds of target are special. One holding text only the shell will know
(:data:`~seamhost_tool_policy.marks.UNKNOWN`: ``> "$out"``, ``> ~/x`` once the call sets HOME,
``> *.log``, a relative
target after a ``cd``) may be anywhere: :meth:`Place.meets` says it *may* lie inside or outside
the workspace and *may* match any path glob. And :data:`STREAMS` are not files: a target that
names one of them (once ``..`` is resolved) is no place at all.

A call may thus show several commands, places and (for list arguments) values. Each combination
is a :class:`Subject` that the rules judge on its own; the call gets the most restrictive
outcome.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from seamhost import jsonvalue
from seamhost.globs import Match
from seamhost_tool_policy.marks import UNKNOWN

if TYPE_CHECKING:
    from seamhost import ToolInvocation
    from seamhost.globs import Glob
    from seamhost_tool_policy.environment import ShellEnvironment
    from seamhost_tool_policy.structure import Command
    from seamhost_tool_policy.unwrap import Analysis

STREAMS = re.compile(r"/dev/(?:null|stdin|stdout|stderr|tty|fd/[0-9]+)")
"""Redirection targets that are no file effect: the null device, the standard streams, the
descriptors the process already holds and its terminal. Matched on the whole absolute path as
written (``..`` resolved), since followed, ``/dev/stdout`` leads wherever the descriptor
points: to what the runner gave the call, or to a file a redirection of the line opened, which
is a place of its own."""


@attrs.frozen
class Place:
    """Where a call acts: `text` is relative to the workspace inside it, absolute outside.

    A redirection target holding :data:`~seamhost_tool_policy.marks.UNKNOWN` is kept as
    written (its `inside` is then meaningless): see :attr:`known`.
    """

    text: str
    inside: bool
    is_path: bool  # path globs apply: the `path` argument or a redirection target
    redirect: bool = False  # the target of a shell redirection

    @property
    def known(self) -> bool:
        """False for a redirection target only the run will tell (it may be anywhere)."""
        return not (self.redirect and UNKNOWN in self.text)

    @property
    def display(self) -> str:
        """The place for people: run-time text shown as ``…``."""
        return self.text.replace(UNKNOWN, "…")

    def meets(self, path: Glob | None, inside: bool | None) -> Match:
        """How a rule's `path` glob and `location` (`inside`) meet this place; None: no matcher.

        An unknown place may be anywhere, so it *may* meet any matcher.
        """
        if path is None and inside is None:
            return Match.MUST
        if not self.known:
            return Match.MAY
        if path is not None and not (self.is_path and path.matches(self.text)):
            return Match.NO
        if inside is not None and self.inside != inside:
            return Match.NO
        return Match.MUST


@attrs.frozen
class Subject:
    """One combination of what a call shows: a command, a place, a value per named argument."""

    command: Command | None
    place: Place | None
    values: Mapping[str, str | None]


@attrs.frozen
class CallView:
    """Everything the rules may look at in one call."""

    tool: str
    effect: str
    shell: Analysis | None
    places: tuple[Place, ...]
    values: Mapping[str, tuple[str | None, ...]]

    @classmethod
    def of(cls, call: ToolInvocation, argument_names: tuple[str, ...]) -> CallView:
        arguments = call.arguments
        shell = _shell(arguments, call.workspace, os.environ)
        return cls(
            tool=call.tool.spec.name,
            effect=call.tool.spec.effect,
            shell=shell,
            places=_places(call.workspace, arguments, shell),
            values={name: _values(arguments, name) for name in argument_names},
        )

    @property
    def commands(self) -> tuple[Command, ...] | None:
        """The commands of a shell call (at least one: an empty line is ``""``), else None."""
        if self.shell is None:
            return None
        if self.shell.commands:
            return self.shell.commands
        from seamhost_tool_policy.structure import Command  # a shell call: see _shell

        return (Command(""),)

    @property
    def subject_count(self) -> int:
        """How many subjects :meth:`subjects` yields, without making them."""
        count = len(self.commands or (None,)) * max(len(self.places), 1)
        for values in self.values.values():
            count *= len(values)
        return count

    def subjects(self) -> Iterator[Subject]:
        names = tuple(self.values)
        places: tuple[Place | None, ...] = self.places or (None,)
        commands: tuple[Command | None, ...] = self.commands or (None,)
        for values in itertools.product(*(self.values[name] for name in names)):
            named = dict(zip(names, values, strict=True))
            for command in commands:
                for place in places:
                    yield Subject(command, place, named)


def _shell(
    arguments: Mapping[str, Any], workspace: Path, environ: Mapping[str, str]
) -> Analysis | None:
    """The analysis of a shell call started with `environ`, its commands placed in the call's
    directory (or None)."""
    if not any(_script(arguments, key) is not None for key in _SHELL_KEYS):
        return None
    # The shell analysis (its lexer, splitter and unwrapper, a tenth of a quickstart run's
    # start-up) is imported by the first shell call: a session of file tools never loads it.
    from seamhost_tool_policy.environment import ShellEnvironment

    cwd = arguments.get("cwd")
    directory = _absolute(workspace, cwd if isinstance(cwd, str) else ".")
    found = _analysis(arguments, ShellEnvironment.of(directory, environ))
    if found is None:
        return None
    placed = tuple(attrs.evolve(c, directory=directory) for c in found.commands)
    return attrs.evolve(found, commands=placed)


_SHELL_KEYS = ("command", "argv")


def _script(arguments: Mapping[str, Any], key: str) -> str | list[str] | tuple[str, ...] | None:
    """The shell script (``command`` only) or argv (either key) of argument `key`, or None."""
    value = arguments.get(key)
    if isinstance(value, str) and key == "command":
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return value
    return None


def _analysis(arguments: Mapping[str, Any], environment: ShellEnvironment) -> Analysis | None:
    from seamhost_tool_policy.unwrap import Analysis, analyse_argv, analyse_script

    analyses = []
    for key in _SHELL_KEYS:
        value = _script(arguments, key)
        if isinstance(value, str):
            analyses.append(analyse_script(value, environment))
        elif value is not None:
            analyses.append(analyse_argv(value, environment))
    if not analyses:
        return None
    if len(analyses) == 1:
        return analyses[0]
    first, second = analyses
    return Analysis(
        tuple(dict.fromkeys((*first.commands, *second.commands))),
        tuple(dict.fromkeys((*first.unsure, *second.unsure))),
        f"{first.raw}\n{second.raw}",
        first.truncated or second.truncated,
        tuple(dict.fromkeys((*first.redirects, *second.redirects))),
    )


def _places(
    workspace: Path, arguments: Mapping[str, Any], shell: Analysis | None
) -> tuple[Place, ...]:
    path, cwd = arguments.get("path"), arguments.get("cwd")
    if isinstance(path, str):
        own = _forms(workspace, path, is_path=True)
    elif isinstance(cwd, str):
        own = _forms(workspace, cwd, is_path=False)
    else:
        own = _forms(workspace, ".", is_path=False) if shell is not None else ()
    if shell is None:
        return own
    base = cwd if isinstance(cwd, str) else "."
    targets = (_target(workspace, base, written) for written in shell.redirects)
    return tuple(dict.fromkeys(itertools.chain(own, *targets)))


def _target(workspace: Path, base: str, written: str) -> tuple[Place, ...]:
    """The places of one redirection target, relative to `base` (the call's directory)."""
    if UNKNOWN in written:
        return (Place(written, inside=False, is_path=True, redirect=True),)
    value = os.path.join(base, written)
    if STREAMS.fullmatch(_absolute(workspace, value)):
        return ()
    return _forms(workspace, value, is_path=True, redirect=True)


def _absolute(workspace: Path, value: str) -> str:
    """`value` made absolute against `workspace`, ``..`` and repeated slashes resolved."""
    # normpath keeps exactly two leading slashes (POSIX leaves them to the system); Linux reads
    # them as one, and so must the globs (`//etc/x` is `/etc/x`).
    normal = os.path.normpath(os.path.join(os.path.abspath(workspace), value))
    return normal[1:] if normal.startswith("//") else normal


def _forms(
    workspace: Path, value: str, *, is_path: bool, redirect: bool = False
) -> tuple[Place, ...]:
    root = Path(_absolute(workspace, "."))
    pairs = [(Path(_absolute(workspace, value)), root)]
    # An embedded NUL cannot be resolved: the written form is then all there is.
    with contextlib.suppress(OSError, ValueError):
        pairs.append((Path(os.path.realpath(root / value)), Path(os.path.realpath(root))))
    places = []
    for target, base in pairs:
        inside = target == base or base in target.parents
        text = target.relative_to(base).as_posix() if inside else target.as_posix()
        places.append(Place(text, inside, is_path, redirect))
    return tuple(dict.fromkeys(places))


def _values(arguments: Mapping[str, Any], name: str) -> tuple[str | None, ...]:
    if name not in arguments:
        return (None,)
    value = arguments[name]
    if isinstance(value, (list, tuple)):
        return tuple(jsonvalue.as_text(item) for item in value) or (None,)
    return (jsonvalue.as_text(value),)
