"""The marks the shell analysis puts where a command holds text only the shell will know.

:data:`UNKNOWN` is the glob dialect's own mark (:data:`seamhost.globs.UNKNOWN`), so the globs of
the rules read the commands the analysis writes: any text, ``/`` and ``..`` included.

The others only pass from the lexer (:mod:`.shellwords`) to the analyser (:mod:`.analyser`),
which replaces each (:mod:`.resolution`) before any rule sees a word: by the value the shell
will give it where the call's environment pins it (:mod:`.environment`), else by
:data:`UNKNOWN`. :data:`GLOB` is a file-name pattern's stretch, which stays within one path
segment; the rest stand for the expansions whose value the environment may pin: ``~`` (HOME,
or the user's home from the password database when HOME is unset), ``$HOME``, ``$PWD``,
``$OLDPWD`` (quoted or bare: a bare value is split into words and globbed) and ``~name``,
written as :data:`USER_TILDE`, the name, :data:`USER_END`. Text of the call holding one of these
characters itself is read as :data:`UNKNOWN`, so no call can forge them.
"""

from __future__ import annotations

import re

from seamhost.globs import UNKNOWN

GLOB = "\ue001"
TILDE = "\ue002"
HOME_QUOTED = "\ue003"
HOME_BARE = "\ue004"
PWD_QUOTED = "\ue005"
PWD_BARE = "\ue006"
OLDPWD_QUOTED = "\ue007"
OLDPWD_BARE = "\ue008"
USER_TILDE = "\ue009"
USER_END = "\ue00a"

VARIABLES = {
    "HOME": (HOME_QUOTED, HOME_BARE),
    "PWD": (PWD_QUOTED, PWD_BARE),
    "OLDPWD": (OLDPWD_QUOTED, OLDPWD_BARE),
}
"""The marks of each variable whose value the environment may pin: (quoted, bare)."""

SYMBOLS = frozenset(
    {GLOB, TILDE, HOME_QUOTED, HOME_BARE, PWD_QUOTED, PWD_BARE, OLDPWD_QUOTED, OLDPWD_BARE}
    | {USER_TILDE, USER_END}
)
"""Every mark but :data:`UNKNOWN`: what only the lexer may write."""

MARK = re.compile(f"{USER_TILDE}([^{USER_END}]*){USER_END}|[{''.join(sorted(SYMBOLS))}]")
"""One mark in a word: a ``~name`` (the name is group 1) or one of the other :data:`SYMBOLS`."""


def merge_unknowns(text: str) -> str:
    """`text` with each run of :data:`UNKNOWN` read as one: one already stands for any text."""
    while UNKNOWN * 2 in text:
        text = text.replace(UNKNOWN * 2, UNKNOWN)
    return text


__all__ = [
    "GLOB",
    "MARK",
    "SYMBOLS",
    "UNKNOWN",
    "USER_END",
    "USER_TILDE",
    "VARIABLES",
    "merge_unknowns",
]
