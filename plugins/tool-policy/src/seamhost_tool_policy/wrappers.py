"""The handlers of wrappers: programs and builtins that run a command they are given.

Each handler reads one wrapper's words (name first, without its directory) and hands the
command it runs back to the :class:`~.analyser.Analyser`: an argv (``sudo``, ``env``,
``timeout``, ``xargs``, ``find -exec`` ...) to :meth:`~.analyser.Analyser.argv`, shell code
(``bash -c``, ``su -c``, ``flock -c``, ``env -S``, ``watch``) to
:meth:`~.analyser.Analyser.script`, each one level deeper. Where a wrapper runs its command in
another directory or root, that command is read :meth:`~.analyser.Analyser.elsewhere`. The
options each wrapper takes are data, in :mod:`.wrapper_options`; which program is read by which
handler is :mod:`.handlers`'.
"""

from __future__ import annotations

import contextlib
import shlex
from typing import TYPE_CHECKING

from seamhost_tool_policy import wrapper_options
from seamhost_tool_policy.marks import UNKNOWN
from seamhost_tool_policy.options import Options, Parsed, parse

if TYPE_CHECKING:
    from seamhost_tool_policy.walk import Handler, Walk


def _relocated(
    an: Walk, options: Options, parsed: Parsed, *, reroots: bool = False
) -> contextlib.AbstractContextManager[None]:
    """Read what a wrapper runs in the directory and root its options give it."""
    return an.elsewhere(
        moved=not options.moves.isdisjoint(parsed.values),
        rerooted=reroots or not options.reroots.isdisjoint(parsed.values),
    )


