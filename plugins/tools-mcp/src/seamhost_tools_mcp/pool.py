"""The connections calls use: one per server and workspace in each event loop, kept open.

A connection is opened on the first call that needs it, in the mode the profile sets for the
server (never the call's escalation), and lists the server's tools again: the call then checks
that its tool is still described as the bundle pinned it. The connection lives in a task of its
own (the SDK's session must be entered and left in one task) until it breaks, when the next
call opens a fresh one, or until its event loop ends: ``asyncio.run`` cancels the task, which
stops the server, so no server outlives the run that started it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seamhost_tools_mcp.connection import Connected, connect
from seamhost_tools_mcp.descriptors import Descriptor

if TYPE_CHECKING:
    from seamhost_tools_mcp.settings import ServerSettings, Settings
    from seamhost_tools_mcp.stdio import Confine


class Live:
    """An open connection owned by its own task, and the tools the server lists now."""

    def __init__(self, open_it: Any) -> None:
        loop = asyncio.get_running_loop()
        self.ready: asyncio.Future[tuple[Connected, dict[str, Descriptor]]] = loop.create_future()
        self._stop = asyncio.Event()
        self.task = asyncio.ensure_future(self._own(open_it))

    async def _own(self, open_it: Any) -> None:
        try:
            async with open_it() as connected:
                listed = await connected.descriptors()
                self.ready.set_result((connected, {d.name: d for d in listed}))
                await self._stop.wait()
        except BaseException as exc:
            if not self.ready.done():
                self.ready.set_exception(exc)
                self.ready.exception()  # retrieved: the caller re-raises it from `ready`
            if isinstance(exc, asyncio.CancelledError):
                raise

    @property
    def broken(self) -> bool:
        if self.task.done():
            return True
        if not self.ready.done() or self.ready.exception() is not None:
            return False
        connected, _ = self.ready.result()
        return connected.failure is not None

    async def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(BaseException):
            await self.task


class Pool:
    """The live connections of one plugin object, by event loop, server and workspace."""

    def __init__(self, settings: Settings, confine: Confine, environ: Mapping[str, str]) -> None:
        self.settings = settings
        self.confine = confine
        self.environ = environ
        self._live: dict[tuple[int, str, Path], Live] = {}

    async def get(
        self, server: ServerSettings, confinement: Mapping[str, Any]
    ) -> tuple[Connected, dict[str, Descriptor]]:
        """The open connection to `server` for `confinement`'s workspace, opened if needed."""
        key = (id(asyncio.get_running_loop()), server.name, confinement["workspace"])
        live = self._live.get(key)
        if live is None or live.broken:
            stale = live

            def open_it() -> Any:
                return connect(
                    server,
                    self.settings,
                    confine=self.confine,
                    confinement=confinement,
                    environ=self.environ,
                )

            # Stored before any await, so that calls arriving together share one connection.
            live = self._live[key] = Live(open_it)
            if stale is not None:
                await stale.close()
        try:
            return await asyncio.shield(live.ready)
        except Exception:
            self._live.pop(key, None)
            raise

    async def drop(self, server: ServerSettings, workspace: Path) -> None:
        """Close the connection to `server` (after it broke a call), so the next one reopens."""
        live = self._live.pop((id(asyncio.get_running_loop()), server.name, workspace), None)
        if live is not None:
            await live.close()
