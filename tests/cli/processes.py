"""Watching the processes a CLI command under test starts (read from /proc)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def wait_for_descendant(root: int, argv: list[str], timeout: float = 30.0) -> bool:
    """Whether a process running `argv` appears below process `root` (from /proc) in time."""
    want = "\0".join(argv).encode()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        parents: dict[int, int] = {}
        matches = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().rstrip(b"\0")
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
            if cmdline == want:
                matches.append(int(entry))
        for match in matches:
            pid = match
            while pid in parents and pid != root:
                pid = parents[pid]
            if pid == root:
                return True
        time.sleep(0.02)
    return False
