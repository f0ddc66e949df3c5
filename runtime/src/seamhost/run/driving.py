"""Driving one claimed run to its end: start or take over its session, then run what remains.

A run whose session is not stored yet starts it in the run's workspace (and seeds the files its
scenario lists, those missing). One whose session exists (its previous worker died or stalled
past the lease) is taken over: :func:`~seamhost.run.sessions.continue_session` takes the
session's lease first (a live lease refuses it: :class:`~seamhost.errors.SessionHeld`, which the
worker answers by handing the run back for the lease's remaining time), records the takeover
(this worker's name, the lease epoch, the open turn, step and calls) and the open turn is
continued (:meth:`~seamhost.run.agent.Agent.continue_turn`), not closed ``interrupted``: calls
that never started are governed and dispatched once, a call in flight gets its unknown outcome
and the profile's ``[recovery] on_unknown`` policy, and the scenario's later turns follow.
Nothing here decides who may write: the store's lease and fence do, and a driver fenced out
(``LEASE_LOST``) stops before its next body and leaves the run to the new owner.

A run ends ``completed``, ``parked`` (it waits on a deferred approval or on reconciliation) or
``failed``, with an outcome line that starts with the reason; a session whose recorded bundle
differs from the worker's (``BUNDLE_CHANGED``) is not continued, and the run fails saying how.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from seamhost.errors import (
    BundleChanged,
    LeaseLost,
    SeamhostError,
    SessionDamaged,
    SessionMissing,
    describe,
)
from seamhost.run.scripts import seed

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.llm.replay import Script
    from seamhost.run.agent import TurnOutcome
    from seamhost.run.queue import Run
    from seamhost.session.continuation import ContinuationPlan
    from seamhost.session.live import Session

# How a turn that waits ends: on a deferred approval, or on reconciliation (on_unknown = park).
PARKING = {"suspended": "parked", "parked": "parked"}
SCRATCH_PREFIX = "seamhost-run-"  # where a scenario's bytes are written for the model to load


@attrs.frozen
class RunEnd:
    """How a driver left a run: a final state (None when it lost the run) and a line."""

    state: str | None  # completed | parked | failed; None: lost to a new owner
    outcome: str
    lost: bool = False


def takeover_summary(plan: ContinuationPlan | None) -> str:
    """What a takeover found open, for the run's outcome line."""
    if plan is None:
        return ""
    where = f"turn {plan.turn}" + (f" step {plan.step}" if plan.step is not None else "")
    counts = [
        f"{len(calls)} {what}"
        for calls, what in ((plan.in_flight, "in flight"), (plan.not_started, "not started"))
        if calls
    ]
    return f"taken over at {where}" + (f" ({', '.join(counts)})" if counts else "")


def classify(outcomes: list[TurnOutcome], taken: str) -> RunEnd:
    """The run's final state and outcome line (its reason first) from how its turns ended."""
    notes = [taken] if taken else []
    if not outcomes:
        return RunEnd("completed", "; ".join(["completed: no turn left", *notes]))
    last = outcomes[-1]
    state = PARKING.get(last.reason, "completed" if last.reason == "completed" else "failed")
    if state == "parked":
        waits = f"deferred approval {last.approval}" if last.approval else "reconciliation"
        reason = f"parked: waits on {waits}"
    elif state == "failed":
        reason = f"failed: turn {last.turn} ended {last.reason}"
    else:
        reason = "completed"
    notes.insert(0, f"{reason}; {len(outcomes)} turn(s)")
    if last.message:
        notes.append(last.message)
    return RunEnd(state, "; ".join(notes))


class RunDriver:
    """Drives one claimed run to its end on a bundle of its own, in the run's workspace."""

    def __init__(self, bundle: Bundle, run: Run, workspace: Path, *, owner: str) -> None:
        self.bundle = bundle
        self.run = run
        self.workspace = workspace
        self.owner = owner  # who the takeover record names: the worker
        self.session: Session | None = None

    def progress(self) -> str:
        session = self.session
        if session is None:
            return "opening"
        turns = sum(1 for record in session.records if record.type == "turn/start")
        return f"turn {turns}, {session.next_seq} records"

    async def drive(self) -> RunEnd:
        scratch = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX))
        try:
            return await self._drive(scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    async def _drive(self, scratch: Path) -> RunEnd:
        from seamhost.run.agent import Agent
        from seamhost.run.sessions import continue_session, create_session

        bundle, run, workspace = self.bundle, self.run, self.workspace
        try:
            # Armed before the session is opened, so that the model's identity is recorded
            # in a new session's header and checked against it on a takeover.
            script = self._arm(scratch)
        except SeamhostError as exc:
            return RunEnd("failed", f"failed: {describe(exc)}")
        plan: ContinuationPlan | None = None
        taken = True
        try:
            session, plan = await asyncio.to_thread(
                continue_session, bundle, run.session_id, owner=self.owner
            )
        except SessionMissing:
            taken = False
            session = create_session(bundle, session_id=run.session_id, cwd=str(workspace))
            if script is not None:  # never on a takeover, which keeps what the run made of them
                seed(workspace, script)
        except (SessionDamaged, BundleChanged) as exc:
            return RunEnd("failed", f"failed: {describe(exc)}")
        self.session = session
        turns = sum(1 for record in session.records if record.type == "turn/start")
        if script is not None:
            messages = list(script.user_messages)[turns:]
        else:
            messages = [run.prompt] if run.prompt is not None and turns == 0 else []
        agent = Agent(bundle, session, workspace=workspace)
        outcomes: list[TurnOutcome] = []
        try:
            if taken:
                from seamhost.run.probing import probe_unknowns

                # Unknowns of earlier turns first; the open turn's are its continuation's.
                await probe_unknowns(bundle, session, workspace, cancelled=agent.cancelled)
                continued = await agent.continue_turn(plan)
                if continued is not None:
                    outcomes.append(continued)
            for message in messages:
                if outcomes and outcomes[-1].reason in PARKING:
                    break
                outcomes.append(await agent.run_turn(message))
            await session.flush()
        except Exception as exc:
            lost = LeaseLost.found_in(exc)
            if lost is None:
                raise
            return RunEnd(None, describe(lost), lost=True)
        finally:
            with contextlib.suppress(SeamhostError):
                session.close()
        return classify(outcomes, takeover_summary(plan))

    def _arm(self, scratch: Path) -> Script | None:
        """Arm the scripted model with the run's scenario, if the run has one.

        Session turn k is scripted turn k: a crashed turn is continued where it stopped, and
        the run goes on with the scenario's next turns.
        """
        run = self.run
        if run.scenario is None:
            return None
        path = scratch / (run.scenario_name or "scenario.toml")
        path.write_bytes(run.scenario)
        return self.bundle.seams.llm_replay(path, 1)


__all__ = ["RunDriver", "RunEnd", "classify", "takeover_summary"]
