"""The `sandbox/confine` request and answer.

A tool's runner asks the provider to wrap each subprocess (:class:`ConfineRequest`); the provider
answers with what to execute and how to read its exit (:class:`ConfinedCommand`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import attrs

from seamhost.sandbox.policy import Enforcement, ExitVerdict, SandboxMode


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
    classify: Callable[[int, bytes], ExitVerdict] = attrs.field(eq=False)
