"""``session prune`` on PostgreSQL: a session goes with its finished run and its lease history in
one transaction; a session a queued or running run drives, or a live lease holds, is kept."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from seamhost_persistence_postgres.store import PostgresStore

from seamhost.session.live import Session
from seamhost.session.store import SessionHeader
from tests.conftest import run_cli


def stored(store: PostgresStore, session_id: str) -> None:
    header = SessionHeader(
        session_id=session_id,
        created=1_700_000_000_000,
        cwd="/work/space",
        bundle={"profile": "postgres", "digest": "sha256:" + "0" * 64, "plugins": []},
        durability={"barriers": True, "store": "persistence-postgres"},
    )
    session = Session(store.create(header))
    session.append_data("turn/start", {"turn": 1})
    session.append_data("turn/end", {"turn": 1, "reason": "completed"})
    asyncio.run(session.writer.flush())
    session.close()


def count(store: PostgresStore, table: str, session_id: str) -> int:
    query = f"SELECT count(*) FROM {store.db.schema}.{table} WHERE session_id = %s"
    return int(store.db.rows(query, (session_id,))[0][0])


def test_prune_takes_finished_runs_and_expired_leases_and_keeps_a_claimed_run(
    tmp_path: Path, pg_store: PostgresStore, postgres_dsn: str, pg_schema: str
) -> None:
    for session_id in ("finished", "claimed", "expired", "leased"):
        stored(pg_store, session_id)
    runs = pg_store.runs
    runs.submit("finished", prompt="hi")
    run = runs.claim("w-1", 60.0)
    assert run is not None
    assert runs.finish(run, "completed", "")
    runs.submit("claimed", prompt="hi")
    assert runs.claim("w-2", 60.0) is not None
    pg_store.open("expired").close()  # a takeover: a row of the lease history
    schema = pg_store.db.schema
    lease = f"UPDATE {schema}.sessions SET lease_owner = 'gone:1', lease_expires = "
    pg_store.db.rowcount(lease + "clock_timestamp() - interval '1 minute' WHERE id = 'expired'")
    pg_store.db.rowcount(lease + "clock_timestamp() + interval '1 hour' WHERE id = 'leased'")
    assert count(pg_store, "leases", "expired") == 1  # its takeover, by the writer that died
    profile = tmp_path / "here.toml"
    profile.write_text(
        '[profile]\nname = "here"\nextends = ["postgres"]\n'
        f'[plugins.persistence-postgres]\nschema = "{pg_schema}"\n'
    )
    env = {"SEAMHOST_POSTGRES_DSN": postgres_dsn, "SEAMHOST_HOME": str(tmp_path / "home")}
    pruned = run_cli(
        "session", "prune", "--older-than", "0s", "--profile", str(profile), "--json", env=env
    )
    assert pruned.returncode == 0, pruned.stderr
    out: dict[str, Any] = json.loads(pruned.stdout)
    assert sorted(out["removed"]) == ["expired", "finished"]
    reasons = {k["session_id"]: k["reason"] for k in out["kept"]}
    assert sorted(reasons) == ["claimed", "leased"]
    assert reasons["claimed"].startswith("run ")
    assert " is running on it" in reasons["claimed"]
    assert "held by writer gone:1" in reasons["leased"]
    assert sorted(pg_store.ids()) == ["claimed", "leased"]
    assert [r.session_id for r in runs.all()] == ["claimed"]
    rows = pg_store.db.rows(f"SELECT count(*) FROM {schema}.run_attempts")
    assert rows[0][0] == 1  # the claimed run's; the finished run's went with it
    assert count(pg_store, "leases", "expired") == 0
    assert count(pg_store, "records", "finished") == 0
    # the kept session's lease was handed back: a writer can take it at once
    pg_store.open("claimed").close()
