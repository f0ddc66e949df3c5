"""What a cell is held to: its script's expectations, or, without any, a clean run.

A script that states expectations (:class:`~seamhost.llm.replay.ExpectingScript`, such as a
model-scripted scenario with ``[expect]`` or per-call ``expect``) is held to them: the session's
outcome (``completed`` unless it says otherwise) and, for each call it names, its result code, its
decision and whether its body ran. A script that states none passes when the session completed
and every call succeeded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from seamhost.llm.replay import CallExpectation, CellExpectations, ExpectingScript

if TYPE_CHECKING:
    from seamhost.embed.reports import CallReport
    from seamhost.llm.replay import Script

OK = "ok"
NOT_RUN = "not run"


def expectations_of(script: Script, profile: str) -> CellExpectations:
    """What `script` expects of a fresh session under `profile` (its per-call outcomes only,
    when it is a plain :class:`~seamhost.llm.replay.Script`)."""
    if isinstance(script, ExpectingScript):
        return script.cell_expectations(profile)
    calls = tuple(
        CallExpectation(e.call_id, e.tool, code=e.outcome) for e in script.expectations(profile, 1)
    )
    return CellExpectations(None, calls)


def unmet(expected: CellExpectations, outcome: str, calls: Sequence[CallReport]) -> list[str]:
    """Each expectation the cell did not meet, in words a CI log can show."""
    problems = []
    wanted = expected.outcome or "completed"
    if outcome != wanted:
        problems.append(f"session outcome: expected {wanted}, got {outcome}")
    if expected.outcome is None and not expected.calls:
        problems += [
            f"{c.call_id} ({c.tool}): ended {c.code}, and the scenario expects nothing else"
            for c in calls
            if c.code not in (OK, None)
        ]
        return problems
    reports = {c.call_id: c for c in calls}
    for e in expected.calls:
        problems += _call_problems(e, reports.get(e.call_id))
    return problems


def _call_problems(e: CallExpectation, report: CallReport | None) -> list[str]:
    name = f"{e.call_id} ({e.tool})"
    got_code = report.code if report is not None and report.code is not None else NOT_RUN
    ran = report is not None and report.ran
    problems = []
    if e.code is not None and got_code != e.code:
        problems.append(f"{name}: expected {e.code}, got {got_code}")
    if e.decision is not None:
        decision = report.decision if report is not None else None
        if decision != e.decision:
            problems.append(
                f"{name}: expected decision {e.decision}, got {decision or 'none (not proposed)'}"
            )
    if e.ran is not None and ran != e.ran:
        problems.append(
            f"{name}: expected {NOT_RUN}, but its body ran"
            if ran
            else f"{name}: expected its body to run, got {NOT_RUN} ({got_code})"
        )
    return problems


__all__ = ["NOT_RUN", "OK", "expectations_of", "unmet"]
