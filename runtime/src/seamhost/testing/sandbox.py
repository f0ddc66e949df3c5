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
its attempt comes after the verdict. Each escape is also run under ``danger-full-access``,
where it must land: a suite whose commands could not change anything would prove nothing.

What the provider cannot refuse it declares in ``gaps`` (``"escape@mode"`` → why): such a test
checks that the provider reports ``partial`` enforcement for that mode and that the escape
really lands (a stale declaration fails), then xfails with the reason.

The layout (a workspace, and a directory beside it) is made under ``scratch`` (default: pytest's
``tmp_path``). A provider that mounts a private ``/tmp`` must point ``scratch`` elsewhere: what
lies beneath a private ``/tmp`` is out of the command's sight, and an escape would fail for the
wrong reason.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

from seamhost.jsonvalue import FrozenDict, freeze
from seamhost.kernel.bundle import make_plugin_manager
from seamhost.kernel.seams import Seams
from seamhost.sandbox.confinement import ConfineRequest
from seamhost.sandbox.policy import SandboxMode
from seamhost.sandbox.runner import RunResult, SandboxRunner

RO, WW, FULL = (
    SandboxMode.READ_ONLY,
    SandboxMode.WORKSPACE_WRITE,
    SandboxMode.DANGER_FULL_ACCESS,
)
CONFINING = (RO, WW)
BACKGROUND_DELAY = 0.3  # seconds the background writer waits after the command has ended
SETTLE_SECONDS = 15.0  # how long a background writer may take to finish
ESCAPED = "escaped"


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


@attrs.frozen
class EscapeLayout:
    """A workspace and, beside it, a directory the confined command must not change."""

    root: Path

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def outside(self) -> Path:
        return self.root / "outside"

    @property
    def secret(self) -> Path:
        return self.outside / "secret.txt"

    @property
    def writer_script(self) -> Path:
        """The background writer: waits, then writes its first argument."""
        return self.outside / "writer.sh"

    @classmethod
    def make(cls, root: Path) -> EscapeLayout:
        layout = cls(root)
        layout.workspace.mkdir(parents=True)
        layout.outside.mkdir()
        layout.secret.write_text("secret\n")
        layout.secret.chmod(0o644)
        layout.writer_script.write_text(f'sleep {BACKGROUND_DELAY}\nprintf late > "$1"\n')
        (layout.workspace / "inside.txt").write_text("inside\n")
        (layout.workspace / "link-to-secret").symlink_to(layout.secret)
        return layout

    def state(self, mode: SandboxMode) -> dict[str, str]:
        """What must not change in `mode`: the outside, and in ``read-only`` the workspace too.

        Contents, link targets, permissions, link counts and modification times of every entry.
        """
        watched = [self.outside]
        if mode is not WW:
            watched.append(self.workspace)
        seen: dict[str, str] = {}
        for top in watched:
            for path in sorted([top, *top.rglob("*")]):
                info = path.lstat()
                key = str(path.relative_to(self.root))
                described = f"mode {info.st_mode:o} links {info.st_nlink} mtime {info.st_mtime_ns}"
                if stat.S_ISLNK(info.st_mode):
                    described += f" -> {os.readlink(path)}"
                elif stat.S_ISREG(info.st_mode):
                    described += f" content {path.read_bytes()!r}"
                seen[key] = described
        return seen

    def wait_for_background(self) -> None:
        """Wait until no process mentions this layout any more (background writers ended)."""
        token = str(self.root).encode()
        deadline = time.monotonic() + SETTLE_SECONDS
        while processes_mentioning(token):
            if time.monotonic() > deadline:
                raise AssertionError(f"processes still running {SETTLE_SECONDS:g} s later")
            time.sleep(0.05)


