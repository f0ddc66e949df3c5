"""Shared measuring for the benchmark scripts: interleaved runs, medians, a ratio table."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence

import attrs


@attrs.frozen
class Row:
    """One measured ratio against its baseline and the target it is held to."""

    name: str
    value: float
    baseline: float
    unit: str
    target: str
    ok: bool

    @property
    def ratio(self) -> float:
        return self.value / self.baseline if self.baseline else float("inf")


def interleaved(
    commands: Mapping[str, Sequence[str]],
    runs: int,
    before: Callable[[], object] | None = None,
) -> dict[str, float]:
    """Median wall time (ms) of each command, run round-robin so noise hits all alike.

    `before`, if given, is called untimed before every run (to reset what a run leaves behind).
    """
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            if before is not None:
                before()
            start = time.perf_counter()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[name].append((time.perf_counter() - start) * 1000)
    return {name: statistics.median(values) for name, values in times.items()}


def timed(function: Callable[[], object], repeat: int) -> float:
    """Median seconds of `function` over `repeat` calls."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def report(title: str, rows: list[Row]) -> int:
    """Print the table; return 0 when every target holds, 1 otherwise."""
    print(f"\n{title}")
    print(f"{'measure':44} {'value':>12} {'baseline':>12} {'ratio':>8}  target")
    for row in rows:
        mark = "ok" if row.ok else "MISSED"
        print(
            f"{row.name:44} {row.value:>10.3f}{row.unit:>2} {row.baseline:>10.3f}{row.unit:>2} "
            f"{row.ratio:>8.2f}  {row.target} {mark}"
        )
    sys.stdout.flush()
    return 0 if all(row.ok for row in rows) else 1


def instructions(argv: Sequence[str]) -> int:
    """Instructions `argv` executes in all, counted by ``valgrind --tool=callgrind``: the same
    count for the same code and inputs whatever else the machine does (``PYTHONHASHSEED=0``)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    match = re.search(r"refs:\s+([\d,]+)", done.stderr)
    if match is None:
        raise RuntimeError(f"no instruction count in valgrind's output: {done.stderr[-500:]}")
    return int(match.group(1).replace(",", ""))
