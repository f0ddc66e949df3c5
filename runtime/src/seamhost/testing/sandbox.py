"""The contract every ``sandbox/confine`` provider passes: subclass :class:`SandboxContract`.

A provider's test module subclasses it and supplies one fixture, ``sandbox_provider``, returning
a :class:`SandboxProvider` (the plugin object that implements ``sandbox_confine``)::

    import pytest
    from seamhost.testing.sandbox import SandboxContract, SandboxProvider

    class TestMySandbox(SandboxContract):
        @pytest.fixture
        def sandbox_provider(self) -> SandboxProvider:
            return SandboxProvider("mine", MySandboxPlugin())

Every command runs the way a tool's commands do: through the kernel's
:class:`~seamhost.sandbox.runner.SandboxRunner` over a real plugin manager holding only the
provider.

**The escape suite.** Each escape (:data:`ESCAPES`) tries to change the host outside what the
mode allows: writing outside the workspace directly, through ``..``, through a symlink placed in
the workspace, through a hard link it makes in the workspace, through ``/proc/self/root``;
renaming a file out of the workspace, or one from outside into it; removing, creating,
truncating, changing the permissions or times of files outside; in ``read-only``, any write at
all; and a background process that writes after the command has ended. In both confining modes
the host must be unchanged afterwards and the run's verdict must be ``denied`` (which the shell
tool turns into ``SANDBOX_DENIED``); the background writer is judged by the host alone, since
its attempt comes after the verdict. Apart from the escapes, no process may outlive the run
in any mode: background writers (one disowned, one in a session of its own) must be gone when
the result is returned, and never write. Each escape but the background writer is also run
under ``danger-full-access``, where it must land: a suite whose commands could not change
anything would prove nothing.

What the provider cannot refuse it declares in ``gaps`` (``"escape@mode"`` → why): such a test
checks that the provider reports ``partial`` enforcement for that mode and that the escape
really lands (a stale declaration fails), then xfails with the reason.

The layout (a workspace, and a directory beside it) is made under ``scratch`` (default: pytest's
``tmp_path``). A provider that mounts a private ``/tmp`` must point ``scratch`` elsewhere: what
lies beneath a private ``/tmp`` is out of the command's sight, and an escape would fail for the
wrong reason.

**Readable paths.** A program kept under ``/tmp`` (a venv there) and named in the request's
``readable_paths`` runs and stays unwritten in both confining modes, whatever the provider
hides.

**Pinned roots and read-only paths** (:mod:`seamhost.testing.sandbox_pins`): a symlink planted
where a writable root was, after the roots were pinned, must widen nothing; a read-only path
under a writable root must stay unchanged unless the provider reports ``partial``.

The escapes and the layout are defined in :mod:`seamhost.testing.sandbox_escapes`; every name of
the kit is importable from here.
"""

from __future__ import annotations

import asyncio
import os
import stat
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import attrs
import pytest

from seamhost.jsonvalue import FrozenDict, freeze
from seamhost.kernel.bundle import make_plugin_manager
from seamhost.kernel.seams import Seams
from seamhost.sandbox.confinement import ConfineRequest
from seamhost.sandbox.policy import SandboxMode
from seamhost.sandbox.runner import RunResult, SandboxRunner
from seamhost.testing.sandbox_escapes import (
    CONFINING,
    ESCAPES,
    FULL,
    RO,
    SURVIVOR_DELAY,
    SURVIVOR_FILES,
    WW,
    Escape,
    EscapeLayout,
    escape_cases,
    processes_mentioning,
    shell,
    survivors,
)
from seamhost.testing.sandbox_pins import PinnedRootsContract


@attrs.frozen
class SandboxProvider:
    """The provider under test: a plugin object implementing ``sandbox_confine``.

    `scratch` is where layouts are made (``None``: pytest's ``tmp_path``); `gaps` maps
    ``"escape@mode"`` to why the provider cannot refuse that escape in that mode.
    """

    name: str
    plugin: object = attrs.field(eq=False)
    scratch: Path | None = None
    gaps: FrozenDict = attrs.field(factory=FrozenDict, converter=freeze)

    def seams(self) -> Seams:
        """A façade over a fresh plugin manager holding only the provider."""
        pm = make_plugin_manager()
        pm.register(self.plugin, name=f"sandbox-under-test-{self.name}")
        return Seams(pm)


