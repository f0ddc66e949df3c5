"""A provider that echoes the API key in its 401 answer: the key reaches no output, no file.

Issue 33, point 8. The stand-in for the OpenAI API (standin.py) is the one mock this project
allows: a remote model API cannot run here. It answers 401 with a body quoting the key it was
sent, in full and as an ``Authorization`` header, as a misbehaving provider or proxy would.
Everything else is real: the CLI in a child process, the JSONL store on disk.
"""

from __future__ import annotations

import json
from pathlib import Path

from seamhost.cli.exitcodes import ExitCode
from tests.conftest import run_cli
from tests.leaks import places_holding
from tests.model_openai.standin import Reply, StandIn

KEY = "sk-live-7f3a9c2e51d04b8a96e1"


def echoing_401(key: str) -> Reply:
    body = {
        "error": {
            "message": f"Incorrect API key provided: {key}. Request had Authorization: Bearer "
            f"{key}; headers {{'Authorization': 'Bearer {key}'}}",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
        }
    }
    return Reply(401, (("Content-Type", "application/json"),), json.dumps(body).encode())


def test_a_401_echoing_the_key_leaves_it_nowhere(tmp_path: Path) -> None:
    home = tmp_path / "home"
    profile = tmp_path / "real.toml"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = {"SEAMHOST_HOME": str(home), "OPENAI_API_KEY": KEY}
    outputs: dict[str, str] = {}
    with StandIn() as standin:
        profile.write_text(
            '[profile]\nname = "real"\nextends = ["openai"]\n'
            f'[plugins.model-openai]\nbase_url = "{standin.base_url}"\n'
        )
        for as_json in ((), ("--json",)):
            standin.reply(echoing_401(KEY))
            done = run_cli(
                "exec", "--profile", str(profile), "--workspace", str(workspace), *as_json,
                "hello", env=env,
            )  # fmt: skip
            assert done.returncode == ExitCode.FAILURE, done.stderr
            assert "HTTP 401: Incorrect API key provided: [redacted]" in done.stderr
            assert "Authorization: Bearer [redacted]" in done.stderr
            outputs |= {f"exec{as_json} stdout": done.stdout, f"exec{as_json} stderr": done.stderr}
        assert [r.headers["authorization"] for r in standin.requests] == [f"Bearer {KEY}"] * 2
    for session in (p.name for p in (home / "sessions").iterdir() if p.is_dir()):
        for as_json in ((), ("--json",)):
            shown = run_cli(
                "session", "show", session, "--profile", str(profile), *as_json, env=env
            )
            assert shown.returncode == 0, shown.stderr
            outputs[f"show {session}{as_json}"] = shown.stdout + shown.stderr
    records = [json.loads(line) for line in shown.stdout.splitlines()]
    [failed] = [r["data"] for r in records if r["type"] == "model/failed"]
    assert failed["message"].startswith("HTTP 401: Incorrect API key provided: [redacted].")
    assert places_holding(KEY, tmp_path, **outputs) == []
