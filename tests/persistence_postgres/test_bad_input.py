"""What a user sees when the database cannot be used: one clear line, exit 2 or 1, nothing lost.

Exit 2 (configuration) when nothing can work until the operator fixes the profile or the
database: a refused password, a schema without tables, a schema newer than this seamhost.
Exit 1 (runtime) when no server answers at the address: it may be down for a moment.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from seamhost_persistence_postgres.schema import SCHEMA_VERSION
from seamhost_persistence_postgres.store import PostgresStore

from seamhost.session.live import Session
from seamhost.testing.persistence import append_all, envelopes, flush, make_header, sample_events
from tests.persistence_postgres.server import Server, start_cluster


def profile(tmp_path: Path, dsn: str, schema: str = "seamhost") -> Path:
    path = tmp_path / "pg.toml"
    path.write_text(
        '[profile]\nname = "pg"\n[plugins.persistence-postgres]\n'
        f"dsn = {json.dumps(dsn)}\nschema = {json.dumps(schema)}\n"
        "[plugins.checkpoint-policy]\n[plugins.model-scripted]\n"
    )
    return path


def seamhost(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "seamhost", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_server_is_a_runtime_failure(tmp_path: Path) -> None:
    path = profile(tmp_path, f"host=127.0.0.1 port={free_port()} dbname=x user=postgres")
    for command in (["session", "ls"], ["runs", "ls"], ["worker", "--once"]):
        done = seamhost(*command, "--profile", str(path))
        assert done.returncode == 1, (command, done.stderr)
        assert "cannot reach the database at host=127.0.0.1" in one_line(done)
    done = seamhost("session", "ls", "--profile", str(path), "--json")
    error = json.loads(done.stdout.strip().splitlines()[-1])["error"]
    assert (error["exit_code"], error["type"]) == (1, "DatabaseUnreachable")


@pytest.fixture(scope="module")
def guarded_server() -> Iterator[Server]:
    """A private cluster whose postgres user needs a password."""
    try:
        server = start_cluster(password="right-one")
    except (OSError, subprocess.CalledProcessError, LookupError) as exc:
        pytest.skip(f"cannot start a private cluster with a password: {exc}")
    try:
        yield server
    finally:
        server.stop()


def test_a_refused_password_is_a_configuration_error(
    tmp_path: Path, guarded_server: Server
) -> None:
    path = profile(tmp_path, guarded_server.dsn + " password=wrong-one")
    done = seamhost("session", "ls", "--profile", str(path))
    assert done.returncode == 2, done.stderr
    line = one_line(done)
    assert "the server refused the connection: password authentication failed" in line
    assert "wrong-one" not in line  # the password is never shown
    right = profile(tmp_path, guarded_server.dsn + " password=right-one")
    assert seamhost("store", "migrate", "--profile", str(right)).returncode == 0
    assert seamhost("session", "ls", "--profile", str(right)).returncode == 0


def test_a_missing_schema_says_how_to_create_it(tmp_path: Path, postgres_dsn: str) -> None:
    schema = "seamhost_test_missing"
    path = profile(tmp_path, postgres_dsn, schema)
    try:
        done = seamhost("session", "ls", "--profile", str(path))
        assert done.returncode == 2, done.stderr
        assert "holds no seamhost tables; create them with `seamhost store migrate" in one_line(
            done
        )
        done = seamhost("store", "migrate", "--profile", str(path))
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == f"persistence-postgres: no tables -> version {SCHEMA_VERSION}"
        assert seamhost("session", "ls", "--profile", str(path)).returncode == 0
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def test_a_newer_schema_is_refused_untouched(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    store = PostgresStore(postgres_dsn, schema=pg_schema)
    session = Session(store.create(make_header("kept")))
    append_all(session, sample_events())
    flush(session.writer)
    session.close()
    written = envelopes(store.read("kept").records())
    store.close()
    bump = sql.SQL("UPDATE {}.meta SET value = %s WHERE key = 'schema_version'").format(
        sql.Identifier(pg_schema)
    )
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(bump, ("99",))
    path = profile(tmp_path, postgres_dsn, pg_schema)
    for command in (["session", "ls"], ["store", "migrate"], ["submit", "--prompt", "hi"]):
        done = seamhost(*command, "--profile", str(path))
        assert done.returncode == 2, (command, done.stderr)
        assert f"is at version 99, newer than version {SCHEMA_VERSION}" in one_line(done)
        assert "upgrade seamhost" in done.stderr
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(bump, (str(SCHEMA_VERSION),))
    again = PostgresStore(postgres_dsn, schema=pg_schema)
    try:
        assert envelopes(again.read("kept").records()) == written
    finally:
        again.close()


def test_the_file_layout_options_of_store_migrate_are_refused_for_a_schema(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    path = profile(tmp_path, postgres_dsn, pg_schema)
    for extra in (["--dry-run"], ["--remove-old"], ["some-session"]):
        done = seamhost("store", "migrate", "--profile", str(path), *extra)
        assert done.returncode == 2, (extra, done.stderr)
        assert "has a schema, not session files" in one_line(done)
    assert seamhost("store", "migrate", "--profile", str(path)).returncode == 0
