"""What a stdio server that failed to start said: its command and the end of its stderr.

A server's stderr goes to its log file (``log_dir/NAME.log``), never to the terminal, so an
error that only said "initialize failed: stopped reading its stdin" hid the reason, such as
``bwrap: execvp mcp-server-time: No such file or directory``. The failure now carries the
command and the last lines the server wrote there during this start (the log is appended to
across starts: only what came after the offset noted at launch is shown).
"""

from __future__ import annotations

import shlex
from pathlib import Path

TAIL_LINES = 5
TAIL_BYTES = 4096  # at most this much of the end is read


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


def start_failure(problem: str, command: tuple[str, ...], log: Path, since: int) -> str:
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
    return text
