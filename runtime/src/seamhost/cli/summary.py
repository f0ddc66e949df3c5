"""The object that ends a ``--json`` stream: one line, the same keys for every command.

``run --json`` and ``exec --json`` print JSON Lines: one envelope per committed record, then
exactly one summary object, whatever happened::

    {"outcome": "completed", "exit_code": 0, "session": "20260101-...", ...}

``outcome`` is one of :data:`OUTCOMES`; ``exit_code`` is the process's exit status; ``session``
the session's id. A parked turn adds ``answer`` and ``continue`` (the commands to run, see
:mod:`seamhost.cli.next_steps`), and ``approval_id`` when it waits on an approval; an outcome
other than ``completed`` adds ``error`` (``code``, ``exit_code``, ``message``), the object a
failing command prints (:mod:`seamhost.cli.failures`), where ``outcome`` is ``error``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import orjson

from seamhost.cli.exitcodes import ExitCode
from seamhost.redaction import redact

# completed: every turn ended well; parked: a turn waits on an approval or a reconciliation;
# failed: a turn did not complete, or --check found a mismatch; interrupted: Ctrl-C;
# error: the command stopped before (or outside) the session (seamhost.cli.failures).
OUTCOMES = ("completed", "parked", "failed", "interrupted", "error")


def outcome_of(code: ExitCode) -> str:
    """The summary's ``outcome`` for a stream that ended with `code`."""
    return {
        ExitCode.OK: "completed",
        ExitCode.AWAITS_APPROVAL: "parked",
        ExitCode.INTERRUPTED: "interrupted",
        ExitCode.FAILURE: "failed",
    }.get(code, "error")


def emit_summary(
    code: ExitCode,
    session_id: str,
    message: str | None = None,
    fields: Mapping[str, Any] | None = None,
    *,
    details: Mapping[str, Any] | None = None,
) -> None:
    """Print the summary line of a stream that ended with `code`.

    `message` (why, when `code` is not 0) and `details` make its ``error``; `fields` are added
    at the top.
    """
    summary: dict[str, Any] = {
        "outcome": outcome_of(code),
        "exit_code": int(code),
        "session": session_id,
        **(fields or {}),
    }
    if message is not None:
        line = " ".join(message.splitlines())
        error: dict[str, Any] = {"code": code.name.lower(), "exit_code": int(code)}
        error["message"] = line
        if details:
            error["details"] = dict(details)
        summary["error"] = error
    # Redacting the JSON text keeps it JSON: what replaces a secret holds no quote or backslash.
    sys.stdout.write(redact(orjson.dumps(summary, default=str).decode()) + "\n")
    sys.stdout.flush()
