"""A replacement killed at random points: the file always holds exactly the old or the new bytes.

A child Python (exec'd, not forked) replaces a large file again and again, alternating two
contents of different lengths, and is SIGKILLed after a random delay. After each kill the file
must hold one of the two contents exactly; a temporary file the kill left behind must be
recognisable as one, and private (mode 0600) unless all its bytes were in. A control runs the
same harness against a writer that writes in place, to show the check catches a torn file.

A SIGKILL tests what another process sees after the writer dies; what the disk holds after a
power cut cannot be tested here, and rests on the fsyncs the commit makes.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import attrs
import pytest

SIZE = 8 << 20  # a write and fsync of this takes milliseconds: kills land inside it
WINDOW = 0.03  # seconds after the child is ready within which it is killed
OLD, NEW = b"o" * SIZE, b"n" * (SIZE - SIZE // 3)
TEMP_NAME = re.compile(r"^\.big\.bin\.[0-9a-f]{16}\.seamhost-tmp$")

ATOMIC = """
    import sys
    from seamhost.sandbox.paths import PathPolicy
    policy = PathPolicy("workspace-write", sys.argv[1])
    contents = [b"o" * int(sys.argv[2]), b"n" * int(sys.argv[3])]
    print("ready", flush=True)
    while True:
        for data in contents:
            with policy.open_for_replace("big.bin") as replacement:
                replacement.commit(data)
"""

IN_PLACE = """
    import sys
    contents = [b"o" * int(sys.argv[2]), b"n" * int(sys.argv[3])]
    print("ready", flush=True)
    while True:
        for data in contents:
            with open(sys.argv[1] + "/big.bin", "wb") as file:
                file.write(data)
"""


@attrs.define
class Tally:
    """What the kills found."""

    kills: int = 0
    old: int = 0
    new: int = 0
    torn: int = 0
    temporaries: int = 0  # kills that left a temporary file: they landed inside a write


def kill_at_random(workspace: Path, writer: str, kills: int, seed: int) -> Tally:
    """Start `writer` `kills` times, SIGKILL it after a random delay, look at the file."""
    rng = random.Random(seed)
    target = workspace / "big.bin"
    tally = Tally()
    for _ in range(kills):
        child = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(writer), str(workspace), str(SIZE),
             str(len(NEW))],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        try:
            assert child.stdout is not None
            assert child.stdout.readline() == "ready\n"
            time.sleep(rng.uniform(0, WINDOW))
        finally:
            child.kill()
            child.wait()
            assert child.stdout is not None
            child.stdout.close()
        tally.kills += 1
        content = target.read_bytes()
        if content == OLD:
            tally.old += 1
        elif content == NEW:
            tally.new += 1
        else:
            tally.torn += 1
            target.write_bytes(OLD)
        temporaries = [p for p in workspace.iterdir() if p != target]
        for temporary in temporaries:
            assert TEMP_NAME.match(temporary.name), temporary.name
            # Private while its bytes are written; given the file's mode only once all are in.
            if temporary.stat().st_mode & 0o777 != 0o600:
                assert temporary.stat().st_mode == target.stat().st_mode
                assert temporary.read_bytes() in (OLD, NEW)
            temporary.unlink()
        tally.temporaries += bool(temporaries)
    return tally


def _check(workspace: Path, kills: int) -> None:
    (workspace / "big.bin").write_bytes(OLD)
    seed = random.randrange(1 << 32)
    tally = kill_at_random(workspace, ATOMIC, kills, seed)
    assert tally.torn == 0, f"seed {seed}: {tally}"
    assert tally.old + tally.new == kills
    # Proof the kills hit the window that matters: some stopped a write halfway.
    assert tally.temporaries > 0, f"seed {seed}: no kill landed inside a write: {tally}"


def test_a_killed_replacement_leaves_old_or_new_bytes(tmp_path: Path) -> None:
    _check(tmp_path, kills=20)


@pytest.mark.slow
def test_a_killed_replacement_leaves_old_or_new_bytes_many_times(tmp_path: Path) -> None:
    _check(tmp_path, kills=300)


def test_the_harness_catches_a_writer_that_writes_in_place(tmp_path: Path) -> None:
    (tmp_path / "big.bin").write_bytes(OLD)
    seed = random.randrange(1 << 32)
    tally = kill_at_random(tmp_path, IN_PLACE, kills=20, seed=seed)
    assert tally.torn > 0, f"seed {seed}: an in-place writer was never caught torn: {tally}"
