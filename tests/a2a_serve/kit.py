"""A real ``seamhost a2a serve`` child process, the a2a-sdk's own client, and the sessions.

:class:`Rig` writes a profile over the default one (its policy asks about ``ask/**`` writes and
user-approval defers every question it is asked, for ``seamhost approve``), a scenario, a
workspace and a home for the store; :meth:`Rig.serve` starts the server on a free loopback
port (it prints the address) and stops it with SIGTERM. The log is read back with ``seamhost
session show --json``, held to the shape rules.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.client.client import Client
from a2a.helpers import new_text_message
from a2a.types import a2a_pb2 as a2a

from seamhost.testing.sites import PluginSite
from tests.mcp_serve.kit import NAP_PLUGIN
from tests.served import Served, StoreRig, listening

PROFILE = """
[profile]
name = "a2a-serve-test"
description = "The agent another agent delegates to, in the tests."
extends = ["default"]

[sandbox]
read_only_paths = []

[plugins.tool-policy]
default = "allow"

[[plugins.tool-policy.rules]]
tool = "write_file"
path = "ask/**"
decision = "ask"
reason = "a person decides about ask/"

[plugins.user-approval]
answerers = ["defer"]
"""


class Rig(StoreRig):
    """A profile, a scenario, a workspace and a store home for one test's servers."""

    def __init__(self, root: Path, scenario: str, *, site: PluginSite | None = None) -> None:
        self.root = root
        self.profile = root / "profile.toml"
        extra = ""
        if site is not None:
            site.add("nap", NAP_PLUGIN)
            extra = "\n[plugins.nap]\n"
        self.profile.write_text(PROFILE + extra)
        self.scenario = root / "scenario.toml"
        self.scenario.write_text(scenario)
        self.workspace = root / "workspace"
        self.workspace.mkdir()
        self.home = root / "home"
        self.env = {"SEAMHOST_HOME": str(self.home)}
        if site is not None:
            self.env["PYTHONPATH"] = str(site.root)

    @contextlib.contextmanager
    def serve(self, *more: str, env: dict[str, str] | None = None) -> Iterator[Served]:
        """A ``seamhost a2a serve`` child on a free loopback port, SIGTERMed on exit."""
        argv = [sys.executable, "-m", "seamhost", "a2a", "serve", "--profile", str(self.profile)]
        argv += ["--scenario", str(self.scenario), "--workspace", str(self.workspace)]
        argv += ["--http", "127.0.0.1:0", *more]
        with listening(argv, self.environment(env)) as server:
            server.url = server.url.rstrip("/")
            yield server


@contextlib.asynccontextmanager
async def client(url: str, token: str | None = None) -> AsyncIterator[Client]:
    """The SDK's client for the agent at `url`, from its card (streaming)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(headers=headers, timeout=60) as http:
        made = await create_client(url, ClientConfig(streaming=True, httpx_client=http))
        try:
            yield made
        finally:
            await made.close()


async def card(url: str) -> a2a.AgentCard:
    """The Agent Card as the SDK's resolver reads it."""
    async with httpx.AsyncClient(timeout=30) as http:
        return await A2ACardResolver(http, url).get_agent_card()


def message(
    text: str, task_id: str | None = None, context_id: str | None = None
) -> a2a.SendMessageRequest:
    """A user message, on `task_id` (in `context_id`) when it continues a task."""
    sent = new_text_message(text, task_id=task_id, context_id=context_id, role=a2a.Role.ROLE_USER)
    return a2a.SendMessageRequest(message=sent)


async def events(made: Client, request: a2a.SendMessageRequest) -> list[a2a.StreamResponse]:
    """Every event the server streams for `request`, in order."""
    return [event async for event in made.send_message(request)]


def states(received: list[a2a.StreamResponse]) -> list[str]:
    """The task states and artifacts the stream carried, in order (``artifact:<call>``)."""
    seen = []
    for event in received:
        if event.HasField("task"):
            seen.append(a2a.TaskState.Name(event.task.status.state))
        elif event.HasField("status_update"):
            seen.append(a2a.TaskState.Name(event.status_update.status.state))
        elif event.HasField("artifact_update"):
            seen.append(f"artifact:{event.artifact_update.artifact.artifact_id}")
    return seen


def task_id(received: list[a2a.StreamResponse]) -> str:
    for event in received:
        if event.HasField("task"):
            return str(event.task.id)
        if event.HasField("status_update"):
            return str(event.status_update.task_id)
    raise AssertionError("no task in the stream")


def last_text(received: list[a2a.StreamResponse]) -> str:
    """The text of the last status message."""
    for event in reversed(received):
        if event.HasField("status_update"):
            return "".join(p.text for p in event.status_update.status.message.parts)
    raise AssertionError("no status update in the stream")
