"""What a seam is declared with: its dispatch mode, and the record of one declaration.

Each seam is declared exactly once, on its hook spec in :mod:`seamhost.kernel.hookspecs`
(``@seam("tools/pre-execute", Mode.DECISION, missing="allow")``); the catalogue
(:mod:`seamhost.kernel.catalogue`) collects the declarations and the façade
(:mod:`seamhost.kernel.seams`) drives each seam by its mode. These two types are apart from both
so that the specs can be declared with them before anything collects them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import NamedTuple

# Where ``@seam`` leaves a hook spec's `Seam`, as pluggy leaves its options in ``seamhost_spec``.
SEAM_ATTRIBUTE = "seamhost_seam"


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
    """One extension point, as its declaration states it.

    A named tuple, not an attrs class: the catalogue is collected at every start-up.
    """

    name: str  # ``area/verb``
    mode: Mode
    missing: str  # what happens when no plugin implements it, in a few words
    spec: Callable[..., object]  # the hook spec: the signature, and the contract as its docstring
    synchronous: bool = False  # called synchronously at start-up: coroutine functions are refused

    @property
    def hook(self) -> str:
        """The hook's name: the spec's, which the catalogue checks against the seam's name."""
        return self.spec.__name__
