"""What a stdio server that failed to start said: its command and the end of its stderr.

A server's stderr goes to its log file (``log_dir/NAME.log``), never to the terminal, so an
error that only said "initialize failed: stopped reading its stdin" hid the reason, such as
``bwrap: execvp mcp-server-time: No such file or directory``. The failure now carries the
command and the last lines the server wrote there during this start (the log is appended to
across starts: only what came after the offset noted at launch is shown).

A confined server may fail because the sandbox hides a path it needs (bubblewrap's private
``/tmp``: ``ConfinedCommand.hidden``). Every absolute path its stderr names during this start
(``file://`` URLs too) that exists on the host, lies in a hidden directory and is not among
what the request showed there (the workspace, the roots, the readable paths) is named in the
error, with the way to show it: the server table's ``read_paths``.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import NamedTuple

TAIL_LINES = 5
TAIL_BYTES = 4096  # at most this much of the end is read
SCAN_BYTES = 65536  # at most this much of the start's stderr is searched for hidden paths
NAMED_HIDDEN = 3  # at most this many hidden paths are named
PATH_IN_TEXT = re.compile(r"(?<![\w.~-])/[^\s'\"`:,;()<>|\\]+")


class Hiding(NamedTuple):
    """What a confined server's sandbox hides, and what it shows there (see the module)."""

    server: str
    backend: str
    hidden: tuple[Path, ...]
    shown: tuple[Path, ...]

    def hides(self, path: Path) -> bool:
        return any(path.is_relative_to(h) for h in self.hidden) and not any(
            path.is_relative_to(s) for s in self.shown
        )


def log_offset(log: Path) -> int:
    """Where the server's stderr of this start will begin in `log`."""
    try:
        return log.stat().st_size
    except OSError:
        return 0


def stderr_tail(log: Path, since: int) -> list[str]:
    """The last lines written to `log` after offset `since` (control characters escaped)."""
    try:
        with log.open("rb") as file:
            end = file.seek(0, 2)
            start = max(since, end - TAIL_BYTES)
            file.seek(start)
            data = file.read(end - start)
    except OSError:
        return []
    lines = data.decode("utf-8", "replace").splitlines()
    shown = [line.strip() for line in lines if line.strip()][-TAIL_LINES:]
    return [line.encode("unicode_escape").decode("ascii") for line in shown]


def hidden_paths(log: Path, since: int, hiding: Hiding) -> list[Path]:
    """The paths the server's stderr named after `since` that its sandbox hides from it."""
    try:
        with log.open("rb") as file:
            file.seek(since)
            text = file.read(SCAN_BYTES).decode("utf-8", "replace")
    except OSError:
        return []
    found: list[Path] = []
    for match in PATH_IN_TEXT.findall(text):
        path = Path(os.path.normpath("/" + match.lstrip("/")))
        if path not in found and hiding.hides(path) and path.exists():
            found.append(path)
    return found


def start_failure(
    problem: str,
    command: tuple[str, ...],
    log: Path,
    since: int,
    hiding: Hiding | None = None,
) -> str:
    """`problem`, with the command that was run and what its stderr said, if anything."""
    said = stderr_tail(log, since)
    text = f"{problem}; command: {shlex.join(command)}"
    if said:
        text += f"; its stderr ({log}) ended with: " + " | ".join(said)
        if any("execvp" in line or "No such file" in line for line in said):
            text += (
                "; the confined server could not find or run a program: give the command's "
                "absolute path, and list any directory it needs to read (an interpreter's, a "
                "script's) in the server's read_paths"
            )
    else:
        text += f"; it wrote nothing to its stderr ({log})"
    hidden = hidden_paths(log, since, hiding) if hiding is not None and hiding.hidden else []
    if hiding is not None and hidden:
        named = ", ".join(map(str, hidden[:NAMED_HIDDEN]))
        places = ", ".join(map(str, hiding.hidden))
        text += (
            f"; the sandbox ({hiding.backend}) hides {named} ({places} is private to it but "
            "for the paths a server is given): list it, or a directory above it, in read_paths "
            f"of [plugins.tools-mcp.servers.{hiding.server}]"
        )
    return text
