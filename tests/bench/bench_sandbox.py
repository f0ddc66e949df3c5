"""Confined spawn cost (issue "sandbox-local"), each backend against its baselines in one run.

For each backend that works here, three ways of running ``true``, interleaved round by round so
that noise hits all alike:

* **confined**: what a tool gets: the kernel's ``SandboxRunner`` asking sandbox-local (through the
  seam façade) to confine the command, spawning the answer and classifying its exit;
* **raw backend**: the same backend invoked directly with the same flags (``bwrap ... -- true``;
  the Landlock launcher ``python -I -S launch.py ... -- true``), by ``subprocess.run``;
* **unconfined**: ``true`` alone, by ``subprocess.run``.

Each way's figure is its best median over a few blocks of interleaved runs (other work on a
shared machine spoils a block, not the result).

Target: confined ≤ 1.3× the raw backend invocation (the plugin and the runner add little to the
backend's own cost). The raw backend against the unconfined spawn is printed for information:
it is the price of the isolation itself.

Run: ``python tests/bench/bench_sandbox.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _measure import Row, report
from seamhost_sandbox_local import SandboxLocal, probe_backends

from seamhost.jsonvalue import freeze
from seamhost.kernel.bundle import make_plugin_manager
from seamhost.kernel.plugins import PluginContext
from seamhost.kernel.seams import Seams
from seamhost.sandbox.confinement import ConfineRequest
from seamhost.sandbox.policy import SandboxMode, SandboxPolicy
from seamhost.sandbox.runner import SandboxRunner

TARGET = 1.3
# Runs are split into blocks and each way keeps its best block median: a burst of load on this
# shared machine spoils a block, not the result.
BLOCKS = 5
MODE = SandboxMode.WORKSPACE_WRITE


def seams_for(backend: str) -> Seams:
    config = freeze({"backends": [backend]})
    plugin = SandboxLocal(PluginContext("sandbox-local", config, Path("bench"), SandboxPolicy()))
    pm = make_plugin_manager()
    pm.register(plugin, name="sandbox-local")
    return Seams(pm)


def measure(backend: str, workspace: Path, runs: int) -> dict[str, float]:
    """Median milliseconds of the confined, raw and unconfined spawns of ``true``."""
    seams = seams_for(backend)
    runner = SandboxRunner(seams.confine, MODE, workspace)
    request = ConfineRequest(("true",), MODE, workspace)

    async def confined_argv() -> tuple[str, ...]:
        command, _ = await seams.sandbox_confine(request)
        return command.argv

    loop = asyncio.new_event_loop()
    try:
        raw = loop.run_until_complete(confined_argv())

        def confined() -> None:
            result = loop.run_until_complete(runner.run(("true",)))
            assert (result.returncode, result.verdict) == (0, "ok"), result.stderr

        def direct() -> None:
            subprocess.run(raw, check=True, cwd=workspace, stdin=subprocess.DEVNULL)

        def plain() -> None:
            subprocess.run(("true",), check=True, cwd=workspace, stdin=subprocess.DEVNULL)

        ways: dict[str, Callable[[], None]] = {
            "confined": confined,
            "raw": direct,
            "unconfined": plain,
        }
        for way in ways.values():  # warm up: the probe, first imports, page cache
            way()
        best = dict.fromkeys(ways, float("inf"))
        for _ in range(BLOCKS):
            samples: dict[str, list[float]] = {name: [] for name in ways}
            for _ in range(max(1, runs // BLOCKS)):
                for name, way in ways.items():
                    start = time.perf_counter()
                    way()
                    samples[name].append((time.perf_counter() - start) * 1000)
            for name, values in samples.items():
                best[name] = min(best[name], statistics.median(values))
    finally:
        loop.close()
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="seamhost-bench-sandbox-") as scratch:
        for backend in probe_backends():
            if not backend.available:
                print(f"{backend.name}: skipped, it does not work here: {backend.reason}")
                continue
            medians = measure(backend.name, Path(scratch), args.runs)
            ratio_ok = medians["confined"] <= TARGET * medians["raw"]
            rows += [
                Row(
                    f"{backend.name}: confined vs raw backend",
                    medians["confined"],
                    medians["raw"],
                    "ms",
                    f"<= {TARGET}x",
                    ratio_ok,
                ),
                Row(
                    f"{backend.name}: raw backend vs unconfined",
                    medians["raw"],
                    medians["unconfined"],
                    "ms",
                    "(information)",
                    True,
                ),
                Row(
                    f"{backend.name}: confined vs unconfined",
                    medians["confined"],
                    medians["unconfined"],
                    "ms",
                    "(information)",
                    True,
                ),
            ]
    if not rows:
        print("no sandbox backend works here: nothing to measure")
        return 1
    title = f"confined spawn of `true`, best median of {BLOCKS} blocks of interleaved runs"
    return report(f"{title} ({args.runs} runs in all)", rows)


if __name__ == "__main__":
    sys.exit(main())
