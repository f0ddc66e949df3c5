"""A real ``seamhost mcp serve`` child process, a real MCP client, and the session it wrote.

:class:`Rig` makes a profile over the default one (its policy asks about ``ask/**`` writes,
denies ``secret/**`` writes, and its rules answerer allows ``ask/rule/*``), a workspace and a
home for the store. :meth:`Rig.connect` starts the server through the SDK's own stdio client.
The log is read back with ``seamhost session show --json`` and held to the shape rules.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
from mcp.client.session import ClientSession, ElicitationFnT
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from seamhost.testing.sites import PluginSite
from tests.served import Served, StoreRig, listening

# A test plugin: `nap` sleeps (read-only, concurrency-safe), `hold` sleeps as an exclusive call
# with a write effect; both wake early when the call is cancelled and say when they ran.
NAP_PLUGIN = """
import asyncio, time
from seamhost import PluginDescriptor, ToolOutput, ToolSpec, hookimpl

SCHEMA = {"type": "object", "properties": {"seconds": {"type": "number", "minimum": 0}},
          "required": ["seconds"], "additionalProperties": False}
OUT = {"type": "object", "properties": {"started": {"type": "number"}, "ended": {"type": "number"},
       "woke": {"type": "string"}}, "required": ["started", "ended", "woke"]}

async def nap(ctx):
    started = time.time()
    try:
        await asyncio.wait_for(ctx.cancelled.wait(), ctx.arguments["seconds"])
        woke = "cancelled"
    except TimeoutError:
        woke = "slept"
    return ToolOutput(woke, {"started": started, "ended": time.time(), "woke": woke})

class Plugin:
    def __init__(self, ctx):
        pass

    @hookimpl
    def tools_register(self, register):
        register(ToolSpec("nap", "Sleep.", SCHEMA, OUT, "read-only", True, nap))
        register(ToolSpec("hold", "Sleep, exclusively.", SCHEMA, OUT, "write", False, nap))

descriptor = PluginDescriptor(name="nap", factory=Plugin, provides=["tools/register"],
    config_schema={"type": "object", "properties": {}, "additionalProperties": False})
"""

PROFILE = """
[profile]
name = "mcp-serve-test"
extends = ["default"]

[sandbox]
read_only_paths = []

[plugins.tool-policy]
default = "allow"

[[plugins.tool-policy.rules]]
tool = "write_file"
path = "secret/**"
decision = "deny"
reason = "secrets stay where they are"

[[plugins.tool-policy.rules]]
tool = "write_file"
path = "ask/**"
decision = "ask"
reason = "a person decides about ask/"

[plugins.user-approval]
answerers = {answerers}
{approval}

[[plugins.user-approval.rules]]
tool = "write_file"
args = {{ path = "ask/rule/*" }}
decision = "allow"
reason = "ask/rule/ is pre-approved"
"""


class Rig(StoreRig):
    """A profile, a workspace and a store home for one test's servers (`extra`: more TOML)."""

    def __init__(
        self,
        root: Path,
        *,
        approval: str = "",
        answerers: str = '["rules", "tty"]',
        site: PluginSite | None = None,
        extra: str = "",
    ) -> None:
        self.root = root
        self.profile = root / "profile.toml"
        if site is not None:
            site.add("nap", NAP_PLUGIN)
            extra += "\n[plugins.nap]\n"
        self.profile.write_text(PROFILE.format(approval=approval, answerers=answerers) + extra)
        self.workspace = root / "workspace"
        self.workspace.mkdir()
        self.home = root / "home"
        self.stderr = root / "server.stderr"
        self.env = {"SEAMHOST_HOME": str(self.home)}
        if site is not None:
            self.env["PYTHONPATH"] = str(site.root)

    def serve_args(self, *more: str) -> list[str]:
        return [
            "-m",
            "seamhost",
            "mcp",
            "serve",
            "--profile",
            str(self.profile),
            "--workspace",
            str(self.workspace),
            *more,
        ]

    @contextlib.asynccontextmanager
    async def connect(
        self, *more: str, elicitation: ElicitationFnT | None = None, transport: str = "stdio"
    ) -> AsyncIterator[tuple[ClientSession, types.InitializeResult]]:
        """A client session with a fresh ``seamhost mcp serve`` over `transport` (stdio, http)."""
        if transport == "http":
            with http_server(self, "127.0.0.1:0", *more) as server:
                async with (
                    httpx2.AsyncClient(timeout=30) as http,
                    streamable_http_client(server.url, http_client=http) as (read, write),
                    ClientSession(read, write, elicitation_callback=elicitation) as client,
                ):
                    yield client, await client.initialize()
            return
        params = StdioServerParameters(
            command=sys.executable, args=self.serve_args(*more), env=self.environment()
        )
        with self.stderr.open("a") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write, elicitation_callback=elicitation) as client,
            ):
                yield client, await client.initialize()

    def only_session(self) -> str:
        """The id of the one session this rig's store holds."""
        (session_id,) = self.session_ids()
        return session_id

    def server_pids(self) -> list[int]:
        """The pids of this rig's ``mcp serve`` processes (found by its profile's path)."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"serve" in argv and str(self.profile).encode() in argv:
                found.append(int(entry.name))
        return found

    def kill_servers(self) -> None:
        for pid in self.server_pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while self.server_pids() and time.monotonic() < deadline:
            time.sleep(0.05)


@contextlib.contextmanager
def http_server(
    rig: Rig, bind: str, *more: str, env: dict[str, str] | None = None
) -> Iterator[Served]:
    """A ``seamhost mcp serve --http BIND`` child of `rig`, stopped (SIGTERM) on exit; its `url`
    is the MCP endpoint (``/mcp``) on the loopback address."""
    argv = [sys.executable, *rig.serve_args("--http", bind, *more)]
    with listening(argv, rig.environment(env), stop_timeout=20) as server:
        port = server.url.rsplit(":", 1)[1].split("/")[0]
        server.url = f"http://127.0.0.1:{port}/mcp"
        yield server


def outcomes(records: list[dict[str, Any]]) -> dict[str, str]:
    """Each call's outcome in the log: "ok" or its error code, by call id."""
    return {
        r["data"]["call_id"]: (r["data"].get("error") or {}).get("code", "ok")
        for r in records
        if r["type"] == "tool/result"
    }


def session_of(result: types.CallToolResult) -> str:
    assert result.meta is not None
    return str(result.meta["seamhost/session"])


def text(result: types.CallToolResult) -> str:
    item = result.content[0]
    assert isinstance(item, types.TextContent)
    return item.text


def assert_refused(result: types.CallToolResult, code: str) -> None:
    """`result` is an error result whose text starts with `code`."""
    assert result.is_error, text(result)
    assert text(result).startswith(code), text(result)


def answering(action: str, content: dict[str, Any] | None = None) -> ElicitationFnT:
    """An elicitation callback that answers every question with `action` (and `content`)."""

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        answer.questions.append(params.message)  # type: ignore[attr-defined]
        return types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]

    answer.questions = []  # type: ignore[attr-defined]
    return answer
