"""The embedding API runs the shipped scenarios as ``seamhost run`` does, sync and async.

Every run here is real: the shipped profiles' plugins, the scripted model replaying an example
scenario, a persistence-jsonl store on disk. The report is held to the session's log, and the
run's outcome to what ``seamhost run --json`` says for the same scenario.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path

import pytest

import seamhost
from seamhost.embed import profiles
from tests.conftest import run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
QUICKSTART = EXAMPLES / "quickstart.toml"
# What each call of the quickstart ends with under the default profile (its `expect`s).
QUICKSTART_CODES = {
    "call-1-1-1": "ok",
    "call-1-1-2": "ok",
    "call-1-1-3": "ok",
    "call-1-2-1": "ok",
    "call-1-3-1": "DENIED_BY_GUARD",
    "call-1-4-1": "INVALID_ARGUMENTS",
}


def stored_results(host: seamhost.Host, session_id: str) -> dict[str, str]:
    records = host.bundle.store.read(session_id).records()
    return {
        r.data["call_id"]: (r.data.get("error") or {}).get("code", "ok")
        for r in records
        if r.type == "tool/result"
    }


def test_a_shipped_scenario_runs_and_its_report_is_the_log(tmp_path: Path) -> None:
    with seamhost.open_host("default", store=tmp_path / "store") as host:
        report = host.run(scenario=QUICKSTART)
        assert report.outcome == "completed"
        assert report.ok
        assert {c.call_id: c.code for c in report.calls} == QUICKSTART_CODES
        assert stored_results(host, report.session_id) == QUICKSTART_CODES
        guarded = report.call("call-1-3-1")
        assert (guarded.decision, guarded.ran, guarded.tool) == ("deny", False, "write_file")
        written = report.call("call-1-2-1")
        assert (written.decision, written.approval, written.ran) == ("allow", None, True)
        assert report.call("call-1-4-1").decision is None
        assert [c.call_id for c in report.errors] == ["call-1-3-1", "call-1-4-1"]
        assert report.usage is None  # the scripted model reports no tokens
        assert report.parked == ()
        # The temporary workspace it worked in is gone, as `seamhost run` leaves it.
        assert not report.workspace.exists()
    # The store is where store= put it.
    assert list((tmp_path / "store").rglob(f"*{report.session_id}*"))


def test_the_outcome_is_the_word_seamhost_run_prints(tmp_path: Path) -> None:
    env = {"SEAMHOST_HOME": str(tmp_path / "home")}
    done = run_cli("run", "--json", str(QUICKSTART), env=env, cwd=tmp_path)
    summary = json.loads(done.stdout.splitlines()[-1])
    with seamhost.open_host(store=tmp_path / "api") as host:
        assert host.run(scenario=QUICKSTART).outcome == summary["outcome"] == "completed"


def test_the_async_host_runs_the_same_scenario(tmp_path: Path) -> None:
    async def main() -> seamhost.RunReport:
        async with await seamhost.open_host_async(store=tmp_path / "store") as host:
            first, second = await asyncio.gather(
                host.run(scenario=QUICKSTART), host.run(scenario=QUICKSTART)
            )
            assert first.session_id != second.session_id
            assert {c.call_id: c.code for c in second.calls} == QUICKSTART_CODES
            return first

    report = asyncio.run(main())
    assert report.outcome == "completed"
    assert {c.call_id: c.code for c in report.calls} == QUICKSTART_CODES


def test_a_workspace_given_is_where_the_tools_work_and_it_stays(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    with seamhost.open_host(workspace=workspace, store=tmp_path / "store") as host:
        report = host.run(scenario=QUICKSTART)
    assert report.workspace == workspace.resolve()
    assert (workspace / "out" / "report.md").read_text() == "orders: 3 replicas; restart pending\n"


def test_a_profile_given_as_text_runs_and_is_named_in_the_header(tmp_path: Path) -> None:
    text = '[profile]\nname = "texted"\nextends = ["default"]\n[limits]\nmax_steps = 3\n'
    with seamhost.open_host(profile_text=text, store=tmp_path / "store") as host:
        report = host.run(scenario=QUICKSTART)
        header = host.bundle.store.read(report.session_id).header
    assert header.bundle["profile"] == "texted"
    # Step 4 of the quickstart is past max_steps: the turn ends in error, as the CLI's would.
    assert report.outcome == "failed"
    assert report.turns[0].message == "the step limit (3) was reached"


def test_a_memory_profile_gets_the_jsonl_store_the_store_argument_names(tmp_path: Path) -> None:
    with seamhost.open_host("minimal", store=tmp_path / "store") as host:
        assert host.bundle.store.name == "persistence-jsonl"
        report = host.run(scenario=QUICKSTART)
        assert stored_results(host, report.session_id)["call-1-2-1"] == "DENIED_BY_GUARD"


def test_opening_a_profile_again_reuses_its_resolution_until_a_file_changes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "p.toml"
    path.write_text('[profile]\nextends = ["default"]\n')
    first = profiles.cached_profile(str(path), None)
    assert profiles.cached_profile(str(path), None) is first
    stamp = path.stat()
    path.write_text('[profile]\nextends = ["strict"]\n')
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))
    again = profiles.cached_profile(str(path), None)
    assert again is not first
    assert again.sandbox.mode != first.sandbox.mode


def test_a_profile_reading_a_secret_is_resolved_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMBED_TEST_KEY", "k-1")
    text = (
        '[profile]\nextends = ["default"]\n[plugins.model-scripted]\nenabled = false\n'
        '[plugins.model-openai]\nmodel = "gpt-4o-mini"\napi_key = { "$env" = "EMBED_TEST_KEY" }\n'
    )
    assert profiles.cached_profile("", text) is not profiles.cached_profile("", text)


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_thirty_runs_in_one_process_leak_no_descriptor_and_no_thread(tmp_path: Path) -> None:
    with seamhost.open_host(store=tmp_path / "store") as host:
        host.run(scenario=QUICKSTART)  # what the first run loads and keeps open (the store)
        fds, threads = open_descriptors(), threading.active_count()
        for _ in range(30):
            assert host.run(scenario=QUICKSTART).outcome == "completed"
        assert open_descriptors() == fds
        assert threading.active_count() == threads
        assert len(list(host.bundle.store.ids())) == 31
    for _ in range(5):  # hosts opened and closed leave nothing behind either
        with seamhost.open_host(store=tmp_path / "store") as host:
            host.run(scenario=QUICKSTART)
    assert open_descriptors() == fds
    assert threading.active_count() == threads


def test_the_store_argument_replaces_a_database_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An address that cannot answer: the run never needs it, its store is the JSONL one.
    monkeypatch.setenv("SEAMHOST_POSTGRES_DSN", "postgresql://seamhost.invalid/none")
    with seamhost.open_host("postgres", store=tmp_path / "store") as host:
        names = [p.name for p in host.bundle.profile.plugins]
        assert "persistence-postgres" not in names
        assert host.bundle.store.name == "persistence-jsonl"
        report = host.run(scenario=QUICKSTART)
        assert stored_results(host, report.session_id) == QUICKSTART_CODES
