"""A 10 × 10 matrix in one ``seamhost matrix`` process against the same 100 cells as separate
``seamhost run --check`` processes, measured in the same run (issue 36, "Acceptance and
benchmarks").

The profiles: the shipped ones that replay scenarios offline (default, ci, minimal, strict) and
six small variants of default and ci written to a temporary directory (other limits, another
rule); the scenarios: the shipped quickstart and approvals and eight quickstart-sized variants of
quickstart. Target: the matrix costs ≤ 1/5 of the separate runs. Both sides run the same cells
with the same checks, each in its own session and store, and must pass.

Run: ``python tests/bench/bench_matrix.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _measure import Row, report

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ["default", "ci", "minimal", "strict"]
VARIANTS = {
    "default-calls": ('["default"]', "[limits]\nmax_tool_calls_per_turn = 64\n"),
    "default-steps": ('["default"]', "[limits]\nmax_steps = 32\n"),
    "default-docs": (
        '["default"]',
        '[[plugins.tool-policy.rules]]\ntool = "write_file"\npath = "docs/**"\n'
        'decision = "deny"\nreason = "generated"\n',
    ),
    "ci-calls": ('["ci"]', "[limits]\nmax_tool_calls_per_turn = 64\n"),
    "ci-steps": ('["ci"]', "[limits]\nmax_steps = 32\n"),
    "ci-docs": (
        '["ci"]',
        '[[plugins.tool-policy.rules]]\ntool = "write_file"\npath = "docs/**"\n'
        'decision = "deny"\nreason = "generated"\n',
    ),
}


def write_inputs(directory: Path) -> tuple[list[str], list[Path]]:
    """The 10 profiles (names or paths) and 10 scenario files."""
    profiles: list[str] = list(SHIPPED)
    for name, (extends, body) in VARIANTS.items():
        path = directory / "profiles" / f"{name}.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'[profile]\nname = "{name}"\nextends = {extends}\n{body}')
        profiles.append(str(path))
    scenarios = [ROOT / "examples" / "quickstart.toml", ROOT / "examples" / "approvals.toml"]
    quickstart = scenarios[0].read_text(encoding="utf-8")
    for n in range(1, 9):
        path = directory / "scenarios" / f"quickstart-{n}.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(quickstart.replace('name = "quickstart"', f'name = "quickstart-{n}"'))
        scenarios.append(path)
    return profiles, scenarios


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    script = str(Path(sys.executable).with_name("seamhost"))
    with tempfile.TemporaryDirectory(prefix="bench-matrix-") as temporary:
        directory = Path(temporary)
        profiles, scenarios = write_inputs(directory)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
        env["SEAMHOST_HOME"] = str(directory / "home")
        env["TMPDIR"] = str(directory / "tmp")
        (directory / "tmp").mkdir()
        matrix = [script, "matrix", "--json"]
        for profile in profiles:
            matrix += ["-p", profile]
        for scenario in scenarios:
            matrix += ["-s", str(scenario)]
        separate = [
            [script, "run", "--check", "--profile", p, str(s)] for p in profiles for s in scenarios
        ]
        one, many = [], []
        for _ in range(args.runs):  # interleaved: noise hits both alike
            one.append(wall(matrix, env))
            many.append(sum(wall(argv, env) for argv in separate))
    value, baseline = statistics.median(one), statistics.median(many)
    print(f"cells: {len(separate)}; matrix {value:.2f} s, separate runs {baseline:.2f} s")
    row = Row(
        "seamhost matrix, 10 × 10, one process",
        value,
        baseline,
        "s",
        "<= 0.2x",
        value <= 0.2 * baseline,
    )
    return report("matrix vs 100 separate `seamhost run --check` (same cells)", [row])


def wall(argv: list[str], env: dict[str, str]) -> float:
    """Seconds `argv` takes; it must succeed (every cell meets its expectations)."""
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, stdin=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{argv[1]} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())
