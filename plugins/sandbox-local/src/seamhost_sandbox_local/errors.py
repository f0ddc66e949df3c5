"""What sandbox-local raises: the kernel turns either into ``SANDBOX_UNAVAILABLE``."""

from __future__ import annotations

from seamhost.errors import SeamhostError


class NoUsableBackend(SeamhostError, RuntimeError):
    """No enabled backend can confine commands here; nothing may run unconfined instead."""

    mode: str
    reasons: tuple[str, ...]  # one "backend: why" per backend tried

    def __str__(self) -> str:
        tried = (
            "; ".join(self.reasons)
            or "no backend is enabled ([plugins.sandbox-local] backends = [])"
        )
        return (
            f"no sandbox backend can confine {self.mode} here: {tried}; "
            "run `seamhost doctor` to see what works on this machine"
        )


class ModeNotConfinable(SeamhostError, ValueError):
    """A request asked to confine a mode that is not confined (``danger-full-access``)."""

    mode: str

    def __str__(self) -> str:
        return (
            f"sandbox mode {self.mode} is never confined: the kernel's runner runs it unconfined "
            "and records it so; a provider only wraps read-only and workspace-write"
        )
