"""The `sandbox/confine` request and answer.

A tool's runner asks the provider to wrap each subprocess (:class:`ConfineRequest`); the provider
answers with what to execute and how to read its exit (:class:`ConfinedCommand`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from seamhost.sandbox.policy import Enforcement, ExitVerdict, SandboxMode

if TYPE_CHECKING:
    from seamhost.sandbox.roots import Pins


@attrs.frozen
class ConfineRequest:
    """What a runner asks `sandbox/confine` to wrap."""

    argv: tuple[str, ...]  # the command to run
    mode: SandboxMode  # the sandbox mode to enforce
    workspace: Path  # the call's workspace
    writable_roots: tuple[Path, ...] = ()  # writable directories besides the workspace
    network: bool = False  # True when the command may use the network
    env: Mapping[str, str] = attrs.field(factory=dict)  # the environment it runs with
    read_only_paths: tuple[Path, ...] = ()  # paths nobody writes, though under a writable root
    readable_paths: tuple[Path, ...] = ()
    """paths the command must be able to read though the confinement would hide them (a
    program or Python environment under a private /tmp): read-only, never made writable, bound
    after the private /tmp; one under a writable root stays as it is (design.md §5)"""
    pins: Pins | None = attrs.field(default=None, eq=False)
    """the session's pinned roots: a provider binds these, not the paths above"""


@attrs.frozen
class ConfinedCommand:
    """The provider's answer: what to execute, and how to read its exit.

    `classify(returncode, stderr)` tells an ordinary exit (``ok``) from a denial by the
    confinement (``denied``) and from a runner failure where the command never ran
    (``runner-failure``).
    """

    argv: tuple[str, ...]  # what to execute instead: the command wrapped in its confinement
    env: Mapping[str, str]  # the environment to execute it with
    backend: str  # the confinement's name, recorded with the call
    enforcement: Enforcement  # full | partial | none: how much of the mode is enforced
    classify: Callable[[int, bytes], ExitVerdict] = attrs.field(eq=False)
    """classify(returncode, stderr) → ok | denied | runner-failure"""
    pass_fds: tuple[int, ...] = ()  # descriptors the runner hands to the wrapper (pinned roots)
    hidden: tuple[Path, ...] = ()
    """host directories the command cannot see, but for the paths the request made visible in
    them (bubblewrap's private /tmp): an error that names a path there can say why it is
    missing and that ``readable_paths`` would show it"""
