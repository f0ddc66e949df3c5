"""Sandbox modes, the profile's sandbox policy, and the `sandbox/confine` request and answer.

The kernel owns the session's file-effect policy (the mode and extra writable roots); a
`sandbox/confine` provider enforces it for subprocesses. The modes are ordered by how much they
allow: ``read-only`` < ``workspace-write`` < ``danger-full-access``.

:class:`ConfineRequest` and :class:`ConfinedCommand` are defined in :mod:`seamhost.confinement`
and imported from there on first use: every bundle reads the policy, only a running tool asks
for confinement.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import attrs

from seamhost.lazy import lazy_exports

if TYPE_CHECKING:
    from seamhost.confinement import ConfinedCommand, ConfineRequest

__all__ = [
    "ConfineRequest",
    "ConfinedCommand",
    "Enforcement",
    "SandboxMode",
    "SandboxPolicy",
    "Verdict",
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
Verdict = Literal["ok", "denied", "runner-failure"]


@attrs.frozen
class SandboxPolicy:
    """The profile's ``[sandbox]`` table after validation."""

    mode: SandboxMode = SandboxMode.READ_ONLY
    writable_roots: tuple[Path, ...] = ()
    network: bool = False


__getattr__ = lazy_exports(
    __name__,
    {"ConfineRequest": "seamhost.confinement", "ConfinedCommand": "seamhost.confinement"},
)
