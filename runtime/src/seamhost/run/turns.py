"""Driving a session's turns to the end of a run, and the one word that says how the run ended.

``seamhost run``, ``seamhost exec`` and the embedding API (:mod:`seamhost.embed`) continue a
session the same way: on a resume, what status probes can tell about earlier unknown outcomes is
learnt first (design.md §10) and the open turn is continued where a crash or a deferred approval
left it (design.md §6, §11); then each new user message is a turn, until one parks or the run
is cancelled. A run then ended with one of :data:`RUN_OUTCOMES`, the words ``run --json``'s
summary uses too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from seamhost.errors import SeamUnavailable

if TYPE_CHECKING:
    from seamhost.run.agent import Agent
    from seamhost.run.turn_outcome import TurnOutcome
    from seamhost.session.continuation import ContinuationPlan

# How a turn that waits ends: on a deferred approval, or on reconciliation (on_unknown = park).
PARKED = ("suspended", "parked")
# completed: every turn ended well; parked: the last turn waits on an approval or a
# reconciliation; failed: a turn did not complete; interrupted: the run was cancelled.
RUN_OUTCOMES = ("completed", "parked", "failed", "interrupted")


async def drive(
    agent: Agent,
    messages: Iterable[str],
    *,
    resume: bool = False,
    plan: ContinuationPlan | None = None,
) -> list[TurnOutcome]:
    """Continue the open turn (with `resume`), then run a turn per message; see the module.

    `plan` is what :func:`~seamhost.run.sessions.continue_session` returned. The session is
    flushed at the end (a memory-only session has nothing to flush).
    """
    outcomes: list[TurnOutcome] = []
    if resume and plan is None:  # design.md §10: what the tools can tell is known first
        from seamhost.run.probing import probe_unknowns  # a fresh run has nothing to probe

        await probe_unknowns(
            agent.bundle, agent.session, agent.workspace, cancelled=agent.cancelled
        )
    resumed = await agent.continue_turn(plan) if resume else None
    if resumed is not None:  # the open turn came first; the later turns follow
        outcomes.append(resumed)
    for message in messages:
        if outcomes and outcomes[-1].reason in PARKED:
            break
        outcomes.append(await agent.run_turn(message))
        if agent.cancelled.is_set():
            break
    with contextlib.suppress(SeamUnavailable):  # memory-only sessions have nothing to flush
        await agent.session.flush()
    return outcomes


def run_outcome(outcomes: Sequence[TurnOutcome], *, interrupted: bool = False) -> str:
    """How a run whose turns ended as `outcomes` ended: one of :data:`RUN_OUTCOMES`."""
    if interrupted:
        return "interrupted"
    if outcomes and outcomes[-1].reason in PARKED:
        return "parked"
    if any(o.reason not in ("completed", *PARKED) for o in outcomes):
        return "failed"
    return "completed"


__all__ = ["PARKED", "RUN_OUTCOMES", "drive", "run_outcome"]
