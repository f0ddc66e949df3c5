"""The environment a shell call's ``bash`` starts in, as far as its expansions read it.

The shell tool runs ``bash -c COMMAND`` (or an argv) with the seamhost process's own environment,
in the call's directory (the workspace, or its ``cwd`` argument), confined or not: the sandbox
changes which files the command may touch, not the text of its variables. So the values the
floors resolve ``~``, ``$HOME``, ``$PWD`` and ``$OLDPWD`` with are those bash will have there:

* ``HOME`` as the process has it; when it is unset, ``~`` is the home directory the password
  database gives the process's user and ``$HOME`` is empty; ``~name`` is ``name``'s home from the
  password database (as written when there is no such user, as bash leaves it);
* ``PWD`` as bash sets it at start: the inherited ``PWD`` when it names the call's directory,
  else the directory with its links followed (``getcwd``);
* ``OLDPWD`` the inherited one when it names a directory, else empty (bash unsets it);
* ``CDPATH``, when set, makes a ``cd`` to a relative name go to a place only the run knows;
* ``BASH_ENV`` (a file bash runs before the command) makes every variable unknown.

A value only pins what the call cannot change: :mod:`.analyser` reads the call again with a
variable unknown when the call may set it (see :func:`changed_variables`).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
from collections.abc import Mapping

import attrs

PINNABLE = frozenset({"HOME", "PWD", "OLDPWD", "IFS", "CDPATH"})
"""The variables whose environment values the resolution reads (IFS: to split a bare value)."""

_HARMLESS = ("command substitution", "process substitution", "a here-document", "a here-string")
"""What a split may be unsure about without any variable of the shell being set by it: the
substitutions run in subshells, and here-documents are text."""


@attrs.frozen
class ShellEnvironment:
    """What a call's shell starts with: see the module docstring."""

    directory: str  # PWD
    home: str | None  # None: unset
    oldpwd: str = ""
    cdpath: bool = False
    startup: bool = False  # BASH_ENV names a file bash runs first

    @classmethod
    def of(cls, directory: str, environ: Mapping[str, str]) -> ShellEnvironment:
        """The environment bash has in `directory` (absolute) when started with `environ`."""
        pwd_value = os.path.realpath(directory)
        inherited = environ.get("PWD", "")
        with contextlib.suppress(OSError, ValueError):
            if inherited.startswith("/") and os.path.samefile(inherited, directory):
                pwd_value = inherited
        oldpwd = environ.get("OLDPWD", "")
        with contextlib.suppress(OSError, ValueError):
            oldpwd = oldpwd if os.path.isdir(oldpwd) else ""
        return cls(
            directory=pwd_value,
            home=environ.get("HOME"),
            oldpwd=oldpwd,
            cdpath=bool(environ.get("CDPATH")),
            startup=bool(environ.get("BASH_ENV")),
        )

    @property
    def tilde(self) -> str | None:
        """What ``~`` expands to (None: nobody can say)."""
        if self.home is not None:
            return self.home
        return user_home(pwd_uid=os.getuid())

    def value(self, name: str) -> str:
        """The value of the variable `name` (one of HOME, PWD, OLDPWD), "" when unset."""
        return {"HOME": self.home or "", "PWD": self.directory, "OLDPWD": self.oldpwd}[name]


def user_home(name: str = "", *, pwd_uid: int | None = None) -> str | None:
    """The home directory of the user `name` (or with uid `pwd_uid`); None when there is none."""
    try:
        entry = pwd.getpwuid(pwd_uid) if pwd_uid is not None else pwd.getpwnam(name)
    except (KeyError, ValueError):
        return None
    return entry.pw_dir


_NAMES = "|".join(sorted(PINNABLE))
_MENTION = re.compile(rf"(\$\{{|\$)?(?<![A-Za-z0-9_])({_NAMES})(?![A-Za-z0-9_])(\}})?")
"""A pinnable variable's name as a whole word, with what may make it a plain read around it."""


def changed_variables(text: str) -> frozenset[str]:
    """The pinnable variables that shell code `text` may set, judged by its text alone.

    A name written other than as a plain read (``$HOME``, ``${HOME}``) may be set there: an
    assignment, ``read``, ``for``, ``export``, ``${HOME:=...}``, ``unset`` ... and an indirect
    expansion (``${!name...}``) may set any.
    """
    if "${!" in text:
        return PINNABLE
    changed = set()
    for found in _MENTION.finditer(text):
        opener, name, closer = found.groups()
        if not (opener == "$" or (opener == "${" and closer)):
            changed.add(name)
    return frozenset(changed)


def sets_unknown_variables(unsure: tuple[str, ...] | list[str]) -> bool:
    """Whether an analysis unsure for these reasons may have set variables it cannot name
    (``eval``, ``source``, arithmetic, a program only known at run time ...): all but the
    reasons known to set none."""
    return any(not reason.startswith(_HARMLESS) for reason in unsure)
