"""The console's runs page on a real PostgreSQL queue: the runs, their states and the workers.

A run is submitted and driven to its end by a real ``seamhost worker --once``, another is left
queued; the page, read from a console under Starlette's TestClient on the same schema, shows
both with the state ``runs ls`` gives them, and the worker that claimed the first.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from seamhost.console.app import create_app
from tests.persistence_postgres.rig import Rig

TOKEN = "the-one-time-token"


def test_the_runs_page_shows_runs_and_workers(
    tmp_path: Path, postgres_dsn: str, pg_schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = Rig.make(tmp_path / "rig", postgres_dsn, pg_schema)
    scenario = rig.scenario("one.json", [[{}]])
    rig.submit(scenario, "s-done")
    worker = rig.worker("--once", "--name", "w-console", log="w.log")
    assert worker.wait(timeout=120) == 0, (rig.root / "w.log").read_text()
    rig.submit(scenario, "s-queued")
    states = {run["session_id"]: run["state"] for run in rig.runs()}
    assert states["s-queued"] == "queued"

    for key, value in rig.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.syspath_prepend(str(rig.site))
    app = create_app(str(rig.profile), token=TOKEN, origin="http://testserver")
    with TestClient(app, follow_redirects=False) as web:
        assert web.get("/login", params={"token": TOKEN}).status_code == 303
        page = web.get("/runs")
    assert page.status_code == 200
    assert "not a queue store" not in page.text
    [runs] = re.findall(r'<table id="runs">(.*?)</table>', page.text, re.S)
    for session, state in states.items():
        assert re.search(
            rf'class="state">{state}</td><td><a href="/sessions/{session}">{session}</a>', runs
        ), (session, state, runs)
    [workers] = re.findall(r'<table id="workers">(.*?)</table>', page.text, re.S)
    assert "<td>w-console</td>" in workers
    assert postgres_dsn not in page.text  # the store is named, its DSN (a secret) never shown
