"""How ``seamhost run`` ended: its exit code, its failure line, and ``--check``'s mismatches."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.failures import report
from seamhost.cli.next_steps import (
    awaits_approval,
    awaits_reconciliation,
    continue_session_command,
    parked_fields,
)
from seamhost.cli.summary import emit_summary
from seamhost.run.turns import PARKED, run_outcome
from seamhost.run.usage import session_usage

if TYPE_CHECKING:
    from seamhost.kernel.profile.pricing import Pricing
    from seamhost.llm.replay import Script
    from seamhost.run.agent import Agent, TurnOutcome
    from seamhost.session.live import Session


def report_run(
    out: Any,
    session: Session,
    outcomes: list[TurnOutcome],
    mismatches: list[dict[str, str]],
    *,
    interrupted: bool,
    quiet: bool,
    pricing: Pricing,
) -> ExitCode:
    """Say how the run ended, and the exit code that says it.

    A run that did not end well ends as every failing command does (:mod:`seamhost.cli.failures`):
    one line on stderr. With --json (`quiet`) the envelopes are followed by one summary object
    (:mod:`seamhost.cli.summary`) whatever the ending; its ``turns`` list each turn's reason,
    its ``usage`` the session's tokens and cost, whole and per turn (:mod:`seamhost.run.usage`,
    priced by `pricing`), its ``error.details`` the turns that did not complete and --check's
    mismatches. The text ending shows the usage too, when the model reported any (a scripted
    model reports none: its runs print what they always did).
    """
    session_id = session.id
    then = continue_session_command(session)
    ended = run_outcome(outcomes, interrupted=interrupted)  # the API's word for it too
    suspended = outcomes[-1] if outcomes and outcomes[-1].reason in PARKED else None
    failed = [o for o in outcomes if o.reason not in ("completed", *PARKED)]
    usage = session_usage(session.records, pricing)
    if not quiet and suspended is None:
        summary = "all completed" if not failed else f"{len(failed)} did not complete"
        out.print(f"session {session_id}: {len(outcomes)} turn(s), {summary}")
        for line in usage.lines() if usage.reported else ():
            out.print(line, markup=False, highlight=False)
        out.print(f"show it with: seamhost session show {session_id}")
    details: dict[str, Any] = {"session_id": session_id}
    fields: dict[str, Any] = {"turns": [{"turn": o.turn, "reason": o.reason} for o in outcomes]}
    fields["usage"] = usage.to_json()
    message: str | None
    if ended == "interrupted":
        code, message = ExitCode.INTERRUPTED, f"interrupted: session {session_id} stopped"
        message += f"; continue it with `{then}`"
        fields["continue"] = then
    elif ended == "parked" and suspended is not None:
        code = ExitCode.AWAITS_APPROVAL
        if suspended.reason == "parked":
            message = awaits_reconciliation(session_id, suspended.message, then)
        else:
            message = awaits_approval(session_id, suspended.approval or "?", then)
            details["approval_id"] = suspended.approval
        fields.update(parked_fields(session_id, suspended.reason, suspended.approval, then))
    elif ended == "failed" or mismatches:
        code, message = ExitCode.FAILURE, _failure(session_id, outcomes, failed, mismatches)
    else:
        code, message = ExitCode.OK, None
    if failed:
        details["turns"] = [
            {"turn": o.turn, "reason": o.reason, "message": o.message} for o in failed
        ]
    if mismatches:
        details["mismatches"] = mismatches
    if message is not None:
        report(code, message, as_json=False)
    if quiet:
        emit_summary(code, session_id, message, fields, details=details)
    return code


def _failure(
    session_id: str,
    outcomes: list[TurnOutcome],
    failed: list[TurnOutcome],
    mismatches: list[dict[str, str]],
) -> str:
    """The line that says which turns did not complete and which expectations were not met."""
    parts = []
    if failed:
        turns = ", ".join(
            f"turn {o.turn} {o.reason}" + (f" ({o.message})" if o.message else "") for o in failed
        )
        parts.append(f"{len(failed)} of {len(outcomes)} turn(s) did not complete: {turns}")
    if mismatches:
        listed = "; ".join(
            f"{m['call_id']} ({m['tool']}): expected {m['expected']}, got {m['got']}"
            for m in mismatches
        )
        count = "expectation" if len(mismatches) == 1 else f"{len(mismatches)} expectations"
        parts.append(f"{count} not met: {listed}")
    return f"session {session_id}: {'; '.join(parts)}; see `seamhost session show {session_id}`"


def mismatches_of(
    scenario: Script, session: Session, profile: str, agent: Agent
) -> list[dict[str, str]]:
    """Each scripted call whose outcome differs from what the scenario expects under `profile`."""
    outcomes = {
        r.data["call_id"]: (r.data.get("error") or {}).get("code", "ok")
        for r in session.records
        if r.type == "tool/result"
    }
    first_turn = agent.turn - len(scenario.user_messages) + 1
    problems = []
    for call_id, tool, expected in scenario.expectations(profile, first_turn):
        got = outcomes.get(call_id, "not run")
        if got != expected:
            problems.append({"call_id": call_id, "tool": tool, "expected": expected, "got": got})
    return problems
