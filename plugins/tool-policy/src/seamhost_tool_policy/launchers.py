"""Handlers of the wrappers that launch a command in a changed process context.

``unshare``, ``nsenter``, ``fakeroot`` and ``systemd-run`` run a shell reading its input when
given no command; ``strace``, ``chrt`` and ``prlimit`` act on a running process with ``-p``
(then they run nothing); ``chrt`` takes a priority before its command; ``setpriv`` always runs
one; ``parallel`` runs its command words as shell code once per input (``{}`` and the other
replacement strings become text only known at run time) and, given none, the commands of its
input. Their options are data, in :mod:`.wrapper_options`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from seamhost_tool_policy import wrapper_options
from seamhost_tool_policy.marks import UNKNOWN
from seamhost_tool_policy.options import Options, parse
from seamhost_tool_policy.wrappers import wrapper

if TYPE_CHECKING:
    from seamhost_tool_policy.walk import Handler, Walk

_PIDS = frozenset({"-p", "--pid", "--attach"})
_REPLACEMENTS = re.compile(r"\{[^{}\s]*\}")
_SOURCES = frozenset({":::", "::::", ":::+", "::::+"})


def launcher(options: Options, *, leading: int = 0, shell: bool = False) -> Handler:
    """A wrapper that, without a command, runs nothing (or with `shell`, a shell on its input)."""
    command = wrapper(options, leading=leading)

    def handle(an: Walk, words: tuple[str, ...], depth: int, stdin: tuple[str, ...]) -> None:
        parsed = parse(words, options)
        if parsed.unknown is None and not _PIDS.isdisjoint(parsed.values):
            return  # acts on a running process
        if parsed.unknown is None and parsed.operands + leading >= len(words):
            if shell or {"-S", "--shell"} & parsed.values.keys():
                an.interactive(words[0], depth, stdin)
            return
        command(an, words, depth, stdin)

    return handle


def parallel(an: Walk, words: tuple[str, ...], depth: int, stdin: tuple[str, ...]) -> None:
    """``parallel [OPTIONS] COMMAND... ::: ARGS``: COMMAND is shell code, run once per input."""
    parsed = parse(words, wrapper_options.PARALLEL)
    if an.wrapped(words, parsed, depth, tail=(UNKNOWN,)):
        return
    rest = words[parsed.operands :]
    end = next((i for i, word in enumerate(rest) if word in _SOURCES), len(rest))
    if not rest[:end]:
        an.opaque("parallel runs the commands of its input")
        return
    code = " ".join(_REPLACEMENTS.sub(UNKNOWN, word) for word in rest[:end])
    with an.elsewhere(
        moved="--workdir" in parsed.values,
        rerooted=bool({"-S", "--sshlogin"} & parsed.values.keys()),
    ):
        an.script(f"{code} {UNKNOWN}", depth + 1)  # the input is appended when no {} is given
