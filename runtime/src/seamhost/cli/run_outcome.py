"""How ``seamhost run`` ended: its exit code, its failure line, and ``--check``'s mismatches."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.failures import report

if TYPE_CHECKING:
    from seamhost.llm.replay import Script
    from seamhost.run.agent import Agent, TurnOutcome
    from seamhost.session.live import Session


def report_run(
    out: Any,
    session_id: str,
    outcomes: list[TurnOutcome],
    mismatches: list[dict[str, str]],
    *,
    interrupted: bool,
    quiet: bool,
) -> ExitCode:
    """Say how the run ended, and the exit code that says it.

    A run that did not end well ends as every failing command does (:mod:`seamhost.cli.failures`):
    one line on stderr and, with --json, one ``{"error": ...}`` object after the envelopes, whose
    details hold the turns that did not complete and --check's mismatches.
    """
    parked = ("suspended", "parked")  # on a deferred approval, on a reconciliation
    suspended = outcomes[-1] if outcomes and outcomes[-1].reason in parked else None
    failed = [o for o in outcomes if o.reason not in ("completed", *parked)]
    if not quiet and suspended is None:
        summary = "all completed" if not failed else f"{len(failed)} did not complete"
        out.print(f"session {session_id}: {len(outcomes)} turn(s), {summary}")
        out.print(f"show it with: seamhost session show {session_id}")
    details: dict[str, Any] = {"session_id": session_id}
    if interrupted:
        code, message = ExitCode.INTERRUPTED, f"interrupted: session {session_id} stopped"
        message += f"; continue it with `seamhost run --resume {session_id} [SCENARIO]`"
    elif suspended is not None and suspended.reason == "parked":
        code, message = ExitCode.AWAITS_APPROVAL, reconcile_advice(session_id, suspended)
    elif suspended is not None:
        code, message = ExitCode.AWAITS_APPROVAL, _parked(session_id, suspended.approval or "?")
        details["approval_id"] = suspended.approval
    elif failed or mismatches:
        code, message = ExitCode.FAILURE, _failure(session_id, outcomes, failed, mismatches)
    else:
        return ExitCode.OK
    if failed:
        details["turns"] = [
            {"turn": o.turn, "reason": o.reason, "message": o.message} for o in failed
        ]
    if mismatches:
        details["mismatches"] = mismatches
    report(code, message, as_json=quiet, details=details)
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


def _parked(session_id: str, approval: str) -> str:
    return (
        f"session {session_id} awaits approval {approval}: answer it with "
        f"`seamhost approve {session_id} {approval}` or `seamhost reject {session_id} "
        f"{approval}`, then continue with `seamhost run --resume {session_id} [SCENARIO]`"
    )


def reconcile_advice(session_id: str, parked: TurnOutcome) -> str:
    """What to do about a turn parked until unknown outcomes are reconciled."""
    return (
        f"session {session_id} is parked: {parked.message}; check what those calls did, record "
        f"it with `seamhost session reconcile {session_id} CALL_ID ...`, then continue with "
        f"`seamhost run --resume {session_id} [SCENARIO]`"
    )


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
