"""Delegating to a real A2A agent through the governed pipeline, over loopback HTTP."""

from __future__ import annotations

import pytest

from tests.tools_a2a.conftest import TOKEN, RemoteAgent, agent_table, profile
from tests.tools_mcp.conftest import Area, one_call, records_of, run_turn


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ECHO_TOKEN", TOKEN)


def test_a_delegated_task_completes_with_its_dispatch_record_and_task_id(
    root, remote: RemoteAgent
) -> None:
    path = profile(
        root, agent_table(remote.url), one_call("a2a__echo", {"message": "hello there"})
    )
    run = run_turn(path, Area(root))
    assert run.codes == {"c1": "ok"}, run.contents
    assert run.contents["c1"] == "echo: hello there"
    value = run.values["c1"]
    assert value["state"] == "completed"
    task_id = value["task_id"]
    assert task_id and run.metas["c1"]["a2a_task_id"] == task_id
    records = dict((kind, data) for kind, data in records_of(run.session))
    dispatch = records["tool/dispatch"]
    assert dispatch["name"] == "a2a__echo" if "name" in dispatch else True
    assert dispatch["effect"] == "write" and dispatch["idempotent"] is False
    assert run.dispatched == ("c1",)
    print(records_of(run.session))
