"""``seamhost mcp serve`` under concurrency, cancellation, progress and SIGKILL.

The ``nap`` test plugin (:mod:`tests.mcp_serve.kit`) gives calls that take as long as asked:
``nap`` is concurrency-safe, ``hold`` is exclusive. Every test reads the log back and holds it
to the shape rules.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp.client.session import ClientSession

from seamhost.testing.sites import PluginSite
from tests.mcp_serve.kit import Rig, outcomes, session_of
from tests.served import of_type, well_formed

TRANSPORTS = pytest.mark.parametrize("transport", ["stdio", "http"])


@TRANSPORTS
def test_concurrent_calls_overlap_when_safe_and_the_log_keeps_arrival_order(
    tmp_path: Path, plugin_site: PluginSite, transport: str
) -> None:
    rig = Rig(tmp_path, site=plugin_site)

    async def main() -> list[types.CallToolResult]:
        async with rig.connect(transport=transport) as (client, _):
            await client.list_tools()
            results: list[types.CallToolResult | None] = [None] * 4
            async with anyio.create_task_group() as group:
                for index in range(4):

                    async def one(index: int = index) -> None:
                        results[index] = await client.call_tool("nap", {"seconds": 0.6})

                    group.start_soon(one)
            return [r for r in results if r is not None]

    results = anyio.run(main)
    assert len(results) == 4
    assert not any(r.is_error for r in results)
    session_id = session_of(results[0])
    records = rig.records(session_id)
    well_formed(records)
    spans = sorted(
        (r["value"]["started"], r["value"]["ended"]) for r in of_type(records, "tool/result")
    )
    # Concurrency-safe bodies overlapped: some body started before another one ended.
    assert any(later[0] < earlier[1] for earlier, later in itertools.pairwise(spans))
    # Results are committed in the order the calls were taken, step by step.
    calls = [c["call_id"] for c in of_type(records, "tool/call")]
    assert [r["call_id"] for r in of_type(records, "tool/result")] == calls
    assert set(outcomes(records).values()) == {"ok"}


def test_exclusive_calls_are_barriers(tmp_path: Path, plugin_site: PluginSite) -> None:
    rig = Rig(tmp_path, site=plugin_site)

    async def main() -> list[types.CallToolResult]:
        async with rig.connect() as (client, _):
            results: list[types.CallToolResult] = []
            async with anyio.create_task_group() as group:
                for _ in range(3):

                    async def one() -> None:
                        results.append(await client.call_tool("hold", {"seconds": 0.3}))

                    group.start_soon(one)
            return results

    results = anyio.run(main)
    records = rig.records(session_of(results[0]))
    well_formed(records)
    spans = sorted(
        (r["value"]["started"], r["value"]["ended"]) for r in of_type(records, "tool/result")
    )
    assert len(spans) == 3
    assert all(later[0] >= earlier[1] for earlier, later in itertools.pairwise(spans))


@TRANSPORTS
def test_progress_is_reported_while_a_long_body_runs(
    tmp_path: Path, plugin_site: PluginSite, transport: str
) -> None:
    rig = Rig(tmp_path, site=plugin_site)
    seen: list[tuple[float, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    async def main() -> types.CallToolResult:
        async with rig.connect(transport=transport) as (client, _):
            return await client.call_tool("nap", {"seconds": 2.5}, progress_callback=progress)

    result = anyio.run(main)
    assert not result.is_error
    assert len(seen) >= 2
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert all(message is not None and message.startswith("nap: running") for _, message in seen)


@TRANSPORTS
def test_cancelling_a_running_call_awaits_its_body_and_records_the_outcome(
    tmp_path: Path, plugin_site: PluginSite, transport: str
) -> None:
    rig = Rig(tmp_path, site=plugin_site)

    async def main() -> tuple[float, types.CallToolResult]:
        async with rig.connect(transport=transport) as (client, _):
            started = time.monotonic()
            with anyio.move_on_after(1.0):  # the client cancels: notifications/cancelled
                await client.call_tool("hold", {"seconds": 30})
            cancelled_after = time.monotonic() - started
            # The connection goes on serving: the next call is answered.
            after = await client.call_tool("nap", {"seconds": 0})
            return cancelled_after, after

    cancelled_after, after = anyio.run(main)
    assert cancelled_after < 5
    assert not after.is_error
    records = rig.records(session_of(after))
    well_formed(records)
    first = of_type(records, "tool/result")[0]
    # The cancellation reached the started body, which was awaited: it woke early and settled,
    # and what it returned is its recorded result.
    assert first["value"]["woke"] == "cancelled", first
    assert first["value"]["ended"] - first["value"]["started"] < 5
    assert len(of_type(records, "tool/dispatch")) == 2


def crash_mid_call(rig: Rig, transport: str = "stdio") -> str:
    """Start an exclusive 60 s call, SIGKILL the server once its dispatch is durable."""
    ids: list[str] = []

    async def call(client: ClientSession) -> None:
        with contextlib.suppress(Exception):  # the server dies under the call
            await client.call_tool("hold", {"seconds": 60})

    async def main() -> None:
        async with (
            rig.connect(transport=transport) as (client, _),
            anyio.create_task_group() as group,
        ):
            group.start_soon(call, client)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                await anyio.sleep(0.2)
                stored = rig.session_ids()
                if stored and of_type(rig.records(stored[0]), "tool/dispatch"):
                    ids.append(stored[0])
                    break
            rig.kill_servers()
            group.cancel_scope.cancel()

    anyio.run(main)
    return ids[0]


@TRANSPORTS
def test_sigkill_mid_call_then_repair_marks_the_dispatched_call_unknown(
    tmp_path: Path, plugin_site: PluginSite, transport: str
) -> None:
    rig = Rig(tmp_path, site=plugin_site)
    session_id = crash_mid_call(rig, transport)
    crashed = rig.records(session_id)
    assert of_type(crashed, "tool/dispatch")
    assert of_type(crashed, "tool/result") == []  # the kill came before any result
    repaired = rig.cli("session", "repair", session_id)
    assert repaired.returncode == 0, repaired.stderr
    records = rig.records(session_id)
    well_formed(records)
    assert list(outcomes(records).values()) == ["TOOL_OUTCOME_UNKNOWN"]
    assert of_type(records, "turn/end")[-1]["reason"] == "interrupted"


def test_serving_a_crashed_session_again_repairs_it_first(
    tmp_path: Path, plugin_site: PluginSite
) -> None:
    rig = Rig(tmp_path, site=plugin_site)
    session_id = crash_mid_call(rig)

    async def resume() -> types.CallToolResult:
        async with rig.connect("--session", session_id[:12]) as (client, init):
            assert init.instructions is not None
            assert session_id in init.instructions
            return await client.call_tool("nap", {"seconds": 0})

    again = anyio.run(resume)
    assert session_of(again) == session_id
    records = rig.records(session_id)
    well_formed(records)
    assert list(outcomes(records).values()) == ["TOOL_OUTCOME_UNKNOWN", "ok"]
    assert len(of_type(records, "session/repaired")) == 1


@TRANSPORTS
def test_sigterm_settles_the_running_call_and_closes_the_session(
    tmp_path: Path, plugin_site: PluginSite, transport: str
) -> None:
    rig = Rig(tmp_path, site=plugin_site)
    stopped: list[float] = []  # when the server was told to stop

    async def call(client: ClientSession) -> None:
        with contextlib.suppress(Exception):  # the server stops under the call
            await client.call_tool("hold", {"seconds": 60})

    async def main() -> None:
        try:
            async with (
                rig.connect(transport=transport) as (client, _),
                anyio.create_task_group() as group,
            ):
                group.start_soon(call, client)
                while not (rig.session_ids() and rig.server_pids()):
                    await anyio.sleep(0.1)
                await anyio.sleep(1.0)
                stopped.append(time.monotonic())
                for pid in rig.server_pids():
                    os.kill(pid, signal.SIGTERM)
                while rig.server_pids() and time.monotonic() - stopped[0] < 20:
                    await anyio.sleep(0.05)
                group.cancel_scope.cancel()
        except* httpx2.ConnectError:
            # The HTTP client's goodbye (or a request still in flight) to the server it was
            # told to stop: it is gone, as this test made it. Only after the stop, though.
            assert stopped, "the client lost the server before the test stopped it"

    anyio.run(main)
    while rig.server_pids() and time.monotonic() - stopped[0] < 20:
        time.sleep(0.05)
    waited = [time.monotonic() - stopped[0]]
    assert waited[0] < 10  # the 60 s body was woken, not waited out
    records = rig.records(rig.only_session())
    well_formed(records)  # nothing left open: no repair needed
    (result,) = of_type(records, "tool/result")
    assert result["value"]["woke"] == "cancelled"
    assert of_type(records, "turn/end")[-1]["reason"] == "completed"


def test_cancelling_one_call_of_a_batch_leaves_the_others_running(
    tmp_path: Path, plugin_site: PluginSite
) -> None:
    rig = Rig(tmp_path, site=plugin_site)
    finished: list[types.CallToolResult] = []

    async def main() -> None:
        async with rig.connect() as (client, _):
            await client.list_tools()

            async def call(seconds: float, cancel_after: float | None = None) -> None:
                with anyio.move_on_after(cancel_after if cancel_after is not None else 60):
                    finished.append(await client.call_tool("nap", {"seconds": seconds}))

            async with anyio.create_task_group() as group:
                group.start_soon(call, 0.8)  # runs alone: the next two arrive meanwhile
                await anyio.sleep(0.3)
                group.start_soon(call, 30, 1.5)  # cancelled while its body runs
                group.start_soon(call, 2.5)

    anyio.run(main)
    assert len(finished) == 2
    records = rig.records(session_of(finished[0]))
    well_formed(records)
    turns = {c["call_id"]: c["turn"] for c in of_type(records, "tool/call")}
    woke = {r["call_id"]: r["value"]["woke"] for r in of_type(records, "tool/result")}
    first, *later = sorted(turns)
    # The two later calls were taken together, as one batch, after the first; one of them was
    # cancelled, and its neighbour slept its full time all the same.
    assert turns[first] < turns[later[0]] == turns[later[1]]
    assert sorted(woke[call] for call in later) == ["cancelled", "slept"]
