"""Sandbox modes and the `sandbox/confine` request and answer.

The kernel owns the session's file-effect policy (the mode and extra writable roots); a
`sandbox/confine` provider enforces it for subprocesses. The modes are ordered by how much they
allow: ``read-only`` < ``workspace-write`` < ``danger-full-access``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal

import attrs


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
Verdict = Literal["ok", "denied", "runner-failure"]


@attrs.frozen
class SandboxPolicy:
    """The profile's ``[sandbox]`` table after validation."""

    mode: SandboxMode = SandboxMode.READ_ONLY
    writable_roots: tuple[Path, ...] = ()
    network: bool = False


@attrs.frozen
class ConfineRequest:
    """What a runner asks `sandbox/confine` to wrap."""

    argv: tuple[str, ...]
    mode: SandboxMode
    workspace: Path
    writable_roots: tuple[Path, ...] = ()
    network: bool = False
    env: Mapping[str, str] = attrs.field(factory=dict)


@attrs.frozen
class ConfinedCommand:
    """The provider's answer: what to execute, and how to read its exit.

    `classify(returncode, stderr)` tells an ordinary exit (``ok``) from a denial by the
    confinement (``denied``) and from a runner failure where the command never ran
    (``runner-failure``).
    """

    argv: tuple[str, ...]
    env: Mapping[str, str]
    backend: str
    enforcement: Enforcement
    classify: Callable[[int, bytes], Verdict] = attrs.field(eq=False)
