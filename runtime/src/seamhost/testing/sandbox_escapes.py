"""The escape suite of the sandbox contract: the ways out it tries, and where it tries them.

:data:`ESCAPES` lists each attempt to change the host beyond what a mode allows, as the argv it
runs; :class:`EscapeLayout` is the workspace and the directory beside it that each attempt aims
at, with the state the contract compares before and after. :mod:`seamhost.testing.sandbox`
runs them and re-exports every name.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

from seamhost.sandbox.policy import SandboxMode

RO, WW, FULL = (
    SandboxMode.READ_ONLY,
    SandboxMode.WORKSPACE_WRITE,
    SandboxMode.DANGER_FULL_ACCESS,
)
CONFINING = (RO, WW)
BACKGROUND_DELAY = 0.3  # seconds the background writer waits after the command has ended
SETTLE_SECONDS = 15.0  # how long a background writer may take to finish
ESCAPED = "escaped"


@attrs.frozen
class EscapeLayout:
    """A workspace and, beside it, a directory the confined command must not change."""

    root: Path

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def outside(self) -> Path:
        return self.root / "outside"

    @property
    def secret(self) -> Path:
        return self.outside / "secret.txt"

    @property
    def writer_script(self) -> Path:
        """The background writer: waits, then writes its first argument."""
        return self.outside / "writer.sh"

    @classmethod
    def make(cls, root: Path) -> EscapeLayout:
        layout = cls(root)
        layout.workspace.mkdir(parents=True)
        layout.outside.mkdir()
        layout.secret.write_text("secret\n")
        layout.secret.chmod(0o644)
        layout.writer_script.write_text(f'sleep {BACKGROUND_DELAY}\nprintf late > "$1"\n')
        (layout.workspace / "inside.txt").write_text("inside\n")
        (layout.workspace / "link-to-secret").symlink_to(layout.secret)
        return layout

    def state(self, mode: SandboxMode) -> dict[str, str]:
        """What must not change in `mode`: the outside, and in ``read-only`` the workspace too.

        Contents, link targets, permissions, link counts and modification times of every entry.
        """
        watched = [self.outside]
        if mode is not WW:
            watched.append(self.workspace)
        seen: dict[str, str] = {}
        for top in watched:
            for path in sorted([top, *top.rglob("*")]):
                info = path.lstat()
                key = str(path.relative_to(self.root))
                described = f"mode {info.st_mode:o} links {info.st_nlink} mtime {info.st_mtime_ns}"
                if stat.S_ISLNK(info.st_mode):
                    described += f" -> {os.readlink(path)}"
                elif stat.S_ISREG(info.st_mode):
                    described += f" content {path.read_bytes()!r}"
                seen[key] = described
        return seen

    def wait_for_background(self) -> None:
        """Wait until no process mentions this layout any more (background writers ended)."""
        token = str(self.root).encode()
        deadline = time.monotonic() + SETTLE_SECONDS
        while processes_mentioning(token):
            if time.monotonic() > deadline:
                raise AssertionError(f"processes still running {SETTLE_SECONDS:g} s later")
            time.sleep(0.05)


def processes_mentioning(token: bytes) -> list[int]:
    """The pids of the processes whose command line contains `token`."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                if token in fh.read():
                    found.append(int(entry.name))
        except OSError:  # gone meanwhile
            continue
    return found


@attrs.frozen
class Escape:
    """One way of changing the host that a confining mode forbids."""

    name: str
    argv: Callable[[EscapeLayout], tuple[str, ...]] = attrs.field(eq=False)
    modes: tuple[SandboxMode, ...] = CONFINING
    background: bool = False  # the attempt happens after the command has ended


def shell(script: str, *args: object) -> tuple[str, ...]:
    """The argv running `script` with ``sh -c``, `args` as its ``$1``, ``$2``, ..."""
    return ("sh", "-c", script, "sh", *(str(a) for a in args))


# The interpreter a confined command runs: the real file behind `sys.executable`. A virtual
# environment created under /tmp (a fresh clone there, nox's venvs) is hidden by bubblewrap's
# private /tmp, while the base interpreter it links to stays visible.
INTERPRETER = os.path.realpath(sys.executable)

ESCAPES = (
    Escape("write-outside", lambda x: shell(f'printf {ESCAPED} > "$1"', x.secret)),
    Escape("dot-dot", lambda x: shell(f"printf {ESCAPED} > ../outside/secret.txt")),
    Escape("symlink", lambda x: shell(f"printf {ESCAPED} > link-to-secret")),
    Escape(
        "hard-link",
        lambda x: shell(f'ln "$1" hard-link && printf {ESCAPED} >> hard-link', x.secret),
    ),
    Escape("proc-self-root", lambda x: shell(f'printf {ESCAPED} > "/proc/self/root$1"', x.secret)),
    Escape("rename-out", lambda x: ("mv", "inside.txt", str(x.outside / "moved.txt"))),
    Escape("rename-in", lambda x: ("mv", str(x.secret), "taken.txt")),
    Escape("remove", lambda x: ("rm", "-f", str(x.secret))),
    Escape("mkdir", lambda x: ("mkdir", str(x.outside / "made"))),
    Escape(
        "truncate",
        lambda x: (
            INTERPRETER,
            "-I",
            "-c",
            "import os, sys; os.truncate(sys.argv[1], 0)",
            str(x.secret),
        ),
    ),
    Escape("chmod", lambda x: ("chmod", "0777", str(x.secret))),
    Escape("times", lambda x: ("touch", "-m", "-d", "@0", str(x.secret))),
    Escape("write-inside", lambda x: shell(f"printf {ESCAPED} > new.txt"), modes=(RO,)),
    Escape(
        "background-writer",
        lambda x: shell(
            'setsid sh "$1" "$2" < /dev/null > /dev/null 2>&1 & exit 0',
            x.writer_script,
            x.outside / "late.txt",
        ),
        background=True,
    ),
)


SURVIVOR_DELAY = 1.0  # seconds the surviving-process case's writers wait before writing
SURVIVOR_FILES = ("late-1.txt", "late-2.txt")


def survivors(layout: EscapeLayout) -> tuple[str, ...]:
    """A command that leaves two writers behind, in the workspace, each naming the layout."""
    writer = f'sleep {SURVIVOR_DELAY:g}; printf late > "$1"'
    return (
        "bash",
        "-c",
        f"(sh -c '{writer}' sh \"$1\") & disown; "
        f"setsid sh -c '{writer}' sh \"$2\" < /dev/null > /dev/null 2>&1 & echo started",
        "bash",
        *(str(layout.workspace / name) for name in SURVIVOR_FILES),
    )


def escape_cases() -> list[Any]:
    """The parameters of the escape suite: each escape in each mode it is refused in."""
    return [
        pytest.param(escape, mode, id=f"{escape.name}@{mode}")
        for escape in ESCAPES
        for mode in escape.modes
    ]


__all__ = [
    "BACKGROUND_DELAY",
    "CONFINING",
    "ESCAPED",
    "ESCAPES",
    "FULL",
    "INTERPRETER",
    "RO",
    "SETTLE_SECONDS",
    "SURVIVOR_DELAY",
    "SURVIVOR_FILES",
    "WW",
    "Escape",
    "EscapeLayout",
    "escape_cases",
    "processes_mentioning",
    "shell",
    "survivors",
]
