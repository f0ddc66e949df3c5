"""``seamhost matrix``: run every scenario under every profile and say which cells failed.

What runs and how a cell is judged is :mod:`seamhost.matrix`'s; this module is the command: its
options and their defaults from ``[tool.seamhost.matrix]``, the progress bar (stderr, only on a
terminal), the summary table or ``--json``, ``--junit`` and the exit code. The cells' stores live
under one work directory, removed when every cell passed and kept (its path printed) otherwise,
so the sessions the failures name can be looked at.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import click

from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.failures import report
from seamhost.cli.output import console, emit_json
from seamhost.matrix.cells import CellResult
from seamhost.matrix.junit import write_junit
from seamhost.matrix.plan import Plan, command_line, make_plan, read_defaults
from seamhost.matrix.running import Interrupted, cell_dir, run_plan


@click.command()
@click.option(
    "--profile",
    "-p",
    "profiles",
    multiple=True,
    metavar="PROFILE",
    help="A profile name, path or glob of either (repeatable; default: the "
    "[tool.seamhost.matrix] profiles of ./pyproject.toml).",
)
@click.option(
    "--scenario",
    "-s",
    "scenarios",
    multiple=True,
    metavar="SCENARIO",
    help="A scenario file, directory or glob (repeatable; default: the [tool.seamhost.matrix] "
    "scenarios of ./pyproject.toml).",
)
@click.option(
    "--junit",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write JUnit XML here: one testcase per cell (classname the profile, name the scenario).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    help="Run the cells in this many worker processes (default 1: in this one).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print one JSON object {"outcome", "exit_code", "cells": [...]} instead of the table.',
)
def matrix(
    *,
    profiles: tuple[str, ...],
    scenarios: tuple[str, ...],
    junit: Path | None,
    jobs: int | None,
    as_json: bool,
) -> None:
    """Run every scenario under every profile, each cell in its own session and store.

    A cell passes when it meets its scenario's expectations ([expect], and each call's expect),
    or, when the scenario states none, when its session completes with no call ending in an
    error. Exit 0 when every cell passes, 1 when one does not, 2 for a missing or invalid
    profile or scenario (before any cell runs), 130 on Ctrl-C (the JUnit then holds the cells
    that finished).
    """
    here = Path.cwd()
    defaults = read_defaults(here)
    plan = make_plan(
        command_line("--profile", profiles, here) or defaults.profiles,
        command_line("--scenario", scenarios, here) or defaults.scenarios,
    )
    junit = junit or defaults.junit
    work = Path(tempfile.mkdtemp(prefix="seamhost-matrix-"))
    err = console(stderr=True)
    try:
        with _progress(plan, show=err.is_terminal and not as_json) as advance:
            results = run_plan(plan, work, jobs=jobs or defaults.jobs or 1, on_done=advance)
    except Interrupted as stop:
        if junit is not None:
            write_junit(junit, stop.done)
        done = f"{len(stop.done)} of {len(plan.cells)} cells done"
        written = f"; JUnit of those written to {junit}" if junit is not None else ""
        report(ExitCode.INTERRUPTED, f"interrupted: {done}{written}; stores under {work}")
        sys.exit(int(ExitCode.INTERRUPTED))
    if junit is not None:
        write_junit(junit, results)
    failed = [r for r in results if not r.ok]
    code = ExitCode.FAILURE if failed else ExitCode.OK
    if as_json:
        _print_json(code, results, junit, work if failed else None)
    else:
        _print_table(results, junit)
    if not failed:
        shutil.rmtree(work, ignore_errors=True)
        sys.exit(int(code))
    # Where to look: `SEAMHOST_HOME=<store> seamhost session show ID` (results are in plan order).
    for cell, result in zip(plan.cells, results, strict=True):
        if not result.ok:
            err.print(f"store of {cell.id}: {cell_dir(work, cell) / 'home'}", highlight=False)
    count = f"{len(failed)} of {len(results)} cells failed"
    report(
        code,
        f"{count}: " + "; ".join(f"{r.profile}::{r.scenario}: {r.reason}" for r in failed),
        as_json=False,
    )
    sys.exit(int(code))


@contextmanager
def _progress(plan: Plan, *, show: bool) -> Iterator[Callable[[CellResult], None] | None]:
    """A progress bar on stderr while the cells run, when stderr is a terminal."""
    if not show:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("matrix", total=len(plan.cells))

        def advance(result: CellResult) -> None:
            mark = "passed" if result.ok else "FAILED"
            bar.update(task, advance=1, description=f"{result.profile}::{result.scenario} {mark}")

        yield advance


def _print_table(results: Sequence[CellResult], junit: Path | None) -> None:
    from rich.table import Table

    table = Table("profile", "scenario", "result", "outcome", "calls", "denied", "asked", "time")
    for r in results:
        table.add_row(
            r.profile,
            r.scenario,
            "pass" if r.ok else "FAIL",
            r.outcome,
            str(len(r.calls)),
            str(r.denied),
            str(r.asked),
            f"{r.seconds:.2f}s",
        )
    out = console()
    out.print(table)
    passed = sum(r.ok for r in results)
    out.print(f"{passed} of {len(results)} cells passed", highlight=False)
    if junit is not None:
        out.print(f"JUnit: {junit}", highlight=False)


def _print_json(
    code: ExitCode, results: Sequence[CellResult], junit: Path | None, kept: Path | None
) -> None:
    emit_json(
        {
            "outcome": "passed" if code == ExitCode.OK else "failed",
            "exit_code": int(code),
            "cells": [r.to_json() for r in results],
            "junit": str(junit) if junit is not None else None,
            "stores": str(kept) if kept is not None else None,
        }
    )
