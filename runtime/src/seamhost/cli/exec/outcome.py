"""How ``seamhost exec`` ends: the answer (or its summary line), the failure line, the exit code.

Without ``--json``: the final answer, the text of the turn's last assistant message, on stdout
(nothing when it is empty, or when the turn parked: its text then is not an answer), and a
failure's one line on stderr. With ``--json`` the envelopes already on stdout are followed by
one summary line (:mod:`seamhost.cli.summary`)::

    {"outcome": "completed", "exit_code": 0, "session": "...", "final": "...",
     "reason": "completed", "turn": 1, "usage": {...}}

with ``"error": {...}`` too when the exit code is not 0, and ``answer``/``continue`` (the
commands that answer and continue it) when the turn parked. ``final`` is ``null`` when the
turn has no assistant text or parked. ``usage`` is the session's tokens and cost, whole and per
turn (:mod:`seamhost.run.usage`); the text ending leaves it out: stdout is the answer alone.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from seamhost.cli.conversation import final_answer
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.failures import report
from seamhost.cli.next_steps import (
    awaits_approval,
    awaits_reconciliation,
    continue_session_command,
    parked_fields,
)
from seamhost.cli.summary import emit_summary
from seamhost.cli.terminal import terminal_safe
from seamhost.run.usage import session_usage

if TYPE_CHECKING:
    from seamhost.kernel.profile.pricing import Pricing
    from seamhost.run.agent import TurnOutcome
    from seamhost.session.live import Session
    from seamhost.session.record import Record


def print_envelope(record: Record) -> None:
    """One committed record as its envelope, on one line of stdout."""
    sys.stdout.write(record.envelope().decode() + "\n")


def report_exec(
    session: Session, outcome: TurnOutcome, *, interrupted: bool, as_json: bool, pricing: Pricing
) -> ExitCode:
    """Print how the turn ended (see the module docstring) and return the exit code."""
    then = continue_session_command(session)
    parked = outcome.reason in ("suspended", "parked")
    # A parked turn's last text came before the call it waits on: not the turn's answer.
    answer = "" if parked else final_answer(session, outcome.turn)
    code, message = _ending(session.id, outcome, interrupted, then)
    if message is not None:
        report(code, message, as_json=False)
    if not as_json:
        if answer:
            shown = terminal_safe(answer)  # the model's text: no escape acts on the terminal
            sys.stdout.write(shown if shown.endswith("\n") else shown + "\n")
        sys.stdout.flush()
        return code
    fields: dict[str, Any] = {
        "final": answer or None,
        "reason": outcome.reason,
        "turn": outcome.turn,
        "usage": session_usage(session.records, pricing).to_json(),
    }
    if parked:
        fields.update(parked_fields(session.id, outcome.reason, outcome.approval, then))
    emit_summary(code, session.id, message, fields)
    return code


def _ending(
    session_id: str, outcome: TurnOutcome, interrupted: bool, then: str
) -> tuple[ExitCode, str | None]:
    if interrupted:
        return ExitCode.INTERRUPTED, (
            f"interrupted: session {session_id} stopped; see `seamhost session show {session_id}`"
        )
    if outcome.reason == "suspended":
        return ExitCode.AWAITS_APPROVAL, awaits_approval(session_id, outcome.approval or "?", then)
    if outcome.reason == "parked":
        return ExitCode.AWAITS_APPROVAL, awaits_reconciliation(session_id, outcome.message, then)
    if outcome.reason != "completed":
        detail = f" ({outcome.message})" if outcome.message else ""
        return ExitCode.FAILURE, (
            f"session {session_id}: turn {outcome.turn} {outcome.reason}{detail}; "
            f"see `seamhost session show {session_id}`"
        )
    return ExitCode.OK, None
