"""Running a plan's cells: one after another in this process, or in worker processes.

Each cell gets a directory of its own under the matrix's work directory
(``<profile>/<scenario>``). With ``jobs`` above 1 the cells are shared out among that many
worker processes, forked from this one once the plan is checked, so they inherit the resolved
profiles and the imported plugins; workers ignore Ctrl-C, which stops this process alone: the
cells still running are abandoned (their workers terminated) and :class:`Interrupted` carries the
results of the cells that finished.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path

from seamhost.matrix.cells import CellResult, run_cell
from seamhost.matrix.plan import Cell, Plan, resolved

OnDone = Callable[[CellResult], None]


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped the matrix; `done` holds the cells that finished before it."""

    def __init__(self, done: list[CellResult]) -> None:
        super().__init__("interrupted")
        self.done = done


def cell_dir(work: Path, cell: Cell) -> Path:
    """Where `cell` keeps its store and workspace."""
    return work / _safe(cell.profile) / _safe(cell.scenario.stem)


def run_one(cell: Cell, work: Path) -> CellResult:
    """Run `cell` under `work` (in whichever process this is)."""
    return run_cell(resolved(cell.ref), cell.scenario, cell_dir(work, cell))


def run_plan(
    plan: Plan, work: Path, *, jobs: int = 1, on_done: OnDone | None = None
) -> list[CellResult]:
    """The result of every cell of `plan`, in the plan's order; `on_done` sees each as it ends."""
    if jobs <= 1 or len(plan.cells) <= 1:
        return _in_process(plan, work, on_done)
    return _in_workers(plan, work, jobs, on_done)


def _in_process(plan: Plan, work: Path, on_done: OnDone | None) -> list[CellResult]:
    done: list[CellResult] = []
    stopped: list[int] = []

    def interrupt(signum: int, frame: object) -> None:
        # Our own handler, so asyncio.run does not install its own, which cancels the turn and
        # lets a turn that ends "interrupted" pass for a finished cell.
        stopped.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        for cell in plan.cells:
            result = run_one(cell, work)
            if stopped:
                break
            done.append(result)
            if on_done is not None:
                on_done(result)
    except KeyboardInterrupt:
        stopped.append(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
    if stopped:
        raise Interrupted(done)
    return done


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _in_workers(plan: Plan, work: Path, jobs: int, on_done: OnDone | None) -> list[CellResult]:
    # Forked, so that a worker starts with what this process has loaded and resolved.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    results: dict[int, CellResult] = {}
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_ignore_interrupts)
    try:
        pending: dict[Future[CellResult], int] = {
            pool.submit(run_one, cell, work): index for index, cell in enumerate(plan.cells)
        }
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                index = pending.pop(future)
                results[index] = _result_of(future, plan.cells[index])
                if on_done is not None:
                    on_done(results[index])
    except KeyboardInterrupt:
        _abandon(pool)
        raise Interrupted([results[i] for i in sorted(results)]) from None
    pool.shutdown()
    return [results[i] for i in range(len(plan.cells))]


def _result_of(future: Future[CellResult], cell: Cell) -> CellResult:
    """The cell's result; a worker that died running it makes it a crashed cell."""
    try:
        return future.result()
    except Exception as exc:  # the worker process died (BrokenProcessPool) or could not pickle
        return CellResult(cell.profile, cell.scenario.stem, "error", error=f"worker lost: {exc!r}")


def _abandon(pool: ProcessPoolExecutor) -> None:
    """Stop the pool now: queued cells never start, running ones are terminated."""
    workers = multiprocessing.active_children()  # the pool's workers: this process starts no other
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        process.terminate()
    for process in workers:
        process.join(5)


def _safe(name: str) -> str:
    """A directory name for a profile or scenario name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "_"


__all__ = ["Interrupted", "cell_dir", "run_one", "run_plan"]
