"""What a backend's probe found: whether it works here, and how fully it enforces each mode."""

from __future__ import annotations

from typing import Any

import attrs

from seamhost import Enforcement, SandboxMode

CONFINING_MODES = (SandboxMode.READ_ONLY, SandboxMode.WORKSPACE_WRITE)


@attrs.frozen
class ModeEnforcement:
    """How a backend enforces one confining mode.

    `missing` names what the mode forbids that the backend cannot refuse here; it is empty
    exactly when `enforcement` is ``full``.
    """

    mode: SandboxMode
    missing: tuple[str, ...] = ()

    @property
    def enforcement(self) -> Enforcement:
        return "partial" if self.missing else "full"

    def to_json(self) -> dict[str, Any]:
        return {"enforcement": self.enforcement, "missing": list(self.missing)}


@attrs.frozen
class BackendReport:
    """One backend as probed on this machine.

    `available` is true only when a real confined command ran and was confined (a write inside
    the workspace landed, one outside did not). `detail` says what was found (version, ABI);
    `reason` why the backend cannot be used, when it cannot; `modes` how fully it enforces each
    confining mode; `notes` what else a user should know about it.
    """

    name: str
    available: bool
    detail: str = ""
    reason: str = ""
    modes: tuple[ModeEnforcement, ...] = ()
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "available": self.available,
            "detail": self.detail,
            "reason": self.reason,
            "modes": {str(entry.mode): entry.to_json() for entry in self.modes},
            "notes": list(self.notes),
        }
