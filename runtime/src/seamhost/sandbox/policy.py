"""Sandbox modes and the profile's sandbox policy.

The kernel owns the session's file-effect policy (the mode and extra writable roots); a
`sandbox/confine` provider enforces it for subprocesses (:mod:`seamhost.sandbox.confinement`).
The modes are ordered by how much they allow: ``read-only`` < ``workspace-write`` <
``danger-full-access``.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Literal

import attrs

__all__ = [
    "Enforcement",
    "ExitVerdict",
    "SandboxMode",
    "SandboxPolicy",
]


class SandboxMode(enum.StrEnum):
    """How much a call may change on the host's file system."""

    READ_ONLY = "read-only"  # no writes anywhere (a private /tmp at most)
    WORKSPACE_WRITE = "workspace-write"  # writes inside the workspace and writable_roots only
    DANGER_FULL_ACCESS = "danger-full-access"  # unconfined; recorded as such

    @property
    def rank(self) -> int:
        return _RANK[self]

    def widens(self, other: SandboxMode) -> bool:
        """True when `self` allows strictly more than `other`."""
        return self.rank > other.rank

    @property
    def confining(self) -> bool:
        return self is not SandboxMode.DANGER_FULL_ACCESS


_RANK = {
    SandboxMode.READ_ONLY: 0,
    SandboxMode.WORKSPACE_WRITE: 1,
    SandboxMode.DANGER_FULL_ACCESS: 2,
}

Enforcement = Literal["full", "partial", "none"]
ExitVerdict = Literal["ok", "denied", "runner-failure"]


@attrs.frozen
class SandboxPolicy:
    """The profile's ``[sandbox]`` table after validation."""

    mode: SandboxMode = SandboxMode.READ_ONLY  # read-only | workspace-write | danger-full-access
    writable_roots: tuple[Path, ...] = ()  # writable directories besides the workspace
    network: bool = False  # True when confined commands may use the network
    read_only_paths: tuple[Path, ...] = ()  # writable for no tool in a confining mode
