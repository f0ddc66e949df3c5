"""A provider that echoes the API key in its 401 answer: the key reaches no output, no file.

Issue 33, point 8. The stand-in for Anthropic's API (standin.py) is the one mock this project
allows: a remote model API cannot run here. It answers 401 with an error quoting the key it was
sent, in full and as an ``x-api-key`` header, as a misbehaving provider or proxy would.
Everything else is real: the CLI in a child process, the JSONL store on disk.
"""

from __future__ import annotations

import json
from pathlib import Path

from seamhost.cli.exitcodes import ExitCode
from tests.conftest import run_cli
from tests.leaks import places_holding
from tests.model_anthropic.standin import error, serve

KEY = "sk-ant-api03-Zq8wX2vB7nM4kL1pR6tY"


def test_a_401_echoing_the_key_leaves_it_nowhere(tmp_path: Path) -> None:
    home = tmp_path / "home"
    profile = tmp_path / "real.toml"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = {"SEAMHOST_HOME": str(home), "ANTHROPIC_API_KEY": KEY}
    echo = f"invalid x-api-key: {KEY} (key {KEY} is not valid)"
    with serve([error(401, "authentication_error", echo)]) as standin:
        profile.write_text(
            '[profile]\nname = "real"\nextends = ["anthropic"]\n'
            f'[plugins.model-anthropic]\nbase_url = "{standin.url}"\n'
        )
        done = run_cli(
            "exec", "--profile", str(profile), "--workspace", str(workspace), "hello", env=env
        )
        [sent] = standin.requests  # the key went out (as x-api-key or a bearer token)
        assert KEY in sent.headers.values() or f"Bearer {KEY}" in sent.headers.values()
    assert done.returncode == ExitCode.FAILURE, done.stderr
    assert "HTTP 401: invalid x-api-key: [redacted] (key [redacted] is not valid)" in done.stderr
    [session] = [p.name for p in (home / "sessions").iterdir() if p.is_dir()]
    shown = run_cli("session", "show", session, "--profile", str(profile), "--json", env=env)
    records = [json.loads(line) for line in shown.stdout.splitlines()]
    [failed] = [r["data"] for r in records if r["type"] == "model/failed"]
    assert (
        failed["message"] == "HTTP 401: invalid x-api-key: [redacted] (key [redacted] is not valid)"
    )
    outputs = {"stdout": done.stdout, "stderr": done.stderr, "show": shown.stdout}
    assert places_holding(KEY, tmp_path, **outputs) == []
