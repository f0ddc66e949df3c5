"""docs/a2a.md's serving example, run as the page says: its files, its server, its client.

Every fenced block of the page whose first line is ``# file: <name>`` is written out; the
server runs with the page's profile, scenario and token variable; the page's client (the
a2a-sdk's own) is run as a program, and what it prints must be the page's ``text`` block that
follows ``python client.py``, the task id aside (it differs per run).

``slow``: tests/a2a_loop/test_docs_example.py runs the same half, and the delegating one, on one
server in the default run; this one checks the serving half alone.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.a2a_serve.kit import Rig
from tests.served import of_type, well_formed

PAGE = Path(__file__).resolve().parents[2] / "docs" / "a2a.md"
FILE_BLOCK = re.compile(r"^```[a-z]*\n# file: (?P<name>\S+)\n(?P<body>.*?)^```$", re.M | re.S)
PRINTED = re.compile(r"^python client\.py .*?\n```\n\n```text\n(?P<out>.*?)^```$", re.M | re.S)
SESSION_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{12}")


@pytest.mark.slow
def test_the_pages_client_gets_what_the_page_says(tmp_path: Path) -> None:
    page = PAGE.read_text(encoding="utf-8")
    files = {m["name"]: m["body"] for m in FILE_BLOCK.finditer(page)}
    assert {"serving.toml", "notes.toml", "client.py"} <= set(files)
    rig = Rig(tmp_path, files["notes.toml"])
    rig.profile.write_text(files["serving.toml"])
    (tmp_path / "client.py").write_text(files["client.py"])
    token = {"NOTES_TOKEN": "docs-example-token"}
    with rig.serve("--token-env", "NOTES_TOKEN", env=token) as server:
        ran = subprocess.run(
            [sys.executable, str(tmp_path / "client.py"), server.url],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, **token},
            check=False,
        )
    assert ran.returncode == 0, ran.stderr
    (task,) = rig.session_ids()
    expected = PRINTED.search(page)
    assert expected is not None
    assert SESSION_ID.sub("TASK", ran.stdout) == SESSION_ID.sub("TASK", expected["out"])
    assert task in ran.stdout
    records = rig.records(task)
    well_formed(records)
    assert of_type(records, "a2a/task")[0]["task_id"] == task
    assert (rig.workspace / "notes" / "today.md").read_text() == "- ship the A2A door\n"
