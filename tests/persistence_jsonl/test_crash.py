"""SIGKILL at random moments: no flushed event is ever lost, no gap appears, the log opens.

A child process (a real ``exec``, no fork) appends and flushes in a loop and reports each seq
through a pipe once its flush has returned; the parent kills it with SIGKILL at a random moment,
sometimes before it even opened the session, then reopens the log as the next child will.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from seamhost_persistence_jsonl.store import JsonlStore

CHILD = Path(__file__).with_name("crash_child.py")


def kill_at_random(root: Path, session_id: str, mode: str, rng: random.Random) -> int:
    """Run one child until a random SIGKILL; the highest seq it reported flushed (or -1)."""
    with subprocess.Popen(
        [sys.executable, str(CHILD), str(root), session_id, mode, str(rng.getrandbits(32))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stdout is not None
        seen = []
        aim = rng.random()
        if aim < 0.2:
            time.sleep(rng.uniform(0, 0.3))  # anywhere: start-up, open, healing a torn tail
        else:
            seen.append(child.stdout.readline())
            assert seen[0], child.stderr.read() if child.stderr else ""
            while aim > 0.6 and "burst" not in seen[-1]:  # into a write of megabytes
                seen.append(child.stdout.readline())
                assert seen[-1], child.stderr.read() if child.stderr else ""
            time.sleep(rng.uniform(0, 0.08 if aim <= 0.6 else 0.03))
        child.send_signal(signal.SIGKILL)
        out, err = child.communicate()
        assert child.returncode == -signal.SIGKILL, err
    reports = [json.loads(line) for line in [*seen, *out.splitlines()] if line.strip()]
    flushed = [report["flushed"] for report in reports if "flushed" in report]
    return max(flushed, default=-1)


def run_trials(tmp_path: Path, trials: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    root = tmp_path / "sessions"
    durable: dict[str, int] = {}  # session id -> highest seq a returned flush covered
    for trial in range(trials):
        if not durable or rng.random() < 0.15:
            session_id, mode = f"s-{trial}", "create"
        else:
            session_id = rng.choice(sorted(durable))
            mode = "open"
        flushed = kill_at_random(root, session_id, mode, rng)
        durable[session_id] = max(durable.get(session_id, -1), flushed)
        store = JsonlStore(root)  # a fresh reader, as the next process would be
        try:
            seqs = [r.seq for r in store.read(session_id).records()]
        except LookupError:
            assert durable[session_id] == -1, f"trial {trial}: flushed session lost"
            del durable[session_id]  # never published: the next trial creates another
            continue
        assert seqs == list(range(len(seqs))), f"trial {trial}: seq gap"
        assert len(seqs) - 1 >= durable[session_id], f"trial {trial}: flushed event lost"
        assert store.verify(session_id).intact, f"trial {trial}: corrupted"
    return durable


@pytest.mark.parametrize(
    "trials",
    [pytest.param(20, id="20-trials"), pytest.param(200, id="200-trials", marks=pytest.mark.slow)],
)
def test_sigkill_never_loses_a_flushed_event(tmp_path: Path, trials: int) -> None:
    durable = run_trials(tmp_path, trials, seed=trials)
    assert any(seq > 0 for seq in durable.values()), (
        "no child ever flushed: the test tested nothing"
    )
