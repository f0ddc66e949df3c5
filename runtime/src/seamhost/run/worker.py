"""A worker: claim runs from the store's queue and drive each session through the runtime.

Each claimed run gets a bundle to itself while it runs (the scripted model replays one scenario
per bundle; a finished run's bundle serves the next), a fresh temporary workspace and a
heartbeat that extends its claim while it runs. A run whose
session is not stored yet starts it; one whose session exists (its previous worker died or
stalled past the lease) opens it, which takes the session's lease and repairs its tail
(:func:`seamhost.run.sessions.open_session`), probes unknown outcomes, continues a parked turn
and then runs the turns that remain. Nothing here decides who may write: the store's lease and
fence do, and a worker fenced out (``LEASE_LOST``) stops driving the run and leaves it to the
new owner. Runs end ``completed``, ``interrupted`` (the session was repaired and nothing was
left to run), ``parked`` (it waits on a deferred approval) or ``failed``, with an outcome line.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.errors import LeaseLost, SeamhostError, SessionDamaged, SessionMissing, describe
from seamhost.run.queue import store_lease

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.run.agent import TurnOutcome
    from seamhost.run.queue import Run, RunQueue
    from seamhost.session.live import Session
    from seamhost.session.repair import RepairPlan

WORKSPACE_PREFIX = "seamhost-worker-"


@attrs.frozen
class RunEnd:
    """How a worker left a run: a final state (None when it handed the run on) and a line."""

    state: str | None  # completed | interrupted | parked | failed; None: lost or handed back
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
    notes = [repaired] if repaired else []
    if not outcomes:
        return RunEnd("interrupted" if repaired else "completed", "; ".join(notes or ["no turn"]))
    last = outcomes[-1]
    notes.insert(0, f"{len(outcomes)} turn(s), the last {last.reason}")
    if last.message:
        notes.append(last.message)
    state = {"completed": "completed", "suspended": "parked"}.get(last.reason, "failed")
    return RunEnd(state, "; ".join(notes))


class RunDriver:
    """Drives one claimed run to its end on its own bundle."""

    def __init__(self, bundle: Bundle, run: Run) -> None:
        self.bundle = bundle
        self.run = run
        self.session: Session | None = None

    def progress(self) -> str:
        session = self.session
        if session is None:
            return "opening"
        turns = sum(1 for record in session.records if record.type == "turn/start")
        return f"turn {turns}, {session.next_seq} records"

    async def drive(self) -> RunEnd:
        scratch = Path(tempfile.mkdtemp(prefix=WORKSPACE_PREFIX))
        try:
            return await self._drive(scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    async def _drive(self, scratch: Path) -> RunEnd:
        from seamhost.run.agent import Agent
        from seamhost.run.sessions import create_session, open_session

        bundle, run = self.bundle, self.run
        workspace = scratch / "workspace"
        workspace.mkdir()
        plan: RepairPlan | None = None
        resumed = True
        try:
            session, plan = await asyncio.to_thread(open_session, bundle, run.session_id)
        except SessionMissing:
            resumed = False
            session = create_session(bundle, session_id=run.session_id, cwd=str(workspace))
        except SessionDamaged as exc:
            return RunEnd("failed", describe(exc))
        self.session = session
        repaired = repair_summary(session, plan)
        turns = sum(1 for record in session.records if record.type == "turn/start")
        messages = self._messages(scratch, workspace, turns)
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

    def _messages(self, scratch: Path, workspace: Path, turns: int) -> list[str]:
        """The user messages still to run after `turns` stored turns; seeds the workspace."""
        run = self.run
        if run.scenario is None:
            return [run.prompt] if run.prompt is not None and turns == 0 else []
        path = scratch / (run.scenario_name or "scenario.toml")
        path.write_bytes(run.scenario)
        # Session turn k is scripted turn k: a turn that crashed is over once repaired, and
        # the run goes on with the scenario's next turn (not from its first, as `run --resume`).
        script = self.bundle.seams.llm_replay(path, 1)
        for name, content in script.workspace.items():
            target = workspace / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        return list(script.user_messages)[turns:]


class Worker:
    """Claims up to `concurrency` runs at a time and drives them; stops on `stop()`.

    `make_bundle` builds a fresh bundle of the worker's profile (one per run); `once` ends the
    worker when nothing is left to claim instead of polling every `poll_s`. `report` hears one
    line per run event.
    """

    def __init__(
        self,
        make_bundle: Callable[[], Bundle],
        queue: RunQueue,
        *,
        name: str,
        concurrency: int = 1,
        once: bool = False,
        poll_s: float = 0.5,
        claim_s: float = 30.0,
        report: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.make_bundle = make_bundle
        self.queue = queue
        self.name = name
        self.concurrency = concurrency
        self.once = once
        self.poll_s = poll_s
        self.claim_s = claim_s
        self.report = report
        self.stopping = asyncio.Event()
        self.ended: dict[str, int] = {}
        self._reached = False  # whether a claim ever reached the queue
        # Bundles not driving a run. A bundle drives one run at a time (the scripted model
        # replays one scenario per bundle), and is reused by the next: building one per run
        # would cost more than a short run itself.
        self._idle: list[Bundle] = []

    def stop(self) -> None:
        """Claim nothing more; the runs being driven finish (design.md §14)."""
        self.stopping.set()

    async def serve(self) -> dict[str, int]:
        """Claim and drive runs until stopped (or, with `once`, until none is claimable)."""
        running: set[asyncio.Task[None]] = set()
        while not self.stopping.is_set():
            claimed_all = False
            while len(running) < self.concurrency and not self.stopping.is_set():
                try:
                    run = await asyncio.to_thread(self.queue.claim, self.name, self.claim_s)
                except SeamhostError as exc:
                    if not self._reached:  # the first claim: the store cannot be used at all
                        raise
                    self.report(f"claiming failed: {describe(exc)}")  # try again after a poll
                    break
                self._reached = True
                if run is None:
                    claimed_all = True
                    break
                running.add(asyncio.create_task(self._one(run)))
            if self.once and claimed_all and not running:
                break
            stop = asyncio.ensure_future(self.stopping.wait())
            waiters: set[asyncio.Future[Any]] = {stop, *running}
            await asyncio.wait(waiters, timeout=self.poll_s, return_when=asyncio.FIRST_COMPLETED)
            stop.cancel()
            running = {task for task in running if not task.done()}
        if running:
            await asyncio.gather(*running)
        for bundle in self._idle:
            close = getattr(bundle.store, "close", None)
            if callable(close):
                await asyncio.to_thread(close)
        self._idle.clear()
        return self.ended

    async def _one(self, run: Run) -> None:
        self.report(f"run {run.id} claimed (session {run.session_id}, claim {run.claims})")
        try:
            bundle = self._idle.pop() if self._idle else await asyncio.to_thread(self.make_bundle)
        except SeamhostError as exc:
            await asyncio.to_thread(self.queue.finish, run, "failed", describe(exc))
            self._count("failed", run, describe(exc))
            return
        try:
            await self._drive(bundle, run)
        finally:
            self._idle.append(bundle)

    async def _drive(self, bundle: Bundle, run: Run) -> None:
        driver = RunDriver(bundle, run)
        claim_s = min(self.claim_s, store_lease(bundle.store))
        beat = asyncio.create_task(self._heartbeat(driver, claim_s))
        try:
            end = await driver.drive()
            if end.lost:
                self._count("lost", run, end.outcome)
                return
            assert end.state is not None
            await asyncio.to_thread(self.queue.finish, run, end.state, end.outcome)
            self._count(end.state, run, end.outcome)
        except Exception as exc:
            # The session could not be opened (held by a live lease, unreadable) or the database
            # failed under it: the run goes back to the queue (or, if even that fails, its
            # claim lapses), and whoever takes it next reopens and repairs its session.
            with contextlib.suppress(Exception):  # claimable again once a lease could lapse
                await asyncio.to_thread(
                    self.queue.hand_back, run, f"handed back: {describe(exc)}", claim_s
                )
            self._count("handed-back", run, describe(exc))
        finally:
            beat.cancel()

    async def _heartbeat(self, driver: RunDriver, claim_s: float) -> None:
        while True:
            await asyncio.sleep(claim_s / 3)
            try:
                held = await asyncio.to_thread(
                    self.queue.heartbeat, driver.run, claim_s, driver.progress()
                )
            except Exception:  # the next beat tries again; the session's lease is what fences
                continue
            if not held:
                return  # the claim went to another worker; the session's lease decides

    def _count(self, state: str, run: Run, outcome: str) -> None:
        self.ended[state] = self.ended.get(state, 0) + 1
        self.report(f"run {run.id} {state}: {outcome}")


__all__ = ["RunDriver", "RunEnd", "Worker", "classify", "repair_summary"]
