"""A worker: claim runs from the store's queue and drive each one (:mod:`.driving`).

Each claimed run gets a bundle built for it alone, so a fresh agent and model adapter: a
bundle's scripted model stays armed with the scenario it last replayed, so reusing one made a
``--prompt`` run claimed next replay the run before it. The run works in its workspace
(:mod:`.workspaces`), and a heartbeat extends its claim while it runs. How a claim ends:

* the run reached a final state: it is finished, and a workspace of the worker's own is removed
  (kept when the run parks: whoever continues it needs it);
* the session is held by a live lease (:class:`~seamhost.errors.SessionHeld`): the run is handed
  back for the lease's remaining time, so that a dead worker's run is claimed again as soon as
  its lease lapses, not after a fixed delay;
* the run's workspace is absent on this host, or the database failed under it: handed back, to
  be claimed again after a claim's length;
* the driver was fenced out (``LEASE_LOST``): the run is left to the new owner, and the claim
  noted as lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seamhost.errors import RunWorkspaceMissing, SeamhostError, SessionHeld, describe
from seamhost.run.driving import RunDriver
from seamhost.run.queue import store_lease
from seamhost.run.workspaces import default_state_root, run_workspace

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.run.queue import Run, RunQueue
    from seamhost.run.workspaces import RunWorkspace

# A run handed back because its session is held waits out the lease, and this much more, so
# that the next claim does not race the lease's last milliseconds on the database clock.
HELD_MARGIN_S = 0.05


class Worker:
    """Claims up to `concurrency` runs at a time and drives them; stops on `stop()`.

    `make_bundle(workspace)` builds a fresh bundle of the worker's profile for the run's
    workspace (one per run, closed when the run is left; mounted MCP servers are listed there);
    `state_root` holds the workspaces of the runs submitted without one (removed when such a
    run ends, unless `keep_workspaces` or it parked); `once` ends the worker when nothing is
    left to claim instead of polling every `poll_s`. `report` hears one line per run event;
    `advise` says, for a parked run's session, what a person does next (its line is added to
    the run's report; it may read the store).
    """

    def __init__(
        self,
        make_bundle: Callable[[Path], Bundle],
        queue: RunQueue,
        *,
        name: str,
        state_root: Path | None = None,
        keep_workspaces: bool = False,
        concurrency: int = 1,
        once: bool = False,
        poll_s: float = 0.5,
        claim_s: float = 30.0,
        report: Callable[[str], None] = lambda line: None,
        advise: Callable[[str], str | None] = lambda session_id: None,
    ) -> None:
        self.make_bundle = make_bundle
        self.queue = queue
        self.name = name
        self.state_root = state_root if state_root is not None else default_state_root()
        self.keep_workspaces = keep_workspaces
        self.concurrency = concurrency
        self.once = once
        self.poll_s = poll_s
        self.claim_s = claim_s
        self.report = report
        self.advise = advise
        self.stopping = asyncio.Event()
        self.ended: dict[str, int] = {}
        self._reached = False  # whether a claim ever reached the queue
        # Until when a run this worker handed back waits out a session's lease: `once` does
        # not count it as "nothing left to claim" before then (a dead worker's run is).
        self._held_until = 0.0

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
            idle = claimed_all and not running and time.monotonic() >= self._held_until
            if self.once and idle:
                break
            stop = asyncio.ensure_future(self.stopping.wait())
            waiters: set[asyncio.Future[Any]] = {stop, *running}
            await asyncio.wait(waiters, timeout=self.poll_s, return_when=asyncio.FIRST_COMPLETED)
            stop.cancel()
            running = {task for task in running if not task.done()}
        if running:
            await asyncio.gather(*running)
        return self.ended

    async def _one(self, run: Run) -> None:
        self.report(f"run {run.id} claimed (session {run.session_id}, claim {run.claims})")
        try:
            workspace = await asyncio.to_thread(run_workspace, run, self.state_root)
        except (RunWorkspaceMissing, OSError) as exc:
            await self._hand_back(run, exc, self.claim_s)
            return
        try:
            bundle = await asyncio.to_thread(self.make_bundle, workspace.path)
        except SeamhostError as exc:
            await asyncio.to_thread(self.queue.finish, run, "failed", f"failed: {describe(exc)}")
            self._count("failed", run, describe(exc))
            return
        try:
            await self._drive(bundle, run, workspace)
        finally:
            close = getattr(bundle.store, "close", None)
            if callable(close):
                with contextlib.suppress(Exception):  # the run's end is recorded already
                    await asyncio.to_thread(close)

    async def _drive(self, bundle: Bundle, run: Run, workspace: RunWorkspace) -> None:
        driver = RunDriver(bundle, run, workspace.path, owner=self.name)
        claim_s = min(self.claim_s, store_lease(bundle.store))
        beat = asyncio.create_task(self._heartbeat(driver, claim_s))
        try:
            end = await driver.drive()
            if end.lost:
                with contextlib.suppress(Exception):  # only a note: the run is the new owner's
                    await asyncio.to_thread(self.queue.note_end, run, f"lost: {end.outcome}")
                self._count("lost", run, end.outcome)
                return
            assert end.state is not None
            await asyncio.to_thread(self.queue.finish, run, end.state, end.outcome)
            said = end.outcome
            if end.state == "parked":
                with contextlib.suppress(Exception):  # advice only: the run is finished anyway
                    advice = await asyncio.to_thread(self.advise, run.session_id)
                    said += f"; {advice}" if advice else ""
            self._count(end.state, run, said)
            if workspace.own and end.state != "parked" and not self.keep_workspaces:
                shutil.rmtree(workspace.path, ignore_errors=True)
        except SessionHeld as exc:
            # A live owner (or one that died a moment ago): claimable again when its lease ends.
            delay_s = exc.seconds_left + HELD_MARGIN_S
            self._held_until = max(self._held_until, time.monotonic() + delay_s)
            await self._hand_back(run, exc, delay_s)
        except Exception as exc:
            # The session is unreadable or the database failed under it: the run goes back to
            # the queue (or, if even that fails, its claim lapses), and whoever takes it next
            # reopens its session.
            await self._hand_back(run, exc, claim_s)
        finally:
            beat.cancel()

    async def _hand_back(self, run: Run, exc: BaseException, delay_s: float) -> None:
        with contextlib.suppress(Exception):  # else its claim lapses, which hands it back too
            await asyncio.to_thread(
                self.queue.hand_back, run, f"handed back: {describe(exc)}", delay_s
            )
        self._count("handed-back", run, f"{describe(exc)} (claimable again in {delay_s:.1f} s)")

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


__all__ = ["Worker"]