def wrapper(
    options: Options, *, leading: int = 0, assignments: bool = False, reroots: bool = False
) -> Handler:
    """A wrapper ``NAME [OPTIONS] [NAME=value...] [LEADING OPERANDS] COMMAND...``.

    `reroots`: it always runs the command under another root directory (``chroot``).
    """

    def handle(an: Walk, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
        parsed = parse(words, options)
        with _relocated(an, options, parsed, reroots=reroots):
            if an.wrapped(words, parsed, depth):
                return
            index = parsed.operands
            while assignments and index < len(words) and "=" in words[index]:
                an.assignment(words[index])
                index += 1
            an.argv(words[index + leading :], depth + 1)

    return handle


def env(an: Walk, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
    """``env [OPTIONS] [NAME=value...] COMMAND...``; ``-S STRING`` is read as a script."""
    parsed = parse(words, wrapper_options.ENV)
    if an.wrapped(words, parsed, depth):
        return
    index = parsed.operands
    while index < len(words) and (words[index] == "-" or "=" in words[index]):
        an.assignment(words[index])
        index += 1
    script = parsed.values.get("-S", parsed.values.get("--split-string"))
    with _relocated(an, wrapper_options.ENV, parsed):
        if script is not None:
            an.script(" ".join((script, shlex.join(words[index:]))), depth + 1)
        else:
            an.argv(words[index:], depth + 1)


def privileged(options: Options, *, assignments: bool) -> Handler:
    """``sudo``/``doas``: a command, or with ``-s``/``-i`` and none, a shell reading its input."""
    command = wrapper(options, assignments=assignments)

    def handle(an: Walk, words: tuple[str, ...], depth: int, stdin: tuple[str, ...]) -> None:
        parsed = parse(words, options)
        if "-e" in parsed.values or "--edit" in parsed.values:
            return  # sudoedit: the operands are files to edit
        shell = {"-s", "-i", "--shell", "--login"} & parsed.values.keys()
        if shell and parsed.unknown is None and parsed.operands >= len(words):
            with _relocated(an, options, parsed):
                an.interactive(f"{words[0]} {min(shell)}", depth, stdin)
        command(an, words, depth, stdin)

    return handle


def xargs(an: Walk, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
    """``xargs [OPTIONS] COMMAND...``: its input adds words known only at run time."""
    parsed = parse(words, wrapper_options.XARGS)
    if an.wrapped(words, parsed, depth, tail=(UNKNOWN,)):
        return
    command = words[parsed.operands :]
    replace = parsed.values.get("-I") or parsed.values.get("-i") or parsed.values.get("--replace")
    if replace is None and ("-i" in parsed.values or "--replace" in parsed.values):
        replace = "{}"
    if replace:
        an.argv(tuple(w.replace(replace, UNKNOWN) for w in command), depth + 1)
    elif command:
        an.argv((*command, UNKNOWN), depth + 1)  # the input lines become more arguments


def find(an: Walk, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
    """``find ... -exec COMMAND... ;`` (or ``+``, ``-execdir``, ``-ok``, ``-okdir``)."""
    index = 1
    while index < len(words):
        if words[index] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(words) and words[end] not in (";", "+"):
                end += 1
            command = tuple(w.replace("{}", UNKNOWN) for w in words[index + 1 : end])
            # -execdir and -okdir run it in the directory of each file found
            with an.elsewhere(moved=words[index].endswith("dir")):
                an.argv(command, depth + 1)
            index = end
        index += 1


def _command_string(words: tuple[str, ...]) -> str | None:
    """The shell code given as ``-c CODE`` or ``--command[=]CODE`` anywhere in `words`."""
    for index, word in enumerate(words[1:], start=1):
        following = words[index + 1] if index + 1 < len(words) else None
        if word == "--":
            return None  # what follows is a command's own words
        if word in ("--command", "--session-command"):
            return following
        if word.startswith(("--command=", "--session-command=")):
            return word.partition("=")[2]
        if word.startswith("-") and not word.startswith("--") and "c" in word:
            glued = word[word.index("c") + 1 :]  # -c CODE, -qc CODE, -cCODE
            return glued or following
    return None


def _login(words: tuple[str, ...]) -> bool:
    """Whether ``su``/``runuser`` options ask for a login shell, which starts in a home directory.

    Read loosely (any ``-`` cluster with an ``l`` before a ``c``): a false yes only makes the
    relative redirection targets of what it runs unknown.
    """
    return any(
        word in ("-", "--login")
        or (word.startswith("-") and not word.startswith("--") and "l" in word.partition("c")[0])
        for word in words[1:]
    )


_flock_command = wrapper(wrapper_options.FLOCK, leading=1)
_runuser_command = wrapper(wrapper_options.RUNUSER)


def su(an: Walk, words: tuple[str, ...], depth: int, stdin: tuple[str, ...]) -> None:
    """``su``, ``script`` and ``runuser`` run ``-c CODE`` through a shell."""
    code = _command_string(words)
    as_user = words[0] == "runuser" and (
        "-u" in words or any(w.startswith("--user") for w in words)
    )
    with an.elsewhere(moved=words[0] != "script" and _login(words)):
        if code is not None:
            an.script(code, depth + 1)
        if as_user:  # runuser -u USER COMMAND...: a -c may be the command's own (git -c k=v)
            _runuser_command(an, words, depth, stdin)
        elif code is None:
            an.interactive(words[0], depth, stdin)


def flock(an: Walk, words: tuple[str, ...], depth: int, stdin: tuple[str, ...]) -> None:
    """``flock [OPTIONS] FILE -c CODE`` runs a script, ``flock FILE COMMAND...`` an argv."""
    parsed = parse(words, wrapper_options.FLOCK)
    script = parsed.values.get("-c", parsed.values.get("--command"))
    after = words[parsed.operands + 1 : parsed.operands + 3]  # flock FILE -c COMMAND
    if script is None and len(after) == 2 and after[0] in ("-c", "--command"):
        script = after[1]
    if script is not None and parsed.unknown is None:
        an.script(script, depth + 1)
    else:
        _flock_command(an, words, depth, stdin)


def watch(an: Walk, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
    """``watch [OPTIONS] COMMAND...``: a script, or with ``-x`` an argv."""
    parsed = parse(words, wrapper_options.WATCH)
    if an.wrapped(words, parsed, depth):
        return
    command = words[parsed.operands :]
    if "-x" in parsed.values or "--exec" in parsed.values:
        an.argv(command, depth + 1)
    elif command:
        an.script(" ".join(command), depth + 1)  # watch hands its words to sh -c


def shell(an: Walk, words: tuple[str, ...], depth: int, stdin: tuple[str, ...]) -> None:
    """``bash``, ``sh`` ...: ``-c CODE`` is a script; without one, or with ``-s``/``-i``, input."""
    command_mode = reads_input = False
    index = 1
    while index < len(words):
        word = words[index]
        if word in ("-", "--"):
            index += 1
            break
        if word.startswith("--"):
            index += 2 if word in ("--rcfile", "--init-file") else 1
            continue
        if len(word) < 2 or word[0] not in "-+":
            break
        letters = word[1:]
        command_mode |= word[0] == "-" and "c" in letters
        reads_input |= word[0] == "-" and ("s" in letters or "i" in letters)
        index += 2 if ("o" in letters or "O" in letters) else 1
    operands = words[index:]
    if command_mode:
        if operands:
            an.script(operands[0], depth + 1)
    elif reads_input or not operands:
        an.interactive(words[0], depth, stdin)
