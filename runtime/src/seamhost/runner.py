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
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from seamhost.dispatch import describe
from seamhost.errors import SeamhostError
from seamhost.sandbox import ConfineRequest, Enforcement, SandboxMode, Verdict

if TYPE_CHECKING:
    import asyncio

    from seamhost.facade import Seams

DEFAULT_OUTPUT_LIMIT = 64 * 1024


@attrs.frozen(auto_exc=True)
class SandboxUnavailable(SeamhostError, RuntimeError):
    """A confining mode has no usable `sandbox/confine` provider; nothing was run."""

    mode: str
    reason: str

    def __str__(self) -> str:
        return (
            f"no usable sandbox for mode {self.mode}: {self.reason}; install and enable "
            "a sandbox provider (sandbox-local) or run `seamhost doctor`"
        )


@attrs.frozen
class RunResult:
    """How a subprocess ended, what it printed, and how it was confined."""

    returncode: int | None  # None when it was killed on timeout
    stdout: bytes
    stderr: bytes
    stdout_truncated: bool
    stderr_truncated: bool
    timed_out: bool
    backend: str
    enforcement: Enforcement
    verdict: Verdict  # ok | denied (confinement blocked it) | runner-failure (never ran)


@attrs.frozen
class SandboxRunner:
    """Runs subprocesses for one call under its effective sandbox mode."""

    seams: Seams = attrs.field(repr=False)
    mode: SandboxMode
    workspace: Path
    writable_roots: tuple[Path, ...] = ()
    network: bool = False
    output_limit: int = DEFAULT_OUTPUT_LIMIT

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
            )
            try:
                confined, _ = await self.seams.sandbox_confine(request)
            except SeamhostError as exc:
                raise SandboxUnavailable(str(self.mode), str(exc)) from exc
            except Exception as exc:
                raise SandboxUnavailable(str(self.mode), describe(exc)) from exc
            command, run_env = confined.argv, dict(confined.env)
            backend, enforcement, classify = (
                confined.backend,
                confined.enforcement,
                confined.classify,
            )
        else:
            command, run_env = tuple(argv), base_env
            backend, enforcement, classify = "none", "none", _plain_verdict
        return await self._spawn(
            argv=command,
            env=run_env,
            cwd=cwd or self.workspace,
            stdin=stdin,
            timeout=timeout,
            backend=backend,
            enforcement=enforcement,
            classify=classify,
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
    ) -> RunResult:
        import asyncio

        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=str(cwd),
                env=env,
                stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
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
        assert proc.stdout is not None
        assert proc.stderr is not None
        readers = asyncio.gather(
            _read_capped(proc.stdout, self.output_limit),
            _read_capped(proc.stderr, self.output_limit),
        )
        if stdin is not None and proc.stdin is not None:
            proc.stdin.write(stdin)
            proc.stdin.close()
        timed_out = False
        try:
            await asyncio.wait_for(proc.wait(), timeout)
        except TimeoutError:
            timed_out = True
            _kill_group(proc.pid)
            await proc.wait()
        except BaseException:
            # Cancellation: never abandon a started process; kill it and let it settle.
            _kill_group(proc.pid)
            await proc.wait()
            raise
        (out, out_cut), (err, err_cut) = await readers
        code = None if timed_out else proc.returncode
        verdict: Verdict = "ok"
        if code is not None and callable(classify):
            verdict = classify(code, err)
        return RunResult(code, out, err, out_cut, err_cut, timed_out, backend, enforcement, verdict)


def _plain_verdict(returncode: int, stderr: bytes) -> Verdict:
    return "ok"


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


async def _read_capped(stream: asyncio.StreamReader, limit: int) -> tuple[bytes, bool]:
    """Read a stream to its end, keeping at most `limit` bytes (the rest is drained)."""
    kept = bytearray()
    truncated = False
    while chunk := await stream.read(65536):
        room = limit - len(kept)
        if room > 0:
            kept += chunk[:room]
        if len(chunk) > room:
            truncated = True
    return bytes(kept), truncated
