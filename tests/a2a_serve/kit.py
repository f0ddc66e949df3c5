"""A real ``seamhost a2a serve`` child process, the a2a-sdk's own client, and the sessions.

:class:`Rig` writes a profile over the default one (its policy asks about ``ask/**`` writes and
user-approval defers every question it is asked, for ``seamhost approve``), a scenario, a
workspace and a home for the store; :meth:`Rig.serve` starts the server on a free loopback
port (it prints the address) and stops it with SIGTERM. The log is read back with ``seamhost
session show --json``, held to the shape rules.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.client.client import Client
from a2a.helpers import new_text_message
from a2a.types import a2a_pb2 as a2a

from seamhost.session.record import Record
from seamhost.session.shape import shape_problems
from seamhost.testing.sites import PluginSite
from tests.conftest import run_cli
from tests.mcp_serve.kit import NAP_PLUGIN

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


class Rig:
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

    def environment(self, more: dict[str, str]) -> dict[str, str]:
        environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
        return {**environ, **self.env, **more}

    @contextlib.contextmanager
    def serve(self, *more: str, env: dict[str, str] | None = None) -> Iterator[Server]:
        """A ``seamhost a2a serve`` child on a free loopback port, SIGTERMed on exit."""
        argv = [sys.executable, "-m", "seamhost", "a2a", "serve", "--profile", str(self.profile)]
        argv += ["--scenario", str(self.scenario), "--workspace", str(self.workspace)]
        argv += ["--http", "127.0.0.1:0", *more]
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=self.environment(env or {}),
            text=True,
        )
        assert process.stderr is not None
        seen = []
        for line in process.stderr:
            seen.append(line)
            if "listening on " in line:
                url = line.split("listening on ")[1].strip()
                break
        else:
            process.wait(timeout=10)
            raise AssertionError(f"the server did not start: {''.join(seen)}")
        server = Server(process, url.rstrip("/"))
        try:
            yield server
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            finally:
                server.stderr = "".join(seen) + process.stderr.read()
                process.stderr.close()

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, "--profile", str(self.profile), env=self.env)

    def records(self, session_id: str) -> list[dict[str, Any]]:
        shown = self.cli("session", "show", session_id, "--json")
        assert shown.returncode == 0, shown.stderr
        return [json.loads(line) for line in shown.stdout.splitlines()]

    def session_ids(self) -> list[str]:
        stored = self.home / "sessions"
        return sorted(p.name for p in stored.iterdir() if p.is_dir()) if stored.exists() else []


class Server:
    """A running ``seamhost a2a serve``: its base URL, and its stderr once stopped."""

    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process = process
        self.url = url
        self.stderr = ""


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


def well_formed(records: list[dict[str, Any]], *, closed: bool = True) -> None:
    parsed = [Record(r["seq"], r["type"], r["time"], plain=r["data"]) for r in records]
    assert shape_problems(parsed, closed=closed) == []


def of_type(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r["data"] for r in records if r["type"] == kind]
