"""The CLI's exit codes; :mod:`seamhost.cli.failures` maps errors to them."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """What a ``seamhost`` command's exit status means."""

    OK = 0  # the command did what was asked (a run whose calls were refused is still OK)
    FAILURE = 1  # it ran and failed: a turn or --check failed, a session was unreadable or locked
    USAGE = 2  # bad arguments, profile or plugin configuration, or session id; nothing was done
    CORRUPT = 3  # a session the command reads is damaged (verify, show, repair, --resume, approve)
    AWAITS_APPROVAL = 4  # the run parked on an approval or a reconciliation: settle it, resume
    INTERRUPTED = 130  # stopped by Ctrl-C (128 + SIGINT)
