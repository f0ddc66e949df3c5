"""`seamhost session ls` on 2,000 stored sessions, against listing the root directory.

The sessions are real persistence-jsonl sessions (framed logs), each with the header of the
`default` profile's bundle and one turn of records. Measured in the same run, medians:

(a) ``seamhost session ls --root R`` as a user runs it (a new process: start-up, the store, a
    ``stat`` of every session, which reads its header frame only, and the table; bytecode
    compiled first, as an installer would). Target ≤ 1 s.
(b) the listing alone, in this process (what (a) does after start-up), against the baseline,
    ``os.scandir`` of the root. Printed for scale: opening every log and reading its first
    4 KiB, the least any listing that reads headers can cost.

Run: ``python tests/bench/bench_session_ls.py [--sessions N] [--runs N]``; exits 1 when (a) is
missed.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import os
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _measure import Row, interleaved, report, timed
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.sessions import create_session
from seamhost.testing.persistence import append_all, sample_events


def populate(home: Path, count: int) -> Path:
    """`count` sessions of the default profile's bundle, one flushed turn each; their root."""
    os.environ["SEAMHOST_HOME"] = str(home)  # the default profile stores under it
    bundle = build_bundle(resolve_profile("default"))
    for index in range(count):
        session = create_session(bundle, session_id=f"20261201-{index:06d}-bench", cwd="/work")
        append_all(session, sample_events())
        asyncio.run(session.writer.flush())
        session.close()
    return home / "sessions"


def read_heads(root: Path) -> None:
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.is_dir():
                with open(Path(entry.path) / "session.v2.jsonl.zst", "rb") as log:
                    log.read(4096)


def scan(root: Path) -> None:
    with os.scandir(root) as entries:
        for entry in entries:
            entry.is_dir()


def plugin_sources() -> list[Path]:
    return sorted(Path(__file__).resolve().parents[2].glob("plugins/*/src"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    import seamhost
    from seamhost.cli.session.listing import stored_rows

    sources = Path(seamhost.__file__).parent.parent  # bytecode first, as an installer would
    for path in {sysconfig.get_paths()["purelib"], str(sources), *map(str, plugin_sources())}:
        compileall.compile_dir(path, quiet=1)

    scratch = Path(tempfile.mkdtemp(prefix="seamhost-bench-ls-"))
    try:
        root = populate(scratch, args.sessions)
        script = Path(sys.executable).with_name("seamhost")
        command = [str(script), "session", "ls", "--root", str(root)]
        wall = interleaved({"ls": command}, args.runs)["ls"]
        store = JsonlStore(root)
        rows = stored_rows(store)
        assert len(rows) == args.sessions
        assert not any("error" in r for r in rows)
        listing = timed(lambda: stored_rows(store), args.runs) * 1000
        baseline = timed(lambda: scan(root), args.runs) * 1000
        heads = timed(lambda: read_heads(root), args.runs) * 1000
    finally:
        shutil.rmtree(scratch)
    n = args.sessions
    return report(
        f"session ls on {n} sessions (baseline: os.scandir of the root)",
        [
            Row(
                f"seamhost session ls ({n} sessions, new process)",
                wall,
                baseline,
                "ms",
                "<= 1000 ms",
                wall <= 1000,
            ),
            Row(
                "listing in-process (stat of every session)",
                listing,
                baseline,
                "ms",
                "(scale)",
                True,
            ),
            Row("open + read 4 KiB of every log", heads, baseline, "ms", "(scale)", True),
        ],
    )


if __name__ == "__main__":
    sys.exit(main())
