"""What a tool call shows the rules: its commands, where it acts, and its argument values.

A call is a *shell call* when its arguments hold a ``command`` string (run as ``bash -c``) or a
``command``/``argv`` list of strings (run directly); its commands are then those of
:mod:`seamhost_tool_policy.unwrap`. Where it acts is the ``path`` argument, else the ``cwd``
argument, else, for a shell call, the workspace; relative paths are relative to the workspace
(``~`` is an ordinary name, as for the file tools). Each is looked at twice: as written with
``..`` resolved, and with symlinks followed, so a link out of the workspace is outside.

A call may thus show several commands, places and (for list arguments) values. Each combination
is a :class:`Subject` that the rules judge on its own; the call gets the most restrictive
outcome.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from seamhost import jsonvalue
from seamhost_tool_policy.unwrap import Analysis, Command, analyse_argv, analyse_script

if TYPE_CHECKING:
    from seamhost.tools import ToolInvocation


@attrs.frozen
class Place:
    """Where a call acts: `text` is relative to the workspace inside it, absolute outside."""

    text: str
    inside: bool
    is_path: bool  # the `path` argument (path globs apply), not `cwd` or the workspace


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
        shell = _shell(arguments)
        return cls(
            tool=call.tool.spec.name,
            effect=call.tool.spec.effect,
            shell=shell,
            places=_places(call.workspace, arguments, shell=shell is not None),
            values={name: _values(arguments, name) for name in argument_names},
        )

    @property
    def commands(self) -> tuple[Command, ...] | None:
        """The commands of a shell call (at least one: an empty line is ``""``), else None."""
        if self.shell is None:
            return None
        return self.shell.commands or (Command(""),)

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


def _shell(arguments: Mapping[str, Any]) -> Analysis | None:
    analyses = []
    for key in ("command", "argv"):
        value = arguments.get(key)
        if isinstance(value, str) and key == "command":
            analyses.append(analyse_script(value))
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            analyses.append(analyse_argv(value))
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
    )


def _places(workspace: Path, arguments: Mapping[str, Any], *, shell: bool) -> tuple[Place, ...]:
    path, cwd = arguments.get("path"), arguments.get("cwd")
    if isinstance(path, str):
        return _forms(workspace, path, is_path=True)
    if isinstance(cwd, str):
        return _forms(workspace, cwd, is_path=False)
    return _forms(workspace, ".", is_path=False) if shell else ()


def _forms(workspace: Path, value: str, *, is_path: bool) -> tuple[Place, ...]:
    root = Path(os.path.normpath(os.path.abspath(workspace)))
    pairs = [(Path(os.path.normpath(root / value)), root)]
    # An embedded NUL cannot be resolved: the written form is then all there is.
    with contextlib.suppress(OSError, ValueError):
        pairs.append((Path(os.path.realpath(root / value)), Path(os.path.realpath(root))))
    places = []
    for target, base in pairs:
        inside = target == base or base in target.parents
        text = target.relative_to(base).as_posix() if inside else target.as_posix()
        places.append(Place(text, inside, is_path))
    return tuple(dict.fromkeys(places))


def _values(arguments: Mapping[str, Any], name: str) -> tuple[str | None, ...]:
    if name not in arguments:
        return (None,)
    value = arguments[name]
    if isinstance(value, (list, tuple)):
        return tuple(jsonvalue.as_text(item) for item in value) or (None,)
    return (jsonvalue.as_text(value),)
