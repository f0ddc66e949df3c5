"""(a) and (b) without the noise: instructions per governed call, and per call added to a
durable step, against the call's 8 bare hook calls.

``bench_pipeline.py`` times the governed call against 8 bare pluggy hook calls in the same run,
but on a shared machine its baseline alone moves by 2× between runs (11.6 to 21.9 µs was seen),
and the ratio with it. Instructions do not: ``valgrind --tool=callgrind`` counts them the same for
the same code and inputs, whatever else the machine does. Each side runs in a child under
callgrind twice, for a short and a long loop, and the difference divided by the difference in
calls is the cost of one call without start-up. ``PYTHONHASHSEED=0`` and a paused collector keep
the count repeatable. Target: the governed call ≤ 2.5× its bare hook calls, as for the timed (a).

(b) the durable step of ``bench_pipeline.py`` (persistence-jsonl with checkpoint-policy, one turn
of steps of 1 and of 32 read-only calls, snapshots at the store's default interval), counted the
same way over 25 and 100 steps: a step's instructions for each size, and each call added to a
step, ``(step_32 − step_1) / 31``, against the same 8 bare hook calls. Target ≤ 2.5×, as for
the timed (b). Callgrind counts the writing thread too; the sync itself is the kernel's, and
counts nothing.

Usage: ``python tests/bench/bench_instructions.py [--short N] [--long N] [--no-durable]``
(valgrind needed; it says so and exits 0 without it). A run takes about five minutes, one without
(b) about one; ``--strict`` exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _measure import instructions as counted

HERE = Path(__file__).parent
TARGET = 2.5
DURABLE_STEPS = (25, 100)  # (b): steps in the short and the long run, one turn each
CHILD = """
import gc, sys, tempfile
from pathlib import Path
sys.path.insert(0, {here!r})
import bench_pipeline as b
kind, calls = sys.argv[1], int(sys.argv[2])
bundle = None
if kind == "governed":
    bundle = b.bench_bundle(Path(tempfile.mkdtemp()))
elif kind.startswith("durable-"):  # durable-N: `calls` steps of N calls, in one turn
    batch = int(kind.removeprefix("durable-"))
    bundle = b.durable_bundle(Path(tempfile.mkdtemp()))
    b.governed_calls(bundle, 5, batch=1)  # the first session: imports, schemas, the writer
gc.collect()
gc.disable()
if kind.startswith("durable-"):
    b.governed_calls(bundle, calls * batch, batch=batch)
elif bundle is not None:
    b.governed_calls(bundle, calls)
elif kind == "floor":
    import _floor
    _floor.floor_calls(calls)
else:
    b.bare_hooks(calls)
"""


def instructions(kind: str, calls: int) -> int:
    """Instructions a child running `calls` iterations of `kind` executes in all."""
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "child.py"
        script.write_text(CHILD.format(here=str(HERE)), encoding="utf-8")
        return counted([sys.executable, str(script), kind, str(calls)])


def per_call(kind: str, short: int, long: int) -> float:
    """Instructions of one iteration: the long loop minus the short one, per extra call.

    A first child, not counted, brings every imported module's cached bytecode up to date: a
    child that compiled what the other loaded would differ by the compiling (a third of the
    difference or more, seen after an edit), not by its calls alone.
    """
    subprocess.run(
        [sys.executable, "-c", CHILD.format(here=str(HERE)), kind, "1"],
        check=True,
        capture_output=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    )
    return (instructions(kind, long) - instructions(kind, short)) / (long - short)


def verdict(ratio: float) -> str:
    passed = "PASS" if ratio <= TARGET else "FAIL"
    return f"ratio {ratio:.2f}× (target <= {TARGET:g}×, margin {TARGET - ratio:+.2f}×) {passed}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", type=int, default=200, help="calls in the short loop of (a)")
    parser.add_argument("--long", type=int, default=1200, help="calls in the long loop of (a)")
    parser.add_argument("--no-durable", action="store_true", help="(a) only")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind not found: instruction counts skipped")
        return 0
    governed = per_call("governed", args.short, args.long)
    bare = per_call("bare", args.short, args.long)
    floor = per_call("floor", args.short, args.long)
    ratios = [governed / bare]
    print(f"(a) governed call:      {governed / 1000:9.1f}k instructions")
    print(f"    8 bare hook calls:  {bare / 1000:9.1f}k instructions")
    print(
        f"    its required work:  {floor / 1000:9.1f}k instructions (inline, tests/bench/_floor.py)"
    )
    print(f"    {verdict(ratios[0])}")
    if not args.no_durable:
        steps = {n: per_call(f"durable-{n}", *DURABLE_STEPS) for n in (1, 32)}
        added = (steps[32] - steps[1]) / 31
        ratios.append(added / bare)
        print(f"(b) durable step of 1 call:    {steps[1] / 1000:9.1f}k instructions")
        print(f"    durable step of 32 calls:  {steps[32] / 1000:9.1f}k instructions")
        print(f"    each call added to a step: {added / 1000:9.1f}k instructions")
        print(f"    {verdict(ratios[1])}")
    return 1 if args.strict and max(ratios) > TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
