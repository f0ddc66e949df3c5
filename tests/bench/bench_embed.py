"""The embedding API: a run in an open host, and opening a host, against their baselines.

Measured in the same run, medians, each with its own temporary store and workspace:

(a) ``host.run(scenario=quickstart)`` in a host already open, against the same scenario run as
    ``seamhost run`` in a new process (what a matrix cell cost before the API). Target ≤ 1/5.
(b) ``open_host("default", store=...)`` for a profile already opened in this process (the
    resolved profile kept, the bundle built), against the same open with the kept profiles
    dropped first (``forget_profiles``: resolution from the files). Target: below 1, the
    resolution's share saved.

Run: ``python tests/bench/bench_embed.py [--runs N]``; exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _measure import Row, interleaved, report, timed

import seamhost
from seamhost.embed.profiles import forget_profiles

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart.toml"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-embed-"))
    os.environ["SEAMHOST_HOME"] = str(scratch / "home")
    try:
        store = scratch / "store"
        with seamhost.open_host("default", store=store) as host:
            host.run(scenario=QUICKSTART)  # the first run imports what running needs
            in_host = timed(lambda: host.run(scenario=QUICKSTART), args.runs) * 1000
        process = interleaved(
            {"run": [sys.executable, "-m", "seamhost", "run", str(QUICKSTART)]}, args.runs
        )["run"]

        def open_kept() -> None:
            seamhost.open_host("default", store=store).close()

        def open_fresh() -> None:
            forget_profiles()
            seamhost.open_host("default", store=store).close()

        kept = timed(open_kept, args.runs) * 1000
        fresh = timed(open_fresh, args.runs) * 1000
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rows = [
        Row("(a) quickstart in an open host / seamhost run", in_host, process, "ms", "≤ 0.20",
            in_host <= process / 5),
        Row("(b) open_host, profile kept / resolved again", kept, fresh, "ms", "< 1",
            kept < fresh),
    ]  # fmt: skip
    return report("embedding API: runs and opens against their baselines", rows)


if __name__ == "__main__":
    sys.exit(main())
