"""The chaos matrix (see :mod:`tests.persistence_postgres.chaos`): a small one in the default
run, the full one (3 workers, 60 runs, 220 faults, each at a worker driving a run or at a worker's
connection) in `nox -s stress`: every run ends `completed`, never `interrupted`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.persistence_postgres.chaos import APP, run_chaos
from tests.persistence_postgres.rig import Rig


def chaos_rig(tmp_path: Path, dsn: str, schema: str) -> Rig:
    return Rig.make(tmp_path / "rig", f"{dsn} application_name={APP}", schema, lease_s=1.0)


def test_a_few_faults_break_no_invariant(tmp_path: Path, postgres_dsn: str, pg_schema: str) -> None:
    rig = chaos_rig(tmp_path, postgres_dsn, pg_schema)
    report = run_chaos(rig, postgres_dsn, runs=8, faults=12, seed=18)
    print(json.dumps({k: v for k, v in report.items() if k != "problems"}))
    assert report["problems"] == [], json.dumps(report, indent=1)
    assert sum(report["runs"].values()) == 8
    assert report["snapshots"].get("matches", 0) == 8  # each session kept one, and it fits


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_the_chaos_matrix_breaks_no_invariant(
    tmp_path: Path, postgres_dsn: str, pg_schema: str, seed: int
) -> None:
    rig = chaos_rig(tmp_path, postgres_dsn, pg_schema)
    report = run_chaos(rig, postgres_dsn, runs=60, faults=220, seed=seed)
    print(json.dumps({k: v for k, v in report.items() if k != "problems"}))
    assert report["problems"] == [], json.dumps(report, indent=1)
    assert sum(report["faults"].values()) >= 200
    assert report["takeovers"] > 0, report
    assert sum(report["runs"].values()) == 60
