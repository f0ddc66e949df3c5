"""How ``seamhost exec`` ends: the answer (or its JSON line), the failure line, the exit code.

Without ``--json``: the final answer, the text of the turn's last assistant message, on stdout
(nothing when it is empty), and a failure's one line on stderr. With ``--json`` the envelopes
already on stdout are followed by one last line::

    {"final": "...", "session_id": "...", "reason": "completed", "turn": 1, "exit_code": 0}

with ``"error": {...}`` too (the object :mod:`seamhost.cli.failures` prints) when the exit code
is not 0. ``final`` is ``null`` when the turn has no assistant text.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import orjson

from seamhost.cli.conversation import final_answer, parked_advice
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.failures import report

if TYPE_CHECKING:
    from seamhost.run.agent import TurnOutcome
    from seamhost.session.live import Session
    from seamhost.session.record import Record


def print_envelope(record: Record) -> None:
    """One committed record as its envelope, on one line of stdout."""
    sys.stdout.write(record.envelope().decode() + "\n")


def report_exec(
    session: Session, outcome: TurnOutcome, *, interrupted: bool, as_json: bool
) -> ExitCode:
    """Print how the turn ended (see the module docstring) and return the exit code."""
    answer = final_answer(session, outcome.turn)
    code, message = _ending(session.id, outcome, interrupted)
    if message is not None:
        report(code, message, as_json=False)
    if not as_json:
        if answer:
            sys.stdout.write(answer if answer.endswith("\n") else answer + "\n")
        sys.stdout.flush()
        return code
    line: dict[str, Any] = {
        "final": answer or None,
        "session_id": session.id,
        "reason": outcome.reason,
        "turn": outcome.turn,
        "exit_code": int(code),
    }
    if message is not None:
        line["error"] = {"code": code.name.lower(), "exit_code": int(code), "message": message}
        if outcome.approval is not None:
            line["approval_id"] = outcome.approval
    sys.stdout.write(orjson.dumps(line).decode() + "\n")
    sys.stdout.flush()
    return code


def _ending(
    session_id: str, outcome: TurnOutcome, interrupted: bool
) -> tuple[ExitCode, str | None]:
    if interrupted:
        return ExitCode.INTERRUPTED, (
            f"interrupted: session {session_id} stopped; see `seamhost session show {session_id}`"
        )
    if outcome.reason == "suspended":
        return ExitCode.AWAITS_APPROVAL, parked_advice(session_id, outcome.approval or "?")
    if outcome.reason == "parked":
        return ExitCode.AWAITS_APPROVAL, (
            f"session {session_id} is parked: {outcome.message}; record what those calls did "
            f"with `seamhost session reconcile {session_id} CALL_ID ...`, then continue with "
            f"`seamhost exec --resume {session_id}`"
        )
    if outcome.reason != "completed":
        detail = f" ({outcome.message})" if outcome.message else ""
        return ExitCode.FAILURE, (
            f"session {session_id}: turn {outcome.turn} {outcome.reason}{detail}; "
            f"see `seamhost session show {session_id}`"
        )
    return ExitCode.OK, None
