"""The helpers the runtime gives plugins that mount tools from elsewhere: ``seamhost.run_sync``
(a synchronous seam awaiting an asynchronous client) and ``seamhost.changed_descriptor`` (the
pinned-descriptor check on resume, design.md §13)."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace
from typing import Any, cast

import pytest

from seamhost import ToolExecution, changed_descriptor, run_sync


async def where() -> tuple[str, int]:
    await asyncio.sleep(0)
    return threading.current_thread().name, id(asyncio.get_running_loop())


def test_run_sync_without_a_running_loop_runs_on_this_thread() -> None:
    name, _ = run_sync(where)
    assert name == threading.current_thread().name


def test_run_sync_inside_a_running_loop_uses_a_thread_and_a_loop_of_its_own() -> None:
    async def main() -> tuple[tuple[str, int], int]:
        return run_sync(where, thread_name="mounting"), id(asyncio.get_running_loop())

    (name, inner), outer = asyncio.run(main())
    assert name == "mounting"
    assert inner != outer


@pytest.mark.parametrize("inside_a_loop", [False, True])
def test_run_sync_raises_the_coroutines_exception_on_the_callers_thread(
    inside_a_loop: bool,
) -> None:
    async def fails() -> None:
        raise LookupError("no such server")

    def call() -> None:
        run_sync(fails)

    if inside_a_loop:

        async def main() -> None:
            call()

        with pytest.raises(LookupError, match="no such server"):
            asyncio.run(main())
    else:
        with pytest.raises(LookupError, match="no such server"):
            call()


def execution(recorded: str | None, *, session: bool = True) -> ToolExecution:
    """A stand-in execution of tool `far__tool` whose session header recorded `recorded`."""
    origin = None if recorded is None else {"descriptor_digest": recorded}
    tools: list[dict[str, Any]] = [{"name": "other", "origin": {"descriptor_digest": "sha256:x"}}]
    tools.append({"name": "far__tool", "origin": origin})
    bundle = {"tools": tools}
    live = SimpleNamespace(header=SimpleNamespace(bundle=bundle)) if session else None
    stand_in: Any = SimpleNamespace(invocation=SimpleNamespace(name="far__tool"), session=live)
    return cast("ToolExecution", stand_in)


def test_a_changed_descriptor_is_named_by_the_digest_the_session_recorded() -> None:
    assert changed_descriptor(execution("sha256:old"), "sha256:new", repinned=False) == "sha256:old"


@pytest.mark.parametrize(
    ("made", "why"),
    [
        (execution("sha256:new"), "the same descriptor"),
        (execution(None), "the header recorded no digest for the tool"),
        (execution("sha256:old", session=False), "a call outside a session"),
    ],
)
def test_nothing_to_refuse(made: ToolExecution, why: str) -> None:
    assert changed_descriptor(made, "sha256:new", repinned=False) is None, why


def test_a_repinned_tool_is_accepted() -> None:
    assert changed_descriptor(execution("sha256:old"), "sha256:new", repinned=True) is None