class SandboxContract(PinnedRootsContract):
    """Tests any `sandbox/confine` provider passes. Subclass it and provide ``sandbox_provider``."""

    @pytest.fixture
    def sandbox_provider(self) -> SandboxProvider:
        raise NotImplementedError("a provider's test class provides the sandbox_provider fixture")

    @pytest.fixture
    def layout(self, sandbox_provider: SandboxProvider, tmp_path: Path) -> Iterator[EscapeLayout]:
        if sandbox_provider.scratch is None:
            yield EscapeLayout.make(tmp_path / "layout")
            return
        sandbox_provider.scratch.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=sandbox_provider.scratch) as root:
            yield EscapeLayout.make(Path(root))

    def run(
        self,
        provider: SandboxProvider,
        layout: EscapeLayout,
        mode: SandboxMode,
        argv: tuple[str, ...],
        *,
        writable_roots: tuple[Path, ...] = (),
        timeout: float = 30,
        env: Mapping[str, str] | None = None,
        readable_paths: tuple[Path, ...] = (),
    ) -> RunResult:
        runner = SandboxRunner(
            provider.seams().confine,
            mode,
            layout.workspace,
            writable_roots,
            readable_paths=readable_paths,
        )
        return asyncio.run(runner.run(argv, timeout=timeout, cwd=layout.workspace, env=env))

    # -- the escape suite -----------------------------------------------------------------

    @pytest.mark.parametrize(("escape", "mode"), escape_cases())
    def test_escape_is_refused(
        self,
        sandbox_provider: SandboxProvider,
        layout: EscapeLayout,
        escape: Escape,
        mode: SandboxMode,
    ) -> None:
        before = layout.state(mode)
        result = self.run(sandbox_provider, layout, mode, escape.argv(layout))
        if escape.background:
            layout.wait_for_background()
        after = layout.state(mode)
        gap = sandbox_provider.gaps.get(f"{escape.name}@{mode}")
        if gap is not None:
            assert result.enforcement == "partial", (
                f"{escape.name} lands in {mode}, yet the provider reports {result.enforcement}"
            )
            assert after != before, f"declared gap {escape.name}@{mode} no longer lands"
            pytest.xfail(f"declared gap of a partial backend: {gap}")
        changed = {k: (before.get(k), after.get(k)) for k in before.keys() | after.keys()}
        assert after == before, {k: v for k, v in changed.items() if v[0] != v[1]}
        said = result.stderr.decode(errors="replace")
        if escape.background:
            # The attempt comes after the command ended: only the host can show its fate.
            assert (result.returncode, result.verdict) == (0, "ok"), said
        else:
            assert result.verdict == "denied", (result.returncode, said)

    # A background writer lands in no mode: no process outlives its run (the case below).
    @pytest.mark.parametrize(
        "escape", [e for e in ESCAPES if not e.background], ids=lambda e: e.name
    )
    def test_escape_lands_without_confinement(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout, escape: Escape
    ) -> None:
        before = layout.state(RO)
        result = self.run(sandbox_provider, layout, FULL, escape.argv(layout))
        assert (result.returncode, result.verdict) == (0, "ok"), result.stderr
        assert result.backend == "none"
        assert layout.state(RO) != before

    @pytest.mark.parametrize("mode", [*CONFINING, FULL], ids=str)
    def test_no_process_outlives_the_run(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout, mode: SandboxMode
    ) -> None:
        """Background writers, one disowned and one in a session of its own, end with the run."""
        started = time.monotonic()
        result = self.run(sandbox_provider, layout, mode, survivors(layout))
        took = time.monotonic() - started
        assert (result.returncode, result.verdict) == (0, "ok"), result.stderr
        assert result.stdout == b"started\n"
        assert took < SURVIVOR_DELAY, f"the run waited {took:.1f} s for its background"
        left = processes_mentioning(str(layout.root).encode())
        assert not left, f"processes {left} outlived the run"
        time.sleep(2 * SURVIVOR_DELAY)
        written = [name for name in SURVIVOR_FILES if (layout.workspace / name).exists()]
        assert not written, f"written after the run had ended: {written}"

    # -- what stays allowed ---------------------------------------------------------------

    def test_workspace_write_allows_the_workspace(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout
    ) -> None:
        script = (
            "set -e; printf new > new.txt; mkdir -p sub/dir; mv new.txt sub/dir/moved.txt; "
            "ln sub/dir/moved.txt linked.txt; chmod 0600 linked.txt; rm inside.txt"
        )
        result = self.run(sandbox_provider, layout, WW, shell(script))
        assert (result.returncode, result.verdict) == (0, "ok"), result.stderr
        moved = layout.workspace / "sub" / "dir" / "moved.txt"
        assert moved.read_text() == "new"
        assert stat.S_IMODE((layout.workspace / "linked.txt").stat().st_mode) == 0o600
        assert not (layout.workspace / "inside.txt").exists()

    def test_extra_writable_roots_follow_the_mode(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout
    ) -> None:
        extra = layout.root / "extra"
        extra.mkdir()
        argv = shell('printf root > "$1"', extra / "file.txt")
        refused = self.run(sandbox_provider, layout, RO, argv, writable_roots=(extra,))
        assert refused.verdict == "denied", refused.stderr
        assert not (extra / "file.txt").exists()
        allowed = self.run(sandbox_provider, layout, WW, argv, writable_roots=(extra,))
        assert (allowed.returncode, allowed.verdict) == (0, "ok"), allowed.stderr
        assert (extra / "file.txt").read_text() == "root"

    @pytest.mark.parametrize("mode", CONFINING, ids=str)
    def test_reading_and_dev_null_stay_allowed(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout, mode: SandboxMode
    ) -> None:
        argv = shell('cat "$1" inside.txt; echo gone > /dev/null', layout.secret)
        result = self.run(sandbox_provider, layout, mode, argv)
        assert (result.returncode, result.verdict) == (0, "ok"), result.stderr
        assert result.stdout == b"secret\ninside\n"

    @pytest.mark.parametrize("mode", CONFINING, ids=str)
    def test_environment_reaches_the_command(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout, mode: SandboxMode
    ) -> None:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SEAMHOST_CONTRACT": "a b"}
        result = self.run(sandbox_provider, layout, mode, ("env",), env=env)
        assert result.verdict == "ok", result.stderr
        seen = set(result.stdout.decode().splitlines())
        # A backend may tell the command where it starts, and nothing else.
        seen.discard(f"PWD={layout.workspace}")
        assert seen == {f"{k}={v}" for k, v in env.items()}

    # -- verdicts and reports -------------------------------------------------------------

    @pytest.mark.parametrize("mode", CONFINING, ids=str)
    def test_an_ordinary_failure_is_not_a_denial(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout, mode: SandboxMode
    ) -> None:
        result = self.run(sandbox_provider, layout, mode, shell("echo broken >&2; exit 3"))
        assert (result.returncode, result.verdict) == (3, "ok")
        assert result.stderr == b"broken\n"

    @pytest.mark.parametrize("mode", CONFINING, ids=str)
    def test_a_program_that_cannot_start_is_a_runner_failure(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout, mode: SandboxMode
    ) -> None:
        result = self.run(sandbox_provider, layout, mode, (str(layout.root / "no-such-program"),))
        assert result.verdict == "runner-failure", (result.returncode, result.stderr)

    @pytest.mark.parametrize("mode", CONFINING, ids=str)
    def test_a_timeout_leaves_no_process_behind(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout, mode: SandboxMode
    ) -> None:
        argv = shell("sleep 60", layout.root)  # the layout's path marks the process
        started = time.monotonic()
        result = self.run(sandbox_provider, layout, mode, argv, timeout=0.5)
        assert result.timed_out
        assert time.monotonic() - started < 10
        layout.wait_for_background()

    @pytest.mark.parametrize("mode", CONFINING, ids=str)
    def test_readable_paths_under_tmp_are_readable_never_writable(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout, mode: SandboxMode
    ) -> None:
        """A program under /tmp (a venv there, say) named in ``readable_paths`` can be read and
        run, whatever the provider hides; it is never written, in either confining mode."""
        with tempfile.TemporaryDirectory(dir="/tmp", prefix="seamhost-readable-") as named:
            program = Path(named) / "bin" / "hello"
            program.parent.mkdir()
            program.write_text("#!/bin/sh\necho hello from tmp\n")
            program.chmod(0o755)
            result = self.run(
                sandbox_provider, layout, mode, (str(program),), readable_paths=(Path(named),)
            )
            assert (result.returncode, result.verdict) == (0, "ok"), result.stderr
            assert result.stdout == b"hello from tmp\n"
            writes = f"echo changed > {program}; echo new > {named}/new; rm -f {program}"
            self.run(sandbox_provider, layout, mode, shell(writes), readable_paths=(Path(named),))
            assert program.read_text() == "#!/bin/sh\necho hello from tmp\n"
            assert sorted(p.name for p in Path(named).iterdir()) == ["bin"]

    @pytest.mark.parametrize("mode", CONFINING, ids=str)
    def test_backend_and_enforcement_are_reported(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout, mode: SandboxMode
    ) -> None:
        request = ConfineRequest(("true",), mode, layout.workspace)
        confined, _ = asyncio.run(sandbox_provider.seams().sandbox_confine(request))
        assert confined.backend not in ("", "none")
        assert confined.enforcement in ("full", "partial")
        if any(key.endswith(f"@{mode}") for key in sandbox_provider.gaps):
            assert confined.enforcement == "partial"
        result = self.run(sandbox_provider, layout, mode, ("true",))
        assert (result.backend, result.enforcement) == (confined.backend, confined.enforcement)
        assert (result.returncode, result.verdict) == (0, "ok"), result.stderr


# The escape suite's names are in seamhost.testing.sandbox_escapes, where they are defined.
__all__ = ["SandboxContract", "SandboxProvider"]
