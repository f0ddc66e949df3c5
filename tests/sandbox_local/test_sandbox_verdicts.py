"""The classifiers' rules, one case per rule and per documented limit."""

from __future__ import annotations

import pytest
from seamhost_sandbox_local.launch import MARKER
from seamhost_sandbox_local.verdicts import bwrap_verdict, launcher_verdict

LAUNCHER = MARKER.encode()


@pytest.mark.parametrize(
    ("returncode", "stderr", "verdict"),
    [
        (1, b"bwrap: execvp nope: No such file or directory\n", "runner-failure"),
        (1, b"bwrap: Creating new namespace failed: Operation not permitted\n", "runner-failure"),
        (2, b"bwrap: looks like bwrap, but bwrap never exits 2\n", "ok"),
        (1, b"sh: 1: cannot create /x: Read-only file system\n", "denied"),
        (1, b"mv: cannot move 'a' to 'b': Invalid cross-device link\n", "denied"),
        (1, b"chmod: changing permissions of 'x': Operation not permitted\n", "denied"),
        (3, b"something else went wrong\n", "ok"),
        (0, b"sh: 1: cannot create /x: Read-only file system\n", "ok"),  # swallowed: limit
        (-9, b"Permission denied\n", "ok"),  # killed by a signal
    ],
)
def test_bubblewrap_exits(returncode: int, stderr: bytes, verdict: str) -> None:
    assert bwrap_verdict(returncode, stderr) == verdict


@pytest.mark.parametrize(
    ("returncode", "stderr", "verdict"),
    [
        (
            126,
            LAUNCHER + b" cannot confine the command: landlock_restrict_self: ...\n",
            "runner-failure",
        ),
        (127, LAUNCHER + b" cannot run nope: No such file or directory\n", "runner-failure"),
        (127, b"sh: 1: nope: not found\n", "ok"),  # the command's own 127
        (1, LAUNCHER + b" printed by the command itself\n", "ok"),
        (1, b"sh: 1: cannot create /x: Permission denied\n", "denied"),
        (1, b"PermissionError: [Errno 1] Operation not permitted\n", "denied"),
        (126, b"sh: 1: ./x: Permission denied\n", "denied"),
        (0, b"Permission denied\n", "ok"),
        (1, b"Keine Berechtigung\n", "ok"),  # a translated message: limit
    ],
)
def test_launcher_exits(returncode: int, stderr: bytes, verdict: str) -> None:
    assert launcher_verdict(returncode, stderr) == verdict
