"""The shipped `postgres` profile, against the tests' server: a scenario meets its expectations
run directly and through the queue, and the session commands read the sessions it wrote."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli

ROOT = Path(__file__).parents[2]


def test_the_postgres_profile_runs_the_quickstart(
    tmp_path: Path, postgres_dsn: str, pg_schema: str
) -> None:
    profile = tmp_path / "here.toml"
    profile.write_text(
        '[profile]\nname = "here"\nextends = ["postgres"]\n'
        f'[plugins.persistence-postgres]\nschema = "{pg_schema}"\n'
    )
    env = {"SEAMHOST_POSTGRES_DSN": postgres_dsn, "SEAMHOST_HOME": str(tmp_path / "home")}
    scenario = str(ROOT / "examples" / "quickstart.toml")
    done = run_cli(
        "run", "--profile", str(profile), "--check", "--session", "direct", scenario, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    queued = run_cli("submit", "--profile", str(profile), "--session", "queued", scenario, env=env)
    assert queued.returncode == 0, queued.stderr
    worked = run_cli("worker", "--profile", str(profile), "--once", "--json", env=env)
    assert worked.returncode == 0, worked.stderr
    assert json.loads(worked.stdout) == {"completed": 1}
    listed = run_cli("session", "ls", "--profile", str(profile), "--json", env=env)
    assert sorted(row["session_id"] for row in json.loads(listed.stdout)) == ["direct", "queued"]
    for session in ("direct", "queued"):
        verified = run_cli("session", "verify", "--profile", str(profile), session, env=env)
        assert verified.returncode == 0, verified.stdout + verified.stderr
    shown = run_cli("session", "show", "--profile", str(profile), "queu", env=env)
    assert "write_file" in shown.stdout
