"""Which handler reads which program: the analyser's dispatch by program name.

A program not named here needs no reading beyond its words: the analyser records the command
and goes on.
The wrappers (:mod:`.wrappers`) are given their options (:mod:`.wrapper_options`) here, with
how many operands come before their command (``timeout DURATION``, ``chroot DIR``) and whether
they always run it under another root; the shell builtins are in :mod:`.shell_builtins`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost_tool_policy import launchers, shell_builtins, wrapper_options, wrappers

if TYPE_CHECKING:
    from seamhost_tool_policy.walk import Handler

_SHELLS = frozenset({"sh", "bash", "rbash", "dash", "zsh", "ksh", "mksh", "lksh", "ash", "yash"})

_HANDLERS: dict[str, Handler] = {
    "env": wrappers.env,
    "sudo": wrappers.privileged(wrapper_options.SUDO, assignments=True),
    "doas": wrappers.privileged(wrapper_options.DOAS, assignments=False),
    "su": wrappers.su,
    "script": wrappers.su,
    "runuser": wrappers.su,
    "nohup": wrappers.wrapper(wrapper_options.NO_OPTIONS),
    "setsid": wrappers.wrapper(wrapper_options.SETSID),
    "timeout": wrappers.wrapper(wrapper_options.TIMEOUT, leading=1),
    "nice": wrappers.wrapper(wrapper_options.NICE),
    "ionice": wrappers.wrapper(wrapper_options.IONICE),
    "stdbuf": wrappers.wrapper(wrapper_options.STDBUF),
    "chroot": wrappers.wrapper(wrapper_options.CHROOT, leading=1, reroots=True),
    "taskset": wrappers.wrapper(wrapper_options.TASKSET, leading=1),
    "flock": wrappers.flock,
    "xargs": wrappers.xargs,
    "find": wrappers.find,
    "watch": wrappers.watch,
    "unshare": launchers.launcher(wrapper_options.UNSHARE, shell=True),
    "nsenter": launchers.launcher(wrapper_options.NSENTER, shell=True),
    "fakeroot": launchers.launcher(wrapper_options.FAKEROOT, shell=True),
    "systemd-run": launchers.launcher(wrapper_options.SYSTEMD_RUN),
    "strace": launchers.launcher(wrapper_options.STRACE),
    "ltrace": launchers.launcher(wrapper_options.STRACE),
    "chrt": launchers.launcher(wrapper_options.CHRT, leading=1),
    "prlimit": launchers.launcher(wrapper_options.PRLIMIT),
    "setpriv": launchers.launcher(wrapper_options.SETPRIV),
    "parallel": launchers.parallel,
    "exec": wrappers.wrapper(wrapper_options.EXEC),
    "command": wrappers.wrapper(wrapper_options.COMMAND),
    "builtin": wrappers.wrapper(wrapper_options.NO_OPTIONS),
    "time": wrappers.wrapper(wrapper_options.TIME),
    "busybox": wrappers.wrapper(wrapper_options.NO_OPTIONS),
    "cd": shell_builtins.directory,
    "pushd": shell_builtins.directory,
    "popd": shell_builtins.directory,
    "eval": shell_builtins.eval_text,
    "trap": shell_builtins.trap,
    "source": shell_builtins.source,
    ".": shell_builtins.source,
    "alias": shell_builtins.opaque("alias defines words that run other commands later"),
    "let": shell_builtins.opaque("let evaluates arithmetic, which may run commands"),
    "declare": shell_builtins.declaration,
    "typeset": shell_builtins.declaration,
    "local": shell_builtins.declaration,
    "export": shell_builtins.declaration,
    "readonly": shell_builtins.declaration,
    "read": shell_builtins.variables,
    "mapfile": shell_builtins.variables,
    "readarray": shell_builtins.variables,
    "unset": shell_builtins.variables,
    "printf": shell_builtins.variables,
}


_KEEPING_ENVIRONMENT = frozenset(
    {"nohup", "setsid", "timeout", "nice", "ionice", "stdbuf", "taskset", "flock", "xargs"}
    | {"find", "watch", "unshare", "nsenter", "fakeroot", "strace", "ltrace", "chrt", "prlimit"}
    | {"parallel", "command", "builtin", "time", "busybox", "cd", "pushd", "popd", "eval"}
    | {"trap", "source", ".", "alias", "let", "declare", "typeset", "local", "export"}
    | {"readonly", "read", "mapfile", "readarray", "unset", "printf"}
)
"""Programs whose commands run with the environment they were given (what is not here, such as
``env``, ``sudo``, ``su``, ``chroot``, ``exec``, ``systemd-run``, ``setpriv``, may change it)."""

_STARTUP_OPTIONS = ("--login", "--rcfile", "--init-file", "--interactive")


def keeps_environment(name: str, words: tuple[str, ...]) -> bool:
    """Whether the commands `words` (of program `name`) runs see the variables it was given.

    A shell does unless an option may make it run startup files first (``-l``, ``-i``).
    """
    if name in _SHELLS:
        short = (w for w in words[1:] if w.startswith("-") and not w.startswith("--"))
        return not any(w.startswith(_STARTUP_OPTIONS) for w in words[1:]) and not any(
            "l" in w or "i" in w for w in short
        )
    return name in _KEEPING_ENVIRONMENT


def handler_for(name: str) -> Handler | None:
    """The handler of the program `name` (without its directory), or None when it needs none."""
    handler = _HANDLERS.get(name)
    if handler is None and name in _SHELLS:
        handler = wrappers.shell
    return handler
