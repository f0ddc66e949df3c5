"""docs/a2a.md's loopback example, both halves as the page gives them, on one server.

The page's serving profile and scenario run under a real ``seamhost a2a serve`` (its token from
``NOTES_TOKEN``). The page's client (the a2a-sdk's own) is run as a program and must print the
page's ``text`` block, the task id aside. The page's delegating profile (its ``url`` pointed at
that server's port) and scenario run with ``seamhost run``, sharing one store as on one machine.
Then the page's way of finding the Agent Card digest is followed, the digest pinned, and the
delegation run again. (tests/a2a_serve/test_docs_example.py checks the serving half alone, on a
server of its own; it is ``slow``, since this test covers it.)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from seamhost import __version__
from tests.a2a_serve.kit import Rig
from tests.a2a_serve.test_docs_example import PRINTED, SESSION_ID
from tests.conftest import run_cli
from tests.served import of_type, well_formed

PAGE = Path(__file__).resolve().parents[2] / "docs" / "a2a.md"
FILE_BLOCK = re.compile(r"^```[a-z]*\n# file: (?P<name>\S+)\n(?P<body>.*?)^```$", re.M | re.S)
TOKEN = {"NOTES_TOKEN": "docs-loop-token"}


def test_the_pages_seamhost_delegates_to_the_pages_seamhost(tmp_path: Path) -> None:
    page = PAGE.read_text(encoding="utf-8")
    files = {m["name"]: m["body"] for m in FILE_BLOCK.finditer(page)}
    assert 'url = "http://127.0.0.1:8766"' in files["delegating.toml"]
    assert "seamhost run delegate.toml --profile delegating.toml" in page
    rig = Rig(tmp_path, files["notes.toml"])
    rig.profile.write_text(files["serving.toml"])
    rig.env.update(TOKEN)
    (tmp_path / "delegate.toml").write_text(files["delegate.toml"])
    caller = tmp_path / "delegating.toml"

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, env=rig.env, timeout=180)

    def show(session: str) -> list[dict[str, Any]]:
        shown = cli("session", "show", session, "--json")
        assert shown.returncode == 0, shown.stderr
        return [json.loads(line) for line in shown.stdout.splitlines()]

    def delegate() -> dict[str, Any]:
        ran = cli("run", str(tmp_path / "delegate.toml"), "--profile", str(caller), "--json")
        assert ran.returncode == 0, ran.stdout + ran.stderr
        session = json.loads(ran.stdout.splitlines()[-1])["session"]
        records = show(session)
        well_formed(records)
        assert [r["type"] for r in records].count("tool/dispatch") == 1
        (result,) = of_type(records, "tool/result")
        assert result["is_error"] is False, result["content"]
        assert isinstance(result["value"], dict)
        return result

    (tmp_path / "client.py").write_text(files["client.py"])
    with rig.serve("--token-env", "NOTES_TOKEN", env=TOKEN) as server:
        # The serving half: the page's client gets what the page says.
        client = subprocess.run(
            [sys.executable, str(tmp_path / "client.py"), server.url],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, **TOKEN},
            check=False,
        )
        assert client.returncode == 0, client.stderr
        expected = PRINTED.search(page)
        assert expected is not None
        assert SESSION_ID.sub("TASK", client.stdout) == SESSION_ID.sub("TASK", expected["out"])

        # The delegating half.
        caller.write_text(files["delegating.toml"].replace("http://127.0.0.1:8766", server.url))
        first = delegate()
        value = first["value"]
        assert value["state"] == "completed"
        task = value["task_id"]
        served = show(task)
        assert of_type(served, "a2a/task")[0]["task_id"] == task
        assert [c["name"] for c in of_type(served, "tool/call")] == ["write_file", "read_file"]

        # The page's two ways to find the digest to pin agree, and a pinned card is accepted.
        text = cli("profile", "show", str(caller))
        assert text.returncode == 0, text.stderr
        said = "a2a__notes  tools-a2a, write, serial: Delegate a task to the remote A2A agent"
        assert f"{said} 'notes-agent'" in text.stdout
        pins = cli("a2a", "pins", "--profile", str(caller))
        assert pins.returncode == 0, pins.stderr
        assert "seamhost a2a pins --profile delegating.toml" in page
        heading = f"# A2A agent 'notes': notes-agent {__version__} at {server.url}\n"
        assert pins.stdout.startswith(f"{heading}[plugins.tools-a2a.agents.notes]\n")
        (pin,) = [line for line in pins.stdout.splitlines() if line.startswith("pin = ")]
        digest = pin.split('"')[1]
        assert f"from A2A agent 'notes' at {server.url} (Agent Card {digest}, not pinned)" in (
            text.stdout
        )
        assert first["meta"]["a2a_card_digest"] == digest
        caller.write_text(caller.read_text() + pin + "\n")
        again = delegate()
        assert again["value"]["state"] == "completed"
        assert again["value"]["task_id"] != task
    # The client's task, two callers' sessions and their two tasks' sessions, in one store.
    assert len(rig.session_ids()) == 5