def processes_mentioning(token: bytes) -> list[int]:
    """The pids of the processes whose command line contains `token`."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                if token in fh.read():
                    found.append(int(entry.name))
        except OSError:  # gone meanwhile
            continue
    return found


@attrs.frozen
class Escape:
    """One way of changing the host that a confining mode forbids."""

    name: str
    argv: Callable[[EscapeLayout], tuple[str, ...]] = attrs.field(eq=False)
    modes: tuple[SandboxMode, ...] = CONFINING
    background: bool = False  # the attempt happens after the command has ended


def _sh(script: str, *args: object) -> tuple[str, ...]:
    return ("sh", "-c", script, "sh", *(str(a) for a in args))


# The interpreter a confined command runs: the real file behind `sys.executable`. A virtual
# environment created under /tmp (a fresh clone there, nox's venvs) is hidden by bubblewrap's
# private /tmp, while the base interpreter it links to stays visible.
INTERPRETER = os.path.realpath(sys.executable)

ESCAPES = (
    Escape("write-outside", lambda x: _sh(f'printf {ESCAPED} > "$1"', x.secret)),
    Escape("dot-dot", lambda x: _sh(f"printf {ESCAPED} > ../outside/secret.txt")),
    Escape("symlink", lambda x: _sh(f"printf {ESCAPED} > link-to-secret")),
    Escape(
        "hard-link",
        lambda x: _sh(f'ln "$1" hard-link && printf {ESCAPED} >> hard-link', x.secret),
    ),
    Escape("proc-self-root", lambda x: _sh(f'printf {ESCAPED} > "/proc/self/root$1"', x.secret)),
    Escape("rename-out", lambda x: ("mv", "inside.txt", str(x.outside / "moved.txt"))),
    Escape("rename-in", lambda x: ("mv", str(x.secret), "taken.txt")),
    Escape("remove", lambda x: ("rm", "-f", str(x.secret))),
    Escape("mkdir", lambda x: ("mkdir", str(x.outside / "made"))),
    Escape(
        "truncate",
        lambda x: (
            INTERPRETER,
            "-I",
            "-c",
            "import os, sys; os.truncate(sys.argv[1], 0)",
            str(x.secret),
        ),
    ),
    Escape("chmod", lambda x: ("chmod", "0777", str(x.secret))),
    Escape("times", lambda x: ("touch", "-m", "-d", "@0", str(x.secret))),
    Escape("write-inside", lambda x: _sh(f"printf {ESCAPED} > new.txt"), modes=(RO,)),
    Escape(
        "background-writer",
        lambda x: _sh(
            'setsid sh "$1" "$2" < /dev/null > /dev/null 2>&1 & exit 0',
            x.writer_script,
            x.outside / "late.txt",
        ),
        background=True,
    ),
)


def _escape_cases() -> list[Any]:
    return [
        pytest.param(escape, mode, id=f"{escape.name}@{mode}")
        for escape in ESCAPES
        for mode in escape.modes
    ]


class SandboxContract:
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
    ) -> RunResult:
        runner = SandboxRunner(provider.seams().confine, mode, layout.workspace, writable_roots)
        return asyncio.run(runner.run(argv, timeout=timeout, cwd=layout.workspace, env=env))

    # -- the escape suite -----------------------------------------------------------------

    @pytest.mark.parametrize(("escape", "mode"), _escape_cases())
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

    @pytest.mark.parametrize("escape", ESCAPES, ids=lambda e: e.name)
    def test_escape_lands_without_confinement(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout, escape: Escape
    ) -> None:
        before = layout.state(RO)
        result = self.run(sandbox_provider, layout, FULL, escape.argv(layout))
        if escape.background:
            layout.wait_for_background()
        assert (result.returncode, result.verdict) == (0, "ok"), result.stderr
        assert result.backend == "none"
        assert layout.state(RO) != before

    # -- what stays allowed ---------------------------------------------------------------

    def test_workspace_write_allows_the_workspace(
        self, sandbox_provider: SandboxProvider, layout: EscapeLayout
    ) -> None:
        script = (
            "set -e; printf new > new.txt; mkdir -p sub/dir; mv new.txt sub/dir/moved.txt; "
            "ln sub/dir/moved.txt linked.txt; chmod 0600 linked.txt; rm inside.txt"
        )
        result = self.run(sandbox_provider, layout, WW, _sh(script))
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
        argv = _sh('printf root > "$1"', extra / "file.txt")
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
        argv = _sh('cat "$1" inside.txt; echo gone > /dev/null', layout.secret)
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
        result = self.run(sandbox_provider, layout, mode, _sh("echo broken >&2; exit 3"))
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
        argv = _sh("sleep 60", layout.root)  # the layout's path marks the process
        started = time.monotonic()
        result = self.run(sandbox_provider, layout, mode, argv, timeout=0.5)
        assert result.timed_out
        assert time.monotonic() - started < 10
        layout.wait_for_background()

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


__all__ = [
    "ESCAPES",
    "Escape",
    "EscapeLayout",
    "SandboxContract",
    "SandboxProvider",
    "processes_mentioning",
]
