"""Start-up cost (issue "Kernel, workspace and profiles"): `import seamhost` and
`seamhost profile check` on a shipped profile, each against `python -c pass` in the same run.

Targets: import ≤ 3×, profile check ≤ 8× the bare interpreter. Bytecode is compiled first, as an
installer would. Run: ``python tests/bench/bench_startup.py [--runs N] [--profile NAME]``.
"""

from __future__ import annotations

import argparse
import compileall
import sys
import sysconfig
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _measure import Row, interleaved, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--profile", default="default")
    args = parser.parse_args()
    import seamhost

    sources = Path(seamhost.__file__).parent.parent
    plugins = sorted(sources.parent.parent.glob("plugins/*/src"))
    for root in {sysconfig.get_paths()["purelib"], str(sources), *map(str, plugins)}:
        compileall.compile_dir(root, quiet=1)
    python = sys.executable
    # The `seamhost` console script installed beside this interpreter: what users run.
    script = Path(sys.executable).with_name("seamhost")
    medians = interleaved(
        {
            "bare": [python, "-c", "pass"],
            "import": [python, "-c", "import seamhost"],
            "check": [str(script), "profile", "check", args.profile],
        },
        args.runs,
    )
    bare = medians["bare"]
    rows = [
        Row(
            "python -c 'import seamhost'",
            medians["import"],
            bare,
            "ms",
            "<= 3x",
            medians["import"] <= 3 * bare,
        ),
        Row(
            f"seamhost profile check {args.profile}",
            medians["check"],
            bare,
            "ms",
            "<= 8x",
            medians["check"] <= 8 * bare,
        ),
    ]
    return report(
        f"start-up, median of {args.runs} interleaved runs (baseline: python -c pass)", rows
    )


if __name__ == "__main__":
    sys.exit(main())
