"""Start-up cost (issues "Kernel, workspace and profiles" and 36 point 6): `import seamhost`,
`seamhost --help`, `seamhost profile check` on a shipped profile and `seamhost run` of the
quickstart scenario, each against `python -c pass` in the same run.

Targets: import ≤ 3×, --help ≤ 4×, profile check ≤ 8×, run ≤ 10× the bare interpreter. Bytecode
is compiled first, as an installer would. Every command runs with a temporary ``SEAMHOST_HOME``
whose cache a first, untimed round fills (as any command after the first finds it); the sessions
a run stores are removed before each run, so runs do not accumulate.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _measure import Row, interleaved, report

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
    bare = medians["bare"]

    def row(name: str, key: str, times: int) -> Row:
        return Row(name, medians[key], bare, "ms", f"<= {times}x", medians[key] <= times * bare)

    rows = [
        row("python -c 'import seamhost'", "import", 3),
        row("seamhost --help", "help", 4),
        row(f"seamhost profile check {args.profile}", "check", 8),
        row(f"seamhost run {args.scenario.name}", "run", 10),
    ]
    return report(
        f"start-up, median of {args.runs} interleaved runs (baseline: python -c pass)", rows
    )


if __name__ == "__main__":
    sys.exit(main())
