"""The CLI's exit codes."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """What a ``seamhost`` command's exit status means."""

    OK = 0  # the command did what was asked (a run whose calls were refused is still OK)
    FAILURE = 1  # the command ran and failed (an unexpected error; a session that errored)
    USAGE = 2  # bad arguments, profile or plugin configuration; nothing was done
    CORRUPT = 3  # a session failed its integrity check (verify)
    AWAITS_APPROVAL = 4  # the run stopped at a deferred approval: answer it, then --resume
    INTERRUPTED = 130  # stopped by Ctrl-C (128 + SIGINT)
