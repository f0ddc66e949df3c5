"""Driving one claimed run to its end: open or start its session, then run what remains.

A run whose session is not stored yet starts it in the run's workspace (and seeds the files its
scenario lists, those missing). One whose session exists (its previous worker died or stalled
past the lease) opens it, which takes the session's lease first: a live lease refuses the open
(:class:`~seamhost.errors.SessionHeld`, which the worker answers by handing the run back for the
lease's remaining time). Nothing here decides who may write: the store's lease and fence do, and
a driver fenced out (``LEASE_LOST``) stops and leaves the run to the new owner.

A run ends ``completed``, ``interrupted`` (its session was repaired and nothing was left to
run), ``parked`` (it waits on a deferred approval or on reconciliation) or ``failed``, with an
outcome line that starts with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from seamhost.errors import LeaseLost, SeamhostError, SessionDamaged, SessionMissing, describe

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.run.agent import TurnOutcome
    from seamhost.run.queue import Run
    from seamhost.session.live import Session
    from seamhost.session.repair import RepairPlan

SCRATCH_PREFIX = "seamhost-run-"  # where a scenario's bytes are written for the model to load


@attrs.frozen
class RunEnd:
    """How a driver left a run: a final state (None when it lost the run) and a line."""

    state: str | None  # completed | interrupted | parked | failed; None: lost to a new owner
    outcome: str
    lost: bool = False


def repair_summary(session: Session, plan: RepairPlan | None) -> str:
    """What repair closed, by result code, from the records it appended."""
    if plan is None:
        return ""
    counts: dict[str, int] = {}
    for record in session.records[len(session.records) - len(plan.events) :]:
        if record.type == "tool/result":
            code = str((record.data.get("error") or {}).get("code", "ok"))
            counts[code] = counts.get(code, 0) + 1
    shown = ", ".join(f"{n} {code}" for code, n in sorted(counts.items()))
    return f"repaired: {shown or 'no open call'}"


def classify(outcomes: list[TurnOutcome], repaired: str) -> RunEnd:
    """The run's final state and outcome line (its reason first) from how its turns ended."""
    notes = [repaired] if repaired else []
    if not outcomes:
        return RunEnd("interrupted" if repaired else "completed", "; ".join(notes or ["no turn"]))
    last = outcomes[-1]
    state = {"completed": "completed", "suspended": "parked"}.get(last.reason, "failed")
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

    def __init__(self, bundle: Bundle, run: Run, workspace: Path) -> None:
        self.bundle = bundle
        self.run = run
        self.workspace = workspace
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
        from seamhost.run.sessions import create_session, open_session

        bundle, run, workspace = self.bundle, self.run, self.workspace
        plan: RepairPlan | None = None
        resumed = True
        try:
            session, plan = await asyncio.to_thread(open_session, bundle, run.session_id)
        except SessionMissing:
            resumed = False
            session = create_session(bundle, session_id=run.session_id, cwd=str(workspace))
        except SessionDamaged as exc:
            return RunEnd("failed", f"failed: {describe(exc)}")
        self.session = session
        repaired = repair_summary(session, plan)
        turns = sum(1 for record in session.records if record.type == "turn/start")
        try:
            messages = self._messages(scratch, turns, seed=not resumed)
        except SeamhostError as exc:
            with contextlib.suppress(SeamhostError):
                session.close()
            return RunEnd("failed", f"failed: {describe(exc)}")
        agent = Agent(bundle, session, workspace=workspace)
        outcomes: list[TurnOutcome] = []
        try:
            if resumed:
                from seamhost.run.probing import probe_unknowns

                await probe_unknowns(bundle, session, workspace, cancelled=agent.cancelled)
                parked = await agent.resume()
                if parked is not None:
                    outcomes.append(parked)
            for message in messages:
                if outcomes and outcomes[-1].reason == "suspended":
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
        return classify(outcomes, repaired)

    def _messages(self, scratch: Path, turns: int, *, seed: bool) -> list[str]:
        """The user messages still to run after `turns` stored turns; arms the scripted model
        with the run's scenario and, for a new session (`seed`), creates the files it lists
        that the workspace lacks (a takeover keeps what the run made of them)."""
        run = self.run
        if run.scenario is None:
            return [run.prompt] if run.prompt is not None and turns == 0 else []
        path = scratch / (run.scenario_name or "scenario.toml")
        path.write_bytes(run.scenario)
        # Session turn k is scripted turn k: a turn that crashed is over once repaired, and
        # the run goes on with the scenario's next turn (not from its first, as `run --resume`).
        script = self.bundle.seams.llm_replay(path, 1)
        if seed:
            for name, content in script.workspace.items():
                target = self.workspace / name
                if target.exists():
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(content, encoding="utf-8")
        return list(script.user_messages)[turns:]


__all__ = ["RunDriver", "RunEnd", "classify", "repair_summary"]
