"""The seam catalogue: every seam's name, hook, dispatch mode and what its absence means.

A seam is named ``area/verb`` (``tools/pre-execute``); its pluggy hook is the same name with
``/`` and ``-`` turned into ``_`` (``tools_pre_execute``). The kernel drives each seam in its
mode through the typed façade (:mod:`seamhost.kernel.seams`); nothing else calls ``pm.hook``.
"""

from __future__ import annotations

import enum
from typing import NamedTuple


class Mode(enum.StrEnum):
    """How the kernel drives the implementations of a seam."""

    REGISTRATION = "registration"  # each implementation is called once with a callback
    PROVIDER = "provider"  # exactly one implementation supplies a service
    PROVIDER_CHAIN = "provider chain"  # implementations asked in order; the first answer wins
    DECISION = "decision"  # all vote; the most restrictive wins; a raise counts as deny
    GUARD = "guard"  # all may deny or abstain; a raise counts as deny
    AROUND = "around"  # middleware chain impl(ctx, call_next); the innermost is the provider
    TRANSFORM = "transform"  # in order: accept, replace or block; a raise counts as block
    NOTIFY = "notify"  # fire-and-forget observers; failures are logged and contained
    BARRIER = "barrier"  # all run and are awaited; the first failure is raised after all settle
    OWNER = "owner"  # only the plugin that registered the tool in question is asked


class Seam(NamedTuple):
    """One extension point (a named tuple: the catalogue is built at every start-up)."""

    name: str
    mode: Mode
    missing: str  # what happens when no plugin implements it

    @property
    def hook(self) -> str:
        return hook_name(self.name)


def hook_name(seam: str) -> str:
    """``tools/pre-execute`` -> ``tools_pre_execute``."""
    return seam.replace("/", "_").replace("-", "_")


SEAMS: dict[str, Seam] = {
    seam.name: seam
    for seam in (
        Seam("tools/register", Mode.REGISTRATION, "no tools; every call is UNKNOWN_TOOL"),
        Seam(
            "session/store",
            Mode.PROVIDER,
            "sessions are memory-only; a profile that requires durability fails at startup",
        ),
        Seam("session/event", Mode.NOTIFY, "nothing"),
        Seam("session/flush", Mode.BARRIER, "a required checkpoint fails (CHECKPOINT_FAILED)"),
        Seam("agent/pre-step", Mode.AROUND, "the step proceeds"),
        Seam("llm/adapter", Mode.PROVIDER, "MODEL_UNAVAILABLE"),
        Seam("llm/replay", Mode.PROVIDER, "`seamhost run SCENARIO` refuses: nothing replays it"),
        Seam("llm/stream", Mode.AROUND, "the request passes straight to the llm/adapter"),
        Seam("tools/pre-execute", Mode.DECISION, "allow"),
        Seam("tools/guard", Mode.GUARD, "allow"),
        Seam(
            "approval/service",
            Mode.PROVIDER,
            "the kernel's service: policy ask unless an approval/policy event says never",
        ),
        Seam("approval/request", Mode.PROVIDER_CHAIN, "unavailable, so the call is denied"),
        Seam("tools/execute", Mode.AROUND, "the tool body runs"),
        Seam("sandbox/confine", Mode.PROVIDER, "SANDBOX_UNAVAILABLE for any confining mode"),
        Seam("tools/post-execute", Mode.TRANSFORM, "the result is accepted"),
        Seam("tools/result", Mode.NOTIFY, "nothing"),
        Seam(
            "tools/reconcile",
            Mode.OWNER,
            "unknown outcomes stay unknown until a person reconciles them",
        ),
    )
}

# Seams at most one plugin may provide: two claimants are a startup error naming both.
SINGLE_PROVIDER = frozenset(name for name, seam in SEAMS.items() if seam.mode is Mode.PROVIDER)
