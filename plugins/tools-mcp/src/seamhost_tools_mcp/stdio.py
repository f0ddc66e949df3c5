"""A stdio MCP server as a confined subprocess, and the streams the SDK's session talks over.

The SDK's own stdio transport spawns the server itself; this one asks ``sandbox/confine`` to
wrap the argv first (design.md §13), so the server runs under the same provider and mode rules
as a shell command: in a confining mode with no usable provider nothing is spawned and
:class:`SandboxUnavailable` is raised, never an unconfined fallback. Only a server whose table
says ``sandbox = "danger-full-access"`` runs its argv as given.

The wire is newline-delimited JSON-RPC. The reader refuses a line longer than
``max_message_bytes`` or one that is not JSON-RPC: the connection is closed, the reason kept in
:attr:`StdioChannel.failure` (every pending request then fails naming it), and the server is
stopped. The writer marks each ``tools/call`` it has written and drained in the
:class:`~seamhost_tools_mcp.ledger.Ledger`: that is what tells "never sent" from "sent, answer
lost". The request names the server's program and Python environment as readable
(:mod:`.programs`), so a confinement that hides ``/tmp`` still lets it start. stderr goes to
the server's log file, never to the terminal. Stopping closes stdin, waits, then terminates and
kills the process group.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest, jsonrpc_message_adapter

from seamhost import ConfinedCommand, ConfineRequest, SandboxMode
from seamhost.errors import SandboxUnavailable, describe
from seamhost_tools_mcp.errors import McpServerError
from seamhost_tools_mcp.ledger import Ledger
from seamhost_tools_mcp.programs import readable_paths

INHERITED_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL")
STOP_GRACE_SECONDS = 2.0
EXIT_WAIT_SECONDS = 0.5  # how long a server that closed stdout gets to report its exit code
Confine = Callable[[ConfineRequest], Awaitable[ConfinedCommand]]


class StdioChannel:
    """A running server process and the two streams a ``ClientSession`` is built on."""

    def __init__(self, server: str, process: asyncio.subprocess.Process, limit: int) -> None:
        self.server = server
        self.process = process
        self.limit = limit
        self.ledger = Ledger()
        self.failure: str | None = None
        self.confined: dict[str, str] = {}  # the server's sandbox mode, backend, enforcement
        self._to_session, self.read_stream = anyio.create_memory_object_stream[
            SessionMessage | Exception
        ](32)
        self.write_stream, self._from_session = anyio.create_memory_object_stream[SessionMessage](
            32
        )
        self._tasks = (
            asyncio.ensure_future(self._read()),
            asyncio.ensure_future(self._write()),
        )

    def _fail(self, problem: str) -> None:
        if self.failure is None:
            self.failure = problem

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            async with self._to_session:
                while True:
                    try:
                        line = await stdout.readuntil(b"\n")
                    except asyncio.IncompleteReadError:
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(self.process.wait(), EXIT_WAIT_SECONDS)
                        self._fail(f"closed its stdout (exit code {self.process.returncode})")
                        return
                    except (asyncio.LimitOverrunError, ValueError):
                        self._fail(f"sent a message larger than {self.limit} bytes")
                        return
                    if not line.strip():
                        continue
                    try:
                        message = jsonrpc_message_adapter.validate_json(line, by_name=False)
                    except ValueError:
                        shown = line[:120].decode("utf-8", "replace").rstrip()
                        self._fail(f"sent something that is not JSON-RPC: {shown!r}")
                        return
                    await self._to_session.send(SessionMessage(message))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return
        finally:
            if self.failure is not None and self.process.returncode is None:
                # A server that broke the protocol is not talked to again: stop it now (the
                # connection's close reaps it).
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.process.pid, signal.SIGKILL)

    async def _write(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            async with self._from_session:
                async for item in self._from_session:
                    message = item.message
                    data = message.model_dump_json(by_alias=True, exclude_unset=True)
                    stdin.write(data.encode() + b"\n")
                    await stdin.drain()
                    if isinstance(message, JSONRPCRequest):
                        self.ledger.written(message.method, message.params, message.id)
        except (OSError, anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            self._fail(f"stopped reading its stdin ({describe(exc)})")
            await self._to_session.aclose()

    async def stop(self) -> None:
        """Close stdin, give the server a moment, then terminate and kill its process group."""
        process = self.process
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), STOP_GRACE_SECONDS)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if process.returncode is not None:
                break
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), STOP_GRACE_SECONDS)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await _drain(process)
        await self.read_stream.aclose()
        await self.write_stream.aclose()


async def _drain(process: asyncio.subprocess.Process) -> None:
    """Read what is left on the stopped server's stdout, so that its pipe (and the process's
    transport) close; a reader that gave up on an oversized line left the pipe paused. What a
    surviving descendant still holds open is closed without waiting for it."""
    stdout = process.stdout
    if stdout is not None:
        with contextlib.suppress(TimeoutError, OSError, ValueError):
            async with asyncio.timeout(STOP_GRACE_SECONDS):
                while await stdout.read(1 << 16):
                    pass
    # asyncio exposes no public close for a subprocess's transport; without it a pipe a
    # descendant kept open would stay open (and warn) until garbage collection.
    transport = getattr(process, "_transport", None)
    close = getattr(transport, "close", None)
    if callable(close):
        with contextlib.suppress(PermissionError):
            close()


class Launch:
    """How to start one stdio server: its argv, environment, mode and log."""

    def __init__(
        self,
        server: str,
        argv: tuple[str, ...],
        *,
        env: Mapping[str, str],
        environ: Mapping[str, str],
        cwd: Path,
        log: Path,
        limit: int,
        read_paths: tuple[Path, ...] = (),
    ) -> None:
        self.server = server
        self.argv = argv
        self.env = {k: environ[k] for k in INHERITED_ENV if k in environ} | dict(env)
        self.cwd = cwd
        self.log = log
        self.limit = limit
        # What the confinement must let it read: its program, its Python, `read_paths`.
        self.readable = readable_paths(argv, self.env, cwd, read_paths)
        # Once started confined: what the sandbox hides and what it shows there (startup.py).
        self.backend = "none"
        self.hidden: tuple[Path, ...] = ()
        self.shown: tuple[Path, ...] = ()

    async def confined(self, confine: Confine, request: Mapping[str, Any]) -> ConfinedCommand:
        """The argv wrapped by the provider for `request` (mode, workspace, roots, pins)."""
        mode: SandboxMode = request["mode"]
        try:
            wanted = ConfineRequest(
                argv=self.argv, env=self.env, readable_paths=self.readable, **request
            )
            return await confine(wanted)
        except Exception as exc:
            problem = f"MCP server {self.server!r} cannot be confined: {describe(exc)}"
            raise SandboxUnavailable(str(mode), problem) from exc

    @contextlib.asynccontextmanager
    async def open(
        self, confine: Confine, request: Mapping[str, Any]
    ) -> AsyncIterator[StdioChannel]:
        """Start the server (confined unless its mode is danger-full-access); stop it after."""
        if request["mode"].confining:
            wrapped = await self.confined(confine, request)
            argv, env, fds = wrapped.argv, dict(wrapped.env), wrapped.pass_fds
            confined = {"backend": wrapped.backend, "enforcement": wrapped.enforcement}
            self.backend, self.hidden = wrapped.backend, wrapped.hidden
            roots = (request["workspace"], *request.get("writable_roots", ()))
            self.shown = (*roots, *self.readable)
        else:
            argv, env, fds = self.argv, self.env, ()
            confined = {"backend": "none", "enforcement": "none"}
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as log:
            try:
                process = await asyncio.create_subprocess_exec(
                    *argv,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=log,
                    cwd=self.cwd,
                    env=env,
                    pass_fds=fds,
                    start_new_session=True,
                    limit=self.limit,
                )
            except OSError as exc:
                raise McpServerError(self.server, f"could not be started: {describe(exc)}") from exc
        channel = StdioChannel(self.server, process, self.limit)
        channel.confined = {"sandbox": str(request["mode"]), **confined}
        try:
            yield channel
        finally:
            await asyncio.shield(channel.stop())
