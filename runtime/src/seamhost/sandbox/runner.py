"""The subprocess runner a tool body receives: every process goes through `sandbox/confine`.

In ``read-only`` and ``workspace-write`` the argv is wrapped by the bundle's `sandbox/confine`
provider; with no provider (or a provider that raises) the runner raises
:class:`SandboxUnavailable` and nothing is spawned. Only ``danger-full-access`` runs the original
argv, and the result says so (backend ``none``, enforcement ``none``). Output is captured up to a
cap per stream; a timeout kills the whole process group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from seamhost.errors import ChildLost, SandboxUnavailable, SeamhostError, describe
from seamhost.sandbox.confinement import ConfinedCommand, ConfineRequest
from seamhost.sandbox.policy import Enforcement, ExitVerdict, SandboxMode

if TYPE_CHECKING:
    import asyncio

    from seamhost.sandbox.roots import Pins


Confine = Callable[[ConfineRequest], Awaitable[ConfinedCommand]]
DEFAULT_OUTPUT_LIMIT = 64 * 1024
PIPE_GRACE_SECONDS = 0.5
STOP_GRACE_SECONDS = 2.0
REAPER = Path(__file__).with_name("reaper.py")


@attrs.frozen
class RunResult:
    """How a subprocess ended, what it printed, and how it was confined."""

    returncode: int | None  # None when it was killed on timeout
    stdout: bytes  # what it printed, up to the output limit
    stderr: bytes  # what it printed on stderr, up to the limit
    stdout_truncated: bool  # True when stdout was cut at the limit
    stderr_truncated: bool  # True when stderr was cut at the limit
    timed_out: bool  # True when it was killed on timeout
    backend: str  # the confinement that ran it
    enforcement: Enforcement  # full | partial | none
    verdict: ExitVerdict  # ok | denied (confinement blocked it) | runner-failure (never ran)


@attrs.frozen
class SandboxRunner:
    """Runs subprocesses for one call under its effective sandbox mode.

    `confine` is the bundle's ``sandbox/confine`` provider (the façade's
    :meth:`~seamhost.kernel.seams.Seams.confine`): it raises when there is none or it fails.
    """

    confine: Confine = attrs.field(repr=False)
    mode: SandboxMode
    workspace: Path
    writable_roots: tuple[Path, ...] = ()
    network: bool = False
    output_limit: int = DEFAULT_OUTPUT_LIMIT
    read_only_paths: tuple[Path, ...] = ()
    readable_paths: tuple[Path, ...] = ()  # hidden paths the command must read (ConfineRequest)
    pins: Pins | None = attrs.field(default=None, eq=False)  # the session's pinned roots

    async def run(
        self,
        argv: tuple[str, ...],
        *,
        timeout: float | None = None,
        stdin: bytes | None = None,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> RunResult:
        """Run `argv` (confined unless the mode is ``danger-full-access``) and wait for it."""
        base_env = dict(os.environ if env is None else env)
        if self.mode.confining:
            request = ConfineRequest(
                argv=tuple(argv),
                mode=self.mode,
                workspace=self.workspace,
                writable_roots=self.writable_roots,
                network=self.network,
                env=base_env,
                read_only_paths=self.read_only_paths,
                readable_paths=self.readable_paths,
                pins=self.pins,
            )
            try:
                confined = await self.confine(request)
            except SeamhostError as exc:
                raise SandboxUnavailable(str(self.mode), str(exc)) from exc
            except Exception as exc:
                raise SandboxUnavailable(str(self.mode), describe(exc)) from exc
            command, run_env, fds = confined.argv, dict(confined.env), confined.pass_fds
            backend, enforcement, classify = (
                confined.backend,
                confined.enforcement,
                confined.classify,
            )
        else:
            command, fds = (sys.executable, "-I", "-S", str(REAPER), "--", *argv), ()
            run_env = base_env
            backend, enforcement, classify = "none", "none", _reaped_verdict
        return await self._spawn(
            argv=command,
            env=run_env,
            cwd=cwd or self.workspace,
            stdin=stdin,
            timeout=timeout,
            backend=backend,
            enforcement=enforcement,
            classify=classify,
            pass_fds=fds,
        )

    async def _spawn(
        self,
        *,
        argv: tuple[str, ...],
        env: dict[str, str],
        cwd: Path,
        stdin: bytes | None,
        timeout: float | None,
        backend: str,
        enforcement: Enforcement,
        classify: object,
        pass_fds: tuple[int, ...] = (),
    ) -> RunResult:
        import asyncio
        import subprocess

        loop = asyncio.get_running_loop()
        try:
            # _Capture implements SubprocessProtocol structurally (asyncio is imported lazily).
            transport, capture = await loop.subprocess_exec(  # type: ignore[type-var]
                lambda: _Capture(loop, self.output_limit),
                *argv,
                cwd=str(cwd),
                env=env,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                pass_fds=pass_fds,
            )
        except OSError as exc:
            return RunResult(
                None,
                b"",
                describe(exc).encode(),
                False,
                False,
                False,
                backend,
                enforcement,
                "runner-failure",
            )
        try:
            if stdin is not None:
                pipe = transport.get_pipe_transport(0)
                assert isinstance(pipe, asyncio.WriteTransport)
                pipe.write(stdin)
                pipe.close()
            timed_out = False
            try:
                await asyncio.wait_for(asyncio.shield(capture.exited), timeout)
            except TimeoutError:
                timed_out = True
                await _stop(transport.get_pid(), capture.exited)
            except BaseException as exc:
                # Cancellation: never abandon a started process; kill it and let it settle.
                await _stop(transport.get_pid(), capture.exited)
                if isinstance(exc, Exception):  # not a cancellation: the child was lost
                    raise ChildLost(argv[0], describe(exc)) from exc
                raise
            try:
                # A descendant that left the process group may still hold the pipes: once the
                # command itself has ended, give them a moment to drain, then stop reading.
                await asyncio.wait_for(asyncio.shield(capture.closed), PIPE_GRACE_SECONDS)
            except TimeoutError:
                capture.abandoned = True
        finally:
            transport.close()
        code = None if timed_out else transport.get_returncode()
        verdict: ExitVerdict = "ok"
        if code is not None and callable(classify):
            verdict = classify(code, bytes(capture.err))
        err = bytes(capture.err)
        if capture.abandoned:
            err += b"\n(output cut: a process outside the command's group kept its pipes open)"
        return RunResult(
            code,
            bytes(capture.out),
            err,
            capture.out_cut or capture.abandoned,
            capture.err_cut or capture.abandoned,
            timed_out,
            backend,
            enforcement,
            verdict,
        )


class _Capture:
    """Collects a child's output up to a cap and reports its exit and its pipes' end apart."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limit: int) -> None:
        self.limit = limit
        self.out = bytearray()
        self.err = bytearray()
        self.out_cut = False
        self.err_cut = False
        self.abandoned = False
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()

    def connection_made(self, transport: object) -> None:
        pass

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        buffer = self.out if fd == 1 else self.err
        room = self.limit - len(buffer)
        if room > 0:
            buffer += data[:room]
        if len(data) > room:
            if fd == 1:
                self.out_cut = True
            else:
                self.err_cut = True

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        pass

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


def _reaped_verdict(returncode: int, stderr: bytes) -> ExitVerdict:
    from seamhost.sandbox.reaper import EXIT_NOT_STARTED, MARKER

    if returncode == EXIT_NOT_STARTED and stderr.startswith(MARKER.encode()):
        return "runner-failure"
    return "ok"


async def _stop(pid: int, exited: asyncio.Future[None]) -> None:
    """Ask `pid` to stop, give it a moment to take its subtree along, then kill its group."""
    import asyncio

    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(exited), STOP_GRACE_SECONDS)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
    await exited
