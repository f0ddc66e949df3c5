"""The reaper: runs a command so that no process it starts outlives it.

The runner starts an unconfined command (``danger-full-access``) as::

    python -I -S reaper.py -- PROGRAM [ARG ...]

The reaper makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``: every orphan in its
subtree, a process that left with ``setsid`` or ``disown`` included, becomes its child), spawns
the command in a process group of its own, and waits for it. Once the command has ended, it kills
every process left below it (found by walking ``/proc``) and reaps them, then ends the way the
command did (its exit status, or its signal). ``SIGTERM``, ``SIGINT`` and ``SIGHUP`` (the runner's
timeout, or the runner's death through ``PR_SET_PDEATHSIG``) kill the whole subtree the same way.
A program that cannot be started ends it with :data:`EXIT_NOT_STARTED` after one stderr line
starting with :data:`MARKER`.

It imports the standard library only: it is a script, on the path of every unconfined command.
The Landlock launcher of sandbox-local reaps the commands it confines with this module too,
imported by its top-level name ``reaper`` (the launcher cannot import seamhost); bubblewrap needs
neither (the command's own PID namespace ends with it).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

MARKER = "seamhost-reaper:"
EXIT_NOT_STARTED = 127
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_STOPPING = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def stop(signum: int, frame: object) -> None:
    """The handler of the stop signals: out of the wait, into killing the subtree."""
    # A builtin, not a class of seamhost's error tree: this script cannot import seamhost.
    raise SystemExit(signum)  # told to stop: out of the wait, into killing the subtree


def descendants(root: int) -> list[int]:
    """Every live process below `root`, from each process's parent in ``/proc/PID/stat``."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:  # gone meanwhile
            continue
        # "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses.
        parent = int(stat[stat.rindex(b")") + 2 :].split()[1])
        children.setdefault(parent, []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def kill_descendants() -> None:
    """Kill and reap every process below this one, until none is left."""
    me = os.getpid()
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) != (0, 0):
                continue  # reaped one that had already ended: look again
        except ChildProcessError:
            return  # no child at all: nothing can be left below
        for pid in descendants(me):
            # Not contextlib.suppress: importing contextlib costs every command a millisecond.
            try:  # noqa: SIM105
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(-1, 0)  # one of them has ended (killed processes cannot fork again)
        except ChildProcessError:
            return


def end_like(status: int) -> int:
    """End this process the way a child with wait `status` ended; the exit code otherwise."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        return 128 + number
    return os.waitstatus_to_exitcode(status)


def main(args: list[str]) -> int:
    """Run the command after ``--`` and reap whatever it leaves (see the module docstring)."""
    command = args[1:] if args[:1] == ["--"] else args
    if not command:
        os.write(2, f"{MARKER} no command after --\n".encode())
        return EXIT_NOT_STARTED
    libc = ctypes.CDLL(None, use_errno=True)
    for option, value in ((_PR_SET_CHILD_SUBREAPER, 1), (_PR_SET_PDEATHSIG, signal.SIGTERM)):
        libc.prctl(ctypes.c_int(option), ctypes.c_ulong(value), *(ctypes.c_ulong(0),) * 3)
    for number in _STOPPING:
        signal.signal(number, stop)
    status = int(signal.SIGTERM)  # what the reaper reports when it is stopped before the end
    try:
        try:
            child = os.posix_spawnp(
                command[0],
                command,
                os.environ,
                setpgroup=0,
                setsigdef=(signal.SIGPIPE, signal.SIGXFSZ, *_STOPPING),
            )
        except OSError as exc:
            os.write(2, f"{MARKER} cannot run {command[0]}: {exc.strerror}\n".encode())
            return EXIT_NOT_STARTED
        status = os.waitpid(child, 0)[1]
    except SystemExit:
        pass
    finally:
        for number in _STOPPING:
            signal.signal(number, signal.SIG_IGN)
        kill_descendants()
    return end_like(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
