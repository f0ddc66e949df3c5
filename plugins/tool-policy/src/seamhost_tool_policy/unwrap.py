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
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Callable, Iterator, Sequence

import attrs

from seamhost_tool_policy.splitter import MAX_DEPTH, UNKNOWN, split

_SHELLS = frozenset({"sh", "bash", "rbash", "dash", "zsh", "ksh", "mksh", "lksh", "ash", "yash"})
_CODE_VARIABLES = frozenset(
    {"BASH_ENV", "ENV", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS"}
)


@attrs.frozen
class Command:
    """One command a rule is matched against: words joined by single spaces."""

    text: str

    @property
    def display(self) -> str:
        """The command for people: run-time text shown as ``…``."""
        return self.text.replace(UNKNOWN, "…")


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


def analyse_script(text: str) -> Analysis:
    """The commands ``bash -c text`` would run."""
    analyser = _Analyser()
    analyser.script(text, 0)
    return analyser.result(text)


def analyse_argv(argv: Sequence[str]) -> Analysis:
    """The commands running `argv` directly (no shell) would run."""
    analyser = _Analyser()
    analyser.argv(tuple(argv), 0)
    return analyser.result(shlex.join(argv))


# --------------------------------------------------------------------------------------------
# wrapper options
# --------------------------------------------------------------------------------------------


@attrs.frozen
class _Options:
    """A wrapper's options, as getopt would read them."""

    flags: str = ""  # short options without a value
    valued: str = ""  # short options with a value, glued (-n5) or next (-n 5)
    glued: str = ""  # short options whose optional value can only be glued (xargs -i)
    long_flags: frozenset[str] = frozenset()  # also those whose optional value needs "="
    long_valued: frozenset[str] = frozenset()
    numeric: bool = False  # "-N" is an option (nice -10)
    moves: frozenset[str] = frozenset()  # options that run the command in another directory
    reroots: frozenset[str] = frozenset()  # options that run it under another root directory


@attrs.frozen
class _Scope:
    """Where the commands being read run, as far as their relative and absolute paths go."""

    moved: bool = False  # maybe in another directory than the call's
    rerooted: bool = False  # maybe under another root directory


@attrs.frozen
class _Parsed:
    operands: int  # the index of the first operand
    values: dict[str, str]
    unknown: str | None  # the first option not understood


def _parse(words: tuple[str, ...], options: _Options) -> _Parsed:
    values: dict[str, str] = {}
    index = 1
    while index < len(words):
        word = words[index]
        if word == "--":
            return _Parsed(index + 1, values, None)
        if word.startswith("--"):
            name, equals, value = word.partition("=")
            if name in options.long_flags or (name in options.long_valued and equals):
                values[name] = value
                index += 1
            elif name in options.long_valued:
                values[name] = words[index + 1] if index + 1 < len(words) else ""
                index += 2
            else:
                return _Parsed(index, values, word)
            continue
        if not word.startswith("-") or word == "-":
            break
        if options.numeric and word[1:].isdigit():
            index += 1
            continue
        step = 1
        for position, letter in enumerate(word[1:], start=2):
            if letter in options.flags:
                values["-" + letter] = ""
            elif letter in options.glued:
                values["-" + letter] = word[position:]
                break
            elif letter in options.valued:
                if position < len(word):
                    values["-" + letter] = word[position:]
                else:
                    values["-" + letter] = words[index + 1] if index + 1 < len(words) else ""
                    step = 2
                break
            else:
                return _Parsed(index, values, word)
        index += step
    return _Parsed(index, values, None)


# --------------------------------------------------------------------------------------------
# the analyser
# --------------------------------------------------------------------------------------------


Handler = Callable[["_Analyser", tuple[str, ...], int, tuple[str, ...]], None]


class _Analyser:
    def __init__(self) -> None:
        self.commands: dict[str, Command] = {}
        self.unsure: list[str] = []
        self.truncated = False
        self.redirects: list[tuple[str, _Scope]] = []
        self.scope = _Scope()  # of the commands being read
        self.changes_directory = False  # a cd, pushd or popd anywhere in the call
        # Each argv is followed once: wrappers whose options are not understood try several
        # starting points, and without this their combinations would grow exponentially.
        # Where it runs is part of it: the same argv elsewhere opens other files.
        self._followed: set[tuple[tuple[str, ...], _Scope]] = set()

    def result(self, raw: str) -> Analysis:
        unsure = tuple(dict.fromkeys(self.unsure))
        redirects = tuple(dict.fromkeys(self.target(*found) for found in self.redirects))
        return Analysis(tuple(self.commands.values()), unsure, raw, self.truncated, redirects)

    def target(self, written: str, scope: _Scope) -> str:
        """A redirection target as the call shows it, marked unknown where it may point."""
        if written.startswith("/"):
            return UNKNOWN + written if scope.rerooted else written
        unknown = scope.moved or scope.rerooted or self.changes_directory
        return f"{UNKNOWN}/{written}" if unknown else written

    @contextlib.contextmanager
    def elsewhere(self, *, moved: bool = False, rerooted: bool = False) -> Iterator[None]:
        """Read the commands of the block as run in another directory and/or root."""
        saved = self.scope
        self.scope = _Scope(saved.moved or moved, saved.rerooted or rerooted)
        try:
            yield
        finally:
            self.scope = saved

    def emit(self, words: Sequence[str]) -> None:
        text = " ".join(words)
        self.commands.setdefault(text, Command(text))

    def too_deep(self, depth: int) -> bool:
        if depth <= MAX_DEPTH:
            return False
        self.unsure.append(f"nesting deeper than {MAX_DEPTH} levels")
        self.truncated = True
        return True

    def script(self, text: str, depth: int) -> None:
        if self.too_deep(depth):
            return
        found = split(text)
        self.unsure.extend(found.unsure)
        self.truncated |= found.truncated
        self.redirects.extend((target, self.scope) for target in found.redirects)
        for command in found.commands:
            self.emit(command.words)
            for word in command.words[: command.assignments]:
                self.assignment(word)
            self.argv(command.words[command.assignments :], depth, command.stdin)

    def argv(self, words: tuple[str, ...], depth: int, stdin: tuple[str, ...] = ()) -> None:
        if not words or (words, self.scope) in self._followed:
            return
        self._followed.add((words, self.scope))
        if self.too_deep(depth):
            return
        self.emit(words)
        name = words[0].rsplit("/", 1)[-1]
        if UNKNOWN in name or not name:
            self.unsure.append("the program to run is only known at run time")
            return
        if name != words[0]:
            self.emit((name, *words[1:]))
        handler = _HANDLERS.get(name)
        if handler is None and name in _SHELLS:
            handler = _shell
        if handler is not None:
            handler(self, (name, *words[1:]), depth, stdin)

    def interactive(self, program: str, depth: int, stdin: tuple[str, ...]) -> None:
        """A shell that reads its commands from its input: what it is fed, if the line shows it."""
        if not stdin:
            self.unsure.append(f"{program} reads the commands it runs from its input")
        for body in stdin:
            self.script(body, depth + 1)

    def assignment(self, word: str) -> None:
        name = word.partition("=")[0].rstrip("+")
        if name in _CODE_VARIABLES or name.startswith("BASH_FUNC_"):
            self.unsure.append(f"setting {name}, whose value a shell runs as code")

    def wrapped(
        self, words: tuple[str, ...], parsed: _Parsed, depth: int, tail: tuple[str, ...] = ()
    ) -> bool:
        """Follow a wrapper whose options were not understood; False when they were.

        `tail` is what the wrapper adds after the command's own words.
        """
        if parsed.unknown is None:
            return False
        self.unsure.append(
            f"{words[0]}: option {parsed.unknown} is not understood, so what it runs is not known"
        )
        # The option may or may not take a value: the command starts right after either way.
        # Nor is it known where the command runs.
        with self.elsewhere(moved=True):
            for start in (parsed.operands + 1, parsed.operands + 2):
                if start < len(words):
                    self.argv((*words[start:], *tail), depth + 1)
        return True


def _relocated(
    an: _Analyser, options: _Options, parsed: _Parsed, *, reroots: bool = False
) -> contextlib.AbstractContextManager[None]:
    """Read what a wrapper runs in the directory and root its options give it."""
    return an.elsewhere(
        moved=not options.moves.isdisjoint(parsed.values),
        rerooted=reroots or not options.reroots.isdisjoint(parsed.values),
    )


def _wrapper(
    options: _Options, *, leading: int = 0, assignments: bool = False, reroots: bool = False
) -> Handler:
    """A wrapper ``NAME [OPTIONS] [NAME=value...] [LEADING OPERANDS] COMMAND...``.

    `reroots`: it always runs the command under another root directory (``chroot``).
    """

    def handle(an: _Analyser, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
        parsed = _parse(words, options)
        with _relocated(an, options, parsed, reroots=reroots):
            if an.wrapped(words, parsed, depth):
                return
            index = parsed.operands
            while assignments and index < len(words) and "=" in words[index]:
                an.assignment(words[index])
                index += 1
            an.argv(words[index + leading :], depth + 1)

    return handle


def _env(an: _Analyser, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
    parsed = _parse(words, _ENV)
    if an.wrapped(words, parsed, depth):
        return
    index = parsed.operands
    while index < len(words) and (words[index] == "-" or "=" in words[index]):
        an.assignment(words[index])
        index += 1
    script = parsed.values.get("-S", parsed.values.get("--split-string"))
    with _relocated(an, _ENV, parsed):
        if script is not None:
            an.script(" ".join((script, shlex.join(words[index:]))), depth + 1)
        else:
            an.argv(words[index:], depth + 1)


def _privileged(options: _Options, *, assignments: bool) -> Handler:
    """``sudo``/``doas``: a command, or with ``-s``/``-i`` and none, a shell reading its input."""
    command = _wrapper(options, assignments=assignments)

    def handle(an: _Analyser, words: tuple[str, ...], depth: int, stdin: tuple[str, ...]) -> None:
        parsed = _parse(words, options)
        if "-e" in parsed.values or "--edit" in parsed.values:
            return  # sudoedit: the operands are files to edit
        shell = {"-s", "-i", "--shell", "--login"} & parsed.values.keys()
        if shell and parsed.unknown is None and parsed.operands >= len(words):
            with _relocated(an, options, parsed):
                an.interactive(f"{words[0]} {min(shell)}", depth, stdin)
        command(an, words, depth, stdin)

    return handle


def _xargs(an: _Analyser, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
    parsed = _parse(words, _XARGS)
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


def _find(an: _Analyser, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
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


def _su(an: _Analyser, words: tuple[str, ...], depth: int, stdin: tuple[str, ...]) -> None:
    """``su``, ``script`` and ``runuser`` run ``-c CODE`` through a shell."""
    code = _command_string(words)
    with an.elsewhere(moved=words[0] != "script" and _login(words)):
        if code is not None:
            an.script(code, depth + 1)
        elif words[0] == "runuser" and (
            "-u" in words or any(w.startswith("--user") for w in words)
        ):
            _runuser_command(an, words, depth, stdin)
        else:
            an.interactive(words[0], depth, stdin)


def _flock(an: _Analyser, words: tuple[str, ...], depth: int, stdin: tuple[str, ...]) -> None:
    parsed = _parse(words, _FLOCK)
    script = parsed.values.get("-c", parsed.values.get("--command"))
    after = words[parsed.operands + 1 : parsed.operands + 3]  # flock FILE -c COMMAND
    if script is None and len(after) == 2 and after[0] in ("-c", "--command"):
        script = after[1]
    if script is not None and parsed.unknown is None:
        an.script(script, depth + 1)
    else:
        _flock_command(an, words, depth, stdin)


def _watch(an: _Analyser, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
    parsed = _parse(words, _WATCH)
    if an.wrapped(words, parsed, depth):
        return
    command = words[parsed.operands :]
    if "-x" in parsed.values or "--exec" in parsed.values:
        an.argv(command, depth + 1)
    elif command:
        an.script(" ".join(command), depth + 1)  # watch hands its words to sh -c


def _shell(an: _Analyser, words: tuple[str, ...], depth: int, stdin: tuple[str, ...]) -> None:
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


def _eval(an: _Analyser, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
    an.unsure.append("eval runs text as a command")
    an.script(" ".join(words[1:]), depth + 1)


def _trap(an: _Analyser, words: tuple[str, ...], depth: int, _stdin: tuple[str, ...]) -> None:
    an.unsure.append("trap runs text as a command later")
    if len(words) > 2 and not words[1].startswith("-"):
        an.script(words[1], depth + 1)


def _source(an: _Analyser, words: tuple[str, ...], depth: int, stdin: tuple[str, ...]) -> None:
    an.unsure.append(f"{words[0]} runs the commands of a file the policy cannot read")
    for body in stdin:  # source /dev/stdin <<< CODE
        an.script(body, depth + 1)


def _directory(an: _Analyser, _w: tuple[str, ...], _depth: int, _s: tuple[str, ...]) -> None:
    """``cd``, ``pushd``, ``popd``: relative paths after it are relative to somewhere else."""
    an.changes_directory = True


def _opaque(why: str) -> Handler:
    def handle(an: _Analyser, _w: tuple[str, ...], _depth: int, _s: tuple[str, ...]) -> None:
        an.unsure.append(why)

    return handle


_SUBSCRIPT = "an array subscript (bash evaluates it as arithmetic, which may run commands)"


def _subscripted(name: str) -> bool:
    """True when a variable name may hold an array subscript (written or only known later)."""
    return "[" in name or UNKNOWN in name


def _declaration(an: _Analyser, words: tuple[str, ...], _depth: int, _s: tuple[str, ...]) -> None:
    for word in words[1:]:
        if word.startswith("-") and "i" in word:
            an.unsure.append(f"{words[0]} {word}: integer variables evaluate values as arithmetic")
        elif not word.startswith(("-", "+")):
            an.assignment(word)
            if _subscripted(word.partition("=")[0]):
                an.unsure.append(_SUBSCRIPT)


# The options of read, mapfile/readarray and unset that take a value other than a name.
_VALUED = {"read": "dinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc", "unset": ""}


def _variables(an: _Analyser, words: tuple[str, ...], _depth: int, _s: tuple[str, ...]) -> None:
    names: list[str] = []
    if words[0] == "printf":
        names.extend(words[words.index("-v") + 1 :][:1] if "-v" in words else ())
    else:
        if words[0] in ("mapfile", "readarray") and any(w.startswith("-C") for w in words[1:]):
            an.unsure.append(f"{words[0]} -C runs a callback")
        skip = False
        for word in words[1:]:
            if skip:
                skip = False
            elif word.startswith("-") and len(word) > 1:
                skip = word[-1] in _VALUED[words[0]]
            else:
                names.append(word)
    if any(_subscripted(name) for name in names):
        an.unsure.append(_SUBSCRIPT)


_ENV = _Options(
    flags="i0v",
    valued="uCS",
    long_flags=frozenset(
        {
            "--ignore-environment",
            "--null",
            "--debug",
            "--block-signal",
            "--default-signal",
            "--ignore-signal",
            "--list-signal-handling",
        }
    ),
    long_valued=frozenset({"--unset", "--chdir", "--split-string"}),
    moves=frozenset({"-C", "--chdir"}),
)
_SUDO = _Options(
    flags="AbEeHhiKklnPSsVv",
    valued="CDgpRrTtUu",
    long_flags=frozenset(
        {
            "--askpass",
            "--background",
            "--preserve-env",
            "--edit",
            "--set-home",
            "--login",
            "--remove-timestamp",
            "--reset-timestamp",
            "--list",
            "--non-interactive",
            "--preserve-groups",
            "--stdin",
            "--shell",
            "--validate",
            "--bell",
        }
    ),
    long_valued=frozenset(
        {
            "--close-from",
            "--chdir",
            "--group",
            "--host",
            "--prompt",
            "--chroot",
            "--role",
            "--type",
            "--command-timeout",
            "--other-user",
            "--user",
        }
    ),
    moves=frozenset({"-D", "--chdir", "-i", "--login"}),
    reroots=frozenset({"-R", "--chroot"}),
)
_XARGS = _Options(
    flags="0oprtx",
    valued="adEILnPs",
    glued="eil",
    long_flags=frozenset(
        {
            "--null",
            "--open-tty",
            "--interactive",
            "--no-run-if-empty",
            "--verbose",
            "--exit",
            "--show-limits",
            "--max-lines",
            "--replace",
            "--eof",
        }
    ),
    long_valued=frozenset(
        {
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        }
    ),
)
_FLOCK = _Options(
    flags="sxunoF",
    valued="wEc",
    long_flags=frozenset(
        {
            "--shared",
            "--exclusive",
            "--unlock",
            "--nonblock",
            "--nb",
            "--close",
            "--no-fork",
            "--verbose",
        }
    ),
    long_valued=frozenset({"--timeout", "--wait", "--conflict-exit-code", "--command"}),
)
_flock_command = _wrapper(_FLOCK, leading=1)
_runuser_command = _wrapper(
    _Options(
        flags="flmp",
        valued="gGsuw",
        long_flags=frozenset({"--login", "--preserve-environment", "--pty"}),
        long_valued=frozenset(
            {"--group", "--supp-group", "--shell", "--user", "--whitelist-environment"}
        ),
        moves=frozenset({"-l", "--login"}),
    )
)
_WATCH = _Options(
    flags="bcdegtxpr",
    valued="nq",
    long_flags=frozenset(
        {
            "--beep",
            "--color",
            "--no-color",
            "--differences",
            "--errexit",
            "--chgexit",
            "--no-title",
            "--exec",
            "--precise",
            "--no-linewrap",
            "--no-rerun",
        }
    ),
    long_valued=frozenset({"--interval", "--equexit"}),
)

_HANDLERS: dict[str, Handler] = {
    "env": _env,
    "sudo": _privileged(_SUDO, assignments=True),
    "doas": _privileged(_Options(flags="nsL", valued="uC"), assignments=False),
    "su": _su,
    "script": _su,
    "runuser": _su,
    "nohup": _wrapper(_Options()),
    "setsid": _wrapper(_Options(flags="cfw", long_flags=frozenset({"--ctty", "--fork", "--wait"}))),
    "timeout": _wrapper(
        _Options(
            flags="v",
            valued="ks",
            long_flags=frozenset({"--preserve-status", "--foreground", "--verbose"}),
            long_valued=frozenset({"--kill-after", "--signal"}),
        ),
        leading=1,
    ),
    "nice": _wrapper(_Options(valued="n", long_valued=frozenset({"--adjustment"}), numeric=True)),
    "ionice": _wrapper(
        _Options(
            flags="t",
            valued="cnpPu",
            long_flags=frozenset({"--ignore"}),
            long_valued=frozenset({"--class", "--classdata", "--pid", "--pgid", "--uid"}),
        )
    ),
    "stdbuf": _wrapper(
        _Options(valued="ioe", long_valued=frozenset({"--input", "--output", "--error"}))
    ),
    "chroot": _wrapper(
        _Options(
            long_flags=frozenset({"--skip-chdir"}),
            long_valued=frozenset({"--userspec", "--groups"}),
        ),
        leading=1,
        reroots=True,
    ),
    "taskset": _wrapper(
        _Options(flags="acp", long_flags=frozenset({"--all-tasks", "--cpu-list", "--pid"})),
        leading=1,
    ),
    "flock": _flock,
    "xargs": _xargs,
    "find": _find,
    "watch": _watch,
    "exec": _wrapper(_Options(flags="cl", valued="a")),
    "command": _wrapper(_Options(flags="pvV")),
    "builtin": _wrapper(_Options()),
    "time": _wrapper(
        _Options(
            flags="apqv",
            valued="fo",
            long_flags=frozenset({"--append", "--portability", "--quiet", "--verbose"}),
            long_valued=frozenset({"--format", "--output"}),
        )
    ),
    "busybox": _wrapper(_Options()),
    "cd": _directory,
    "pushd": _directory,
    "popd": _directory,
    "eval": _eval,
    "trap": _trap,
    "source": _source,
    ".": _source,
    "alias": _opaque("alias defines words that run other commands later"),
    "let": _opaque("let evaluates arithmetic, which may run commands"),
    "declare": _declaration,
    "typeset": _declaration,
    "local": _declaration,
    "export": _declaration,
    "readonly": _declaration,
    "read": _variables,
    "mapfile": _variables,
    "readarray": _variables,
    "unset": _variables,
    "printf": _variables,
}
