"""A connection that drops after dispatch: an unknown outcome, reconciled by the status probe.

The test agent accepts the task (its id is streamed to the caller), records it completed, and
kills its own process before the caller hears the end: the delegation ends
``TOOL_OUTCOME_UNKNOWN`` with the remote task id in its result. Restarted (its tasks kept in
its own store), the agent is asked by ``seamhost session reconcile --due``, through the
plugin's ``tools/reconcile``, for that task, and the call is reconciled with what it did.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.tools_a2a.conftest import TOKEN, RemoteAgent, agent_table, profile
from tests.tools_mcp.conftest import Area, one_call, records_of, run_turn


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ECHO_TOKEN", TOKEN)


def test_a_dropped_delegation_is_unknown_then_reconciled_by_asking_the_agent(
    root: Path, remote: RemoteAgent
) -> None:
    path = profile(root, agent_table(remote.url), one_call("a2a__echo", {"message": "crash"}))
    run = run_turn(path, Area(root))
    assert remote.wait_dead() == 0  # the agent really died mid-task
    assert run.codes == {"c1": "TOOL_OUTCOME_UNKNOWN"}, run.contents
    task_id = run.metas["c1"]["a2a_task_id"]
    assert task_id in run.contents["c1"]
    assert "reconcile" in run.contents["c1"]

    # Before the agent is back, nothing can be asked (the mount itself fails, naming it), and
    # nothing is written.
    log = next((root / "sessions").rglob("*.jsonl*"))
    size = log.stat().st_size
    before = run_cli("session", "reconcile", "--due", "--profile", str(path), "--json")
    assert before.returncode == 2, before.stderr
    assert 'A2A agent "echo": unreachable' in before.stderr
    assert "Traceback" not in before.stderr
    assert log.stat().st_size == size

    remote.start()
    done = run_cli("session", "reconcile", "--due", "--profile", str(path), "--json")
    assert done.returncode == 0, done.stderr
    [report] = json.loads(done.stdout)
    assert report["outcome"] == "resolved", report
    [(_, reconciled)] = [
        (kind, data)
        for kind, data in records_of(_reopened(path, run.session.id))
        if kind == "tool/reconciled"
    ]
    assert reconciled["source"] == "probe:tools-a2a"
    assert reconciled["value"]["task_id"] == task_id
    assert reconciled["value"]["state"] == "completed"
    assert reconciled["content"] == "done before the crash"


def _reopened(path: Path, session_id: str):  # type: ignore[no-untyped-def]
    from seamhost.kernel.bundle import build_bundle
    from seamhost.kernel.profile.resolve import resolve_profile
    from seamhost.run.sessions import open_session

    session, _ = open_session(build_bundle(resolve_profile(str(path))), session_id)
    session.close()
    return session


@pytest.mark.slow  # the probe's second path; the reconcile by task id runs by default
def test_a_task_id_that_never_arrived_is_found_by_the_calls_context(
    root: Path, remote: RemoteAgent
) -> None:
    path = profile(root, agent_table(remote.url), one_call("a2a__echo", {"message": "crash early"}))
    run = run_turn(path, Area(root))
    remote.wait_dead()
    assert run.codes == {"c1": "TOOL_OUTCOME_UNKNOWN"}, run.contents
    assert "a2a_task_id" not in run.metas["c1"]
    assert "no task id arrived" in run.contents["c1"]
    remote.start()
    done = run_cli("session", "reconcile", "--due", "--profile", str(path), "--json")
    [report] = json.loads(done.stdout)
    assert report["outcome"] == "resolved", (report, done.stderr)
    [reconciled] = [
        data
        for kind, data in records_of(_reopened(path, run.session.id))
        if kind == "tool/reconciled"
    ]
    assert reconciled["content"] == "done, unannounced"
    assert reconciled["value"]["context_id"] == run.metas["c1"].get(
        "a2a_context_id", reconciled["value"]["context_id"]
    )


def test_a_delegation_the_agent_never_kept_stays_unknown(root: Path, remote: RemoteAgent) -> None:
    path = profile(root, agent_table(remote.url), one_call("a2a__echo", {"message": "vanish"}))
    run = run_turn(path, Area(root))
    remote.wait_dead()
    assert run.codes == {"c1": "TOOL_OUTCOME_UNKNOWN"}, run.contents
    remote.start()
    done = run_cli("session", "reconcile", "--due", "--profile", str(path), "--json")
    [report] = json.loads(done.stdout)
    # Honest: the agent knows no task of the call's context, which proves nothing either way.
    assert report["outcome"] == "failed", report
    assert "no task id arrived" in report["detail"]
    assert "stays unknown" in report["detail"]
    kinds = [kind for kind, _ in records_of(_reopened(path, run.session.id))]
    assert "tool/reconciled" not in kinds
