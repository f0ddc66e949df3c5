"""What the matrix tests share: the data directory, a CLI run in its own temporary places, and
the JUnit schema check."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.conftest import run_cli
from tests.matrix.junit_schema import Schema

DATA = Path(__file__).parent / "data"
SCENARIOS = DATA / "scenarios"
TEAM = DATA / "profiles" / "team.toml"
SCHEMA = Schema(DATA / "junit.xsd")


def places(tmp_path: Path) -> dict[str, str]:
    """An environment whose seamhost home and temporary directory are the test's own."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return {"SEAMHOST_HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path / "tmp")}


def matrix(tmp_path: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``seamhost matrix ARGS`` in a child process."""
    return run_cli("matrix", *args, env=places(tmp_path), cwd=cwd or tmp_path, timeout=180)


def junit_cases(junit: Path) -> dict[str, ET.Element]:
    """``profile::scenario`` → its testcase, once the document is checked against the schema."""
    document = junit.read_bytes()
    assert SCHEMA.problems(document) == []
    root = ET.fromstring(document)
    return {f"{c.get('classname')}::{c.get('name')}": c for c in root.iter("testcase")}


def failed(cases: dict[str, ET.Element]) -> dict[str, ET.Element]:
    """The failing testcases: each one's failure or error element."""
    out = {}
    for cell, case in cases.items():
        problem = case.find("failure")
        problem = problem if problem is not None else case.find("error")
        if problem is not None:
            out[cell] = problem
    return out
