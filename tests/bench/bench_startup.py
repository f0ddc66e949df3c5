"""Start-up cost (issues "Kernel, workspace and profiles" and 36 point 6): `import seamhost`,
`seamhost --help`, `seamhost profile check` on a shipped profile and `seamhost run` of the
quickstart scenario, each against `python -c pass` in the same run.

Targets: import ≤ 3×, profile check ≤ 8×, --help ≤ 4×, run ≤ 10× the bare interpreter (wall
clock, interleaved medians). The last two are out of reach: in instructions (callgrind, when
valgrind is installed), `import click` alone is 4.2× bare and what a run cannot run without
(click, attrs, cattrs, pluggy, asyncio) 10.1×. So the script also counts each command's
instructions against its floor and holds those: --help ≤ 1.4× `import click`, run ≤ 3× its
floor (1.25× and 2.92× when set).

Bytecode is compiled first, as an installer would. Every command runs with a temporary
``SEAMHOST_HOME`` whose cache a first, untimed round fills (as any command after the first finds
it); the sessions a run stores are removed before each run, so runs do not accumulate.
Run: ``python tests/bench/bench_startup.py [--runs N] [--profile NAME] [--scenario FILE]``.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _measure import Row, instructions, interleaved, report

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--profile", default="default")
    parser.add_argument("--scenario", type=Path, default=ROOT / "examples" / "quickstart.toml")
    args = parser.parse_args()
    import seamhost

    sources = Path(seamhost.__file__).parent.parent
    plugins = sorted(sources.parent.parent.glob("plugins/*/src"))
    for root in {sysconfig.get_paths()["purelib"], str(sources), *map(str, plugins)}:
        compileall.compile_dir(root, quiet=1)
    python = sys.executable
    # The `seamhost` console script installed beside this interpreter: what users run.
    script = str(Path(sys.executable).with_name("seamhost"))
    commands: dict[str, list[str]] = {
        "bare": [python, "-c", "pass"],
        # What no seamhost command can avoid: the CLI framework, then what a run is built on
        # (the data model and its codec, the plugin host, the event loop). The targets
        # are held against these floors in the report.
        "click": [python, "-c", "import click"],
        "floor": [python, "-c", "import click, attrs, cattrs, pluggy, asyncio"],
        "import": [python, "-c", "import seamhost"],
        "help": [script, "--help"],
        "check": [script, "profile", "check", args.profile],
        "run": [script, "run", "--profile", args.profile, str(args.scenario)],
    }
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as home:
        for name in [k for k in os.environ if k.startswith("SEAMHOST_")]:
            del os.environ[name]
        os.environ["SEAMHOST_HOME"] = home
        sessions = Path(home, "sessions")

        def forget_sessions() -> None:
            shutil.rmtree(sessions, ignore_errors=True)

        for argv in commands.values():  # fills the cache; fails loudly if a command fails
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        medians = interleaved(commands, args.runs, before=forget_sessions)
        counted = instruction_counts(commands, forget_sessions)

    def row(name: str, key: str, times: float) -> Row:
        value, bare = medians[key], medians["bare"]
        return Row(name, value, bare, "ms", f"<= {times:g}x", value <= times * bare)

    title = f"start-up, median of {args.runs} interleaved runs (baseline: python -c pass)"
    missed = report(
        title,
        [
            row("python -c 'import seamhost'", "import", 3),
            row(f"seamhost profile check {args.profile}", "check", 8),
        ],
    )
    report(
        "issue 36's targets beside their floors (information: not held, see below)",
        [
            row("seamhost --help", "help", 4),
            row(f"seamhost run {args.scenario.name}", "run", 10),
            row("floor: python -c 'import click'", "click", 4),
            row("floor: import click, attrs, cattrs, pluggy, asyncio", "floor", 10),
        ],
    )
    if counted is None:
        print("valgrind not found: --help and run are not held against their floors")
        return missed
    # Issue 36's --help and run targets sit at or below their floors' own cost; in instructions
    # (callgrind: the same count for the same code, whatever else the machine does) they are
    # shown, and each command is held against its floor, so seamhost's own part cannot grow.
    print("\ninstructions (millions), each against python -c pass and against its floor")
    print(f"{'command':44} {'Minstr':>8} {'x bare':>8} {'x floor':>8}  target")
    bounds = {"help": ("click", HELP_OVER_CLICK), "run": ("floor", RUN_OVER_FLOOR)}
    held = True
    for key in COUNTED:
        over_bare = counted[key] / counted["bare"]
        line = f"{key:44} {counted[key] / 1e6:>8.1f} {over_bare:>8.2f}"
        if key in bounds:
            floor, bound = bounds[key]
            over_floor = counted[key] / counted[floor]
            ok = over_floor <= bound
            held = held and ok
            line += f" {over_floor:>8.2f}  <= {bound}x {floor} {'ok' if ok else 'MISSED'}"
        print(line)
    return 0 if held and missed == 0 else 1


COUNTED = ("bare", "click", "floor", "help", "run")  # the commands counted in instructions
HELP_OVER_CLICK = 1.4  # 1.25 measured when these bounds were set
RUN_OVER_FLOOR = 3.0  # 2.92 measured when these bounds were set


def instruction_counts(
    commands: dict[str, list[str]], before: Callable[[], object]
) -> dict[str, int] | None:
    """Instructions each command of `COUNTED` executes (callgrind), or None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    counts = {}
    for key in COUNTED:
        before()
        counts[key] = instructions(commands[key])
    return counts


if __name__ == "__main__":
    sys.exit(main())
