"""A run's workspace is part of the run (design.md §14): `submit --workspace` records it and every
owner works there; without one, a directory of the worker's own named by the run id, which a
takeover on the same host finds. Each claim is kept in ``run_attempts``; `migrate` brings a
version 3 queue to version 4 keeping its runs."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from seamhost_persistence_postgres.errors import StoreUnusable
from seamhost_persistence_postgres.schema import SCHEMA_VERSION
from seamhost_persistence_postgres.store import PostgresStore

from tests.persistence_postgres.rig import Rig

# A scenario whose first turn writes a file, and whose second reads it back through the shell:
# the second turn only sees it if it runs in the workspace the first one wrote to.
WRITE_THEN_READ = {
    "scenario": {"workspace": {"seed.txt": "seeded\n"}},
    "turn": [
        {
            "user": "write",
            "step": [
                {"call": [{"tool": "mark", "args": {"hold": True}}]},
                {"call": [{"tool": "write_file", "args": {"path": "made.txt", "content": "x"}}]},
            ],
        },
        {"user": "read", "step": [{"call": [{"tool": "read_file", "args": {"path": "made.txt"}}]}]},
    ],
}


def execute(dsn: str, schema: str, statement: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        cursor = conn.execute(sql.SQL(statement).format(sql.Identifier(schema)), params)
        return cursor.fetchall() if cursor.description else []


def tools_rig(tmp_path: Path, dsn: str, schema: str) -> Rig:
    """The marker rig with the shipped file tools as well."""
    rig = Rig.make(tmp_path / "rig", dsn, schema)
    rig.profile.write_text(rig.profile.read_text() + "[plugins.tools]\n")
    return rig


def test_submit_records_the_workspace_and_the_worker_works_there(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    rig = tools_rig(tmp_path, postgres_dsn, pg_schema)
    scenario = rig.root / "wr.json"
    scenario.write_text(json.dumps(WRITE_THEN_READ))
    shared = tmp_path / "shared"
    shared.mkdir()
    done = rig.cli(
        "submit", "--profile", str(rig.profile), "--json", "--workspace", str(shared),
        "--session", "s-ws", str(scenario),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["workspace"] == str(shared.resolve())
    worker = rig.worker("--once", log="w.log")
    assert worker.wait(timeout=120) == 0, (rig.root / "w.log").read_text()
    (run,) = rig.runs()
    assert (run["state"], run["workspace"]) == ("completed", str(shared.resolve())), run
    assert (shared / "made.txt").read_text() == "x"
    assert (shared / "seed.txt").read_text() == "seeded\n"  # a given workspace is never removed


def test_a_workspace_absent_on_the_host_hands_the_run_back_saying_why(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    rig = tools_rig(tmp_path, postgres_dsn, pg_schema)
    scenario = rig.scenario("one.json", [[{}]])
    gone = tmp_path / "gone"
    gone.mkdir()
    done = rig.cli(
        "submit", "--profile", str(rig.profile), "--workspace", str(gone), "--session", "s-gone",
        str(scenario),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    gone.rmdir()  # as on a host that does not mount it
    worker = rig.worker("--once", log="w.log")
    assert worker.wait(timeout=120) == 0
    log = (rig.root / "w.log").read_text()
    assert f"its workspace {gone} (`submit --workspace`) is not a directory on this host" in log
    (run,) = rig.runs()
    assert run["state"] == "queued"
    assert "RunWorkspaceMissing" in run["progress"]
    assert rig.marker_names() == set()  # nothing ran in a stand-in directory


def test_a_takeover_on_the_same_host_finds_the_run_s_own_workspace(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    rig = tools_rig(tmp_path, postgres_dsn, pg_schema)
    scenario = rig.root / "wr.json"
    scenario.write_text(json.dumps(WRITE_THEN_READ))
    rig.submit(scenario, "s-own")
    state = rig.root / "state"
    rig.hold.touch()
    keep = ("--state-dir", str(state), "--keep-workspaces")
    first = rig.worker(*keep, "--name", "first", log="w1.log")
    try:
        deadline = time.monotonic() + 60
        while "s-own:call-1-1-1.1" not in rig.marker_names():
            assert time.monotonic() < deadline, (rig.root / "w1.log").read_text()
            time.sleep(0.02)
        (run,) = rig.runs()
        workspace = state / "runs" / str(run["id"])
        assert (workspace / "seed.txt").read_text() == "seeded\n"
        (workspace / "seed.txt").write_text("changed by the run\n")
        first.send_signal(signal.SIGKILL)
        first.wait()
    finally:
        first.kill()
        first.wait()
    rig.hold.unlink()
    second = rig.worker(*keep, "--name", "second", log="w2.log")
    try:
        deadline = time.monotonic() + 60
        while rig.runs()[0]["state"] in ("queued", "running"):
            assert time.monotonic() < deadline, (rig.root / "w2.log").read_text()
            time.sleep(0.2)
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=60)
    (run,) = rig.runs()
    assert run["claims"] >= 2
    store = PostgresStore(postgres_dsn, schema=pg_schema)
    try:
        header = store.read("s-own").header
        records = list(store.read("s-own").records())
    finally:
        store.close()
    assert header.cwd == str(workspace)
    # The takeover worked in the same directory: the second turn read what the first wrote,
    # and the seeded file was not seeded again over the run's change.
    (read,) = [r for r in records if r.type == "tool/result" and r.data["call_id"] == "call-2-1-1"]
    assert "error" not in read.data, read.data
    assert (workspace / "seed.txt").read_text() == "changed by the run\n"


def test_runs_show_lists_each_claim_of_a_run(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    rig = Rig.make(tmp_path / "rig", postgres_dsn, pg_schema)
    rig.submit(rig.scenario("one.json", [[{}]]), "s-1")
    worker = rig.worker("--once", "--name", "only", log="w.log")
    assert worker.wait(timeout=120) == 0
    done = rig.cli("runs", "show", "s-1", "--profile", str(rig.profile), "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    (attempt,) = shown["attempts"]
    assert (attempt["claim"], attempt["worker"]) == (1, "only")
    assert attempt["how"].startswith("completed")
    assert attempt["ended"] is not None


def test_migrate_brings_a_version_3_queue_to_version_4_keeping_its_runs(
    postgres_dsn: str, pg_schema: str
) -> None:
    assert SCHEMA_VERSION == 4
    store = PostgresStore(postgres_dsn, schema=pg_schema)
    try:
        store.runs.submit("old-run", prompt="hello")
    finally:
        store.close()
    execute(postgres_dsn, pg_schema, "DROP TABLE {}.run_attempts")
    execute(postgres_dsn, pg_schema, "ALTER TABLE {}.runs DROP COLUMN workspace")
    execute(postgres_dsn, pg_schema, "UPDATE {}.meta SET value = '3' WHERE key = 'schema_version'")
    old = PostgresStore(postgres_dsn, schema=pg_schema)
    try:
        with pytest.raises(StoreUnusable, match="version 3; bring it to version 4"):
            old.runs.all()
        assert old.migrate() == (3, 4)
        (run,) = old.runs.all()
        assert (run.session_id, run.prompt, run.workspace) == ("old-run", "hello", None)
        assert old.runs.attempts(run) == []
    finally:
        old.close()
