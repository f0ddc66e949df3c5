"""The contract's pinned-root and read-only-path cases (design.md §5.7), mixed into
:class:`~seamhost.testing.sandbox.SandboxContract`.

The roots are pinned first (:class:`~seamhost.sandbox.roots.Pins`, as a session's pipeline pins
them); then the test, standing for an earlier call, swaps a root for a symlink, and the command
tries to write through it. The provider must refuse (verdict ``denied``, the outside unchanged).
A read-only path under a writable root must stay unchanged, unless the provider reports
``partial`` enforcement for the request.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pytest

from seamhost.sandbox.roots import Pins
from seamhost.sandbox.runner import RunResult, SandboxRunner
from seamhost.testing.sandbox_escapes import WW, EscapeLayout, shell

if TYPE_CHECKING:
    from seamhost.kernel.seams import Seams


class SandboxProvider(Protocol):
    """What these cases need of :class:`~seamhost.testing.sandbox.SandboxProvider`."""

    def seams(self) -> Seams: ...


def run_pinned(provider: SandboxProvider, pins: Pins, argv: tuple[str, ...]) -> RunResult:
    """Run `argv` in ``workspace-write`` the way a session's runner does, over `pins`."""
    runner = SandboxRunner(
        provider.seams().confine,
        WW,
        pins.workspace.path,
        tuple(pin.path for pin in pins.writable),
        read_only_paths=tuple(pin.path for pin in pins.read_only),
        pins=pins,
    )
    return asyncio.run(runner.run(argv, timeout=30, cwd=pins.workspace.path))


class PinnedRootsContract:
    """Planted roots and read-only paths; the provider fixture comes from the subclass."""

    @pytest.mark.parametrize("existing", [True, False], ids=["replaced-root", "planted-root"])
    @pytest.mark.parametrize("target", ["outside", "filesystem-root"])
    def test_a_link_planted_where_a_root_was_widens_nothing(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout, existing: bool, target: str
    ) -> None:
        cache = layout.workspace / "cache"
        if existing:
            cache.mkdir()
        pins = Pins.open(layout.workspace, (Path("cache"),))
        if existing:
            cache.rename(layout.workspace / "cache-was-here")
        cache.symlink_to(layout.outside if target == "outside" else Path("/"))
        before = layout.state(WW)
        argv = shell('printf x > "$1"; printf x > cache/via-link.txt', layout.outside / "f.txt")
        result = run_pinned(sandbox_provider, pins, argv)
        assert result.verdict == "denied", (result.returncode, result.stderr)
        assert layout.state(WW) == before

    @pytest.mark.parametrize("pinned", [True, False], ids=["pinned", "by-path"])
    def test_a_read_only_path_is_writable_for_nobody(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout, pinned: bool
    ) -> None:
        release = layout.workspace / "release"
        release.mkdir()
        (release / "VERSION").write_text("1\n")
        argv = shell("printf 2 > release/VERSION; printf x > release/NEW")
        if pinned:
            result = run_pinned(sandbox_provider, Pins.open(layout.workspace, (), (release,)), argv)
        else:
            runner = SandboxRunner(
                sandbox_provider.seams().confine, WW, layout.workspace, read_only_paths=(release,)
            )
            result = asyncio.run(runner.run(argv, timeout=30, cwd=layout.workspace))
        if result.enforcement == "partial":
            return  # the provider says it cannot hold the path read-only: that is allowed
        assert result.verdict == "denied", (result.returncode, result.stderr)
        assert (release / "VERSION").read_text() == "1\n"
        assert not (release / "NEW").exists()
