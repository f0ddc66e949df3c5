"""What a shell call runs: every command a rule must see, wrappers unwrapped.

:func:`analyse_script` (a ``bash -c`` string) and :func:`analyse_argv` (an argv list) return the
commands a rule's ``command`` glob is matched against, each as its words joined by single
spaces:

* every simple command of the line (:mod:`seamhost_tool_policy.splitter`);
* the same command without its leading ``NAME=value`` assignments, and with its program's
  directory dropped (``/bin/rm -rf /`` is also ``rm -rf /``);
* the command a wrapper runs, recursively, next to the wrapper itself:

  - shells: ``bash``/``sh``/``zsh``/``dash``/``ksh`` ... ``-c STRING`` (split again), ``su``/
    ``script``/``runuser`` ``-c STRING``, ``flock FILE -c STRING``, ``env -S STRING``,
    ``watch WORDS`` (run by ``sh -c``);
  - argv wrappers: ``env [OPTIONS] [NAME=value...]``, ``sudo``, ``doas``, ``runuser -u USER``,
    ``nohup``, ``setsid``, ``timeout DURATION``, ``nice``, ``ionice``, ``stdbuf``,
    ``chroot DIR``, ``taskset MASK``, ``flock FILE``, ``exec``, ``command``, ``builtin``,
    ``time``, ``busybox``;
  - ``xargs`` (its input becomes words known only at run time, and so does its ``-I`` replace
    string) and ``find -exec/-execdir/-ok/-okdir ... ;`` (``{}`` likewise).

  A wrapper option this module does not know makes the call unsure, and the commands that may
  follow it are all checked.

:attr:`Analysis.redirects` holds the target of every file redirection the call makes
(:attr:`seamhost_tool_policy.splitter.Split.redirects`): in the line, and in every script a
wrapper runs (a redirection written after a wrapper, as in ``sudo cmd >file``, is the outer
shell's and part of the line). Where a relative target points depends on the directory it is
opened in, which the line may change: after ``cd``, ``pushd`` or ``popd`` anywhere in the call
(a ``cd`` reaches every later command of its shell, loops and functions included, so every
relative target of the call counts), and inside a wrapper that runs its command elsewhere
(``env -C``, ``sudo -D``/``-i``, ``su -``/``-l``, ``runuser -l``, ``find -execdir``/``-okdir``,
a wrapper whose options are not understood), such a target is prefixed with
:data:`~seamhost_tool_policy.splitter.UNKNOWN` (``…/out.log``: it may be anywhere). Inside
``chroot`` and ``sudo -R`` absolute targets are too.

Unsure, on top of what the splitter cannot follow: ``eval`` and ``trap`` (their text is split as
well, so a floor still sees it), ``source`` and ``.``, ``alias``, ``let``; a program whose name
is only known at run time (``$cmd``); a shell that reads its commands from its input
(``curl ... | sh``, ``su`` or ``sudo -s`` without a command; a here-document fed to it is split
as well); setting a variable whose value a shell runs as code (``BASH_ENV``, ``ENV``,
``PS1``-``PS4``, ``PROMPT_COMMAND``, ``SHELLOPTS``, ``BASHOPTS``, ``BASH_FUNC_*``); array
subscripts and ``-i`` in ``declare``/``typeset``/``local``/``export``/``readonly``/``read``/
``printf -v``/``unset`` and callbacks in ``mapfile -C`` (bash evaluates them as arithmetic, which
may run commands); nesting deeper than :data:`~seamhost_tool_policy.splitter.MAX_DEPTH`
(:attr:`Analysis.truncated`).

A command line says what it runs, not what a program does: a copied or renamed program, a script
file run by name (``bash build.sh``), or a program that runs code of its own (``python -c``,
``ssh host CMD``, ``make``, a git alias) is judged by the words written. The sandbox is what
confines effects; these rules decide what is proposed.

Given the environment the call's shell starts with (:mod:`.environment`), ``~``, ``~name``,
``$HOME``, ``$PWD`` and ``$OLDPWD`` are resolved as bash will resolve them, in the words, the
redirection targets and the scripts wrappers run; each variable the call may set (an assignment,
``read``, ``for``, ``cd`` for ``PWD``, anything that sets variables it does not name) is read as
unknown everywhere in the call, and so is every variable inside a wrapper that may change the
environment (``env``, ``sudo``, ``su``, a login shell ...). Without an environment they are all
unknown. Each command is also recorded as spelt, the expansions unknown, for command globs.

This module holds the entry points and what they return; the walk is :mod:`.analyser`'s, the
handler of each wrapper is found through :mod:`.handlers`.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence

import attrs

from seamhost_tool_policy.analyser import Analyser
from seamhost_tool_policy.environment import ShellEnvironment
from seamhost_tool_policy.structure import Command


@attrs.frozen
class Analysis:
    """The commands of a shell call, why the analysis is unsure (empty: it is not), its text.

    `truncated` says the nesting limit was hit: some commands may not be listed at all.
    `redirects` holds the targets of the call's file redirections, each once, in order, with
    :data:`~seamhost_tool_policy.splitter.UNKNOWN` marking what only the run will tell (see the
    module docstring).
    """

    commands: tuple[Command, ...]
    unsure: tuple[str, ...]
    raw: str
    truncated: bool = False
    redirects: tuple[str, ...] = ()


def analyse_script(text: str, environment: ShellEnvironment | None = None) -> Analysis:
    """The commands ``bash -c text`` would run, started with `environment` (None: unknown)."""
    analyser = _walk(lambda an: an.script(text, 0), environment)
    return _analysis(analyser, text)


def analyse_argv(argv: Sequence[str], environment: ShellEnvironment | None = None) -> Analysis:
    """The commands running `argv` directly (no shell) would run."""
    analyser = _walk(lambda an: an.argv(tuple(argv), 0), environment)
    return _analysis(analyser, shlex.join(argv))


def _walk(start: Callable[[Analyser], None], environment: ShellEnvironment | None) -> Analyser:
    """The walk that read no variable as pinned that the call may set.

    Each reading that used a variable the call may set is done again with it unknown; the
    readings only grow more cautious, so this ends (at most once per pinnable variable).
    """
    unpinned: frozenset[str] = frozenset()
    while True:
        analyser = Analyser(environment, unpinned)
        start(analyser)
        changed = analyser.changed() & analyser.consulted
        if changed <= unpinned:
            return analyser
        unpinned |= changed


def _analysis(analyser: Analyser, raw: str) -> Analysis:
    commands = tuple(analyser.commands.values())
    unsure = tuple(dict.fromkeys(analyser.unsure))
    return Analysis(commands, unsure, raw, analyser.truncated, analyser.targets())
