"""Two calls under one id in a model response: neither runs (issue 33, point 7).

The OpenAI stand-in is the one mock this project allows (a remote model API cannot run here);
everything else is real: ``seamhost exec`` in a child process, the built-in tools, the sandbox
and the JSONL store. Today's runtime ran both calls under one idempotency key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from seamhost.testing.model_adapter import CannedAnswer, CannedCall
from tests.conftest import run_cli
from tests.model_openai.canned import canned_reply
from tests.model_openai.standin import StandIn


def write(call_id: str, path: str) -> CannedCall:
    return CannedCall(call_id, "write_file", json.dumps({"path": path, "content": "x\n"}))


def test_a_response_with_one_id_twice_runs_nothing_and_the_model_is_told_once(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with StandIn() as standin:
        profile = tmp_path / "real.toml"
        profile.write_text(
            '[profile]\nname = "real"\nextends = ["openai"]\n'
            f'[plugins.model-openai]\nbase_url = "{standin.base_url}"\nmax_attempts = 3\n'
        )
        duplicated = CannedAnswer("Two.", (write("call_dup", "a.txt"), write("call_dup", "b.txt")))
        standin.reply(canned_reply(duplicated), canned_reply(CannedAnswer("Done.")))
        env = {"SEAMHOST_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "sk-test-dup"}
        done = run_cli(
            "exec", "--profile", str(profile), "--workspace", str(workspace), "--json", "go",
            env=env,
        )  # fmt: skip
        requests = [r.body for r in standin.requests]
    assert done.returncode == 0, done.stderr
    final = json.loads(done.stdout.splitlines()[-1])
    assert final["final"] == "Done."
    assert not (workspace / "a.txt").exists()
    assert not (workspace / "b.txt").exists()
    shown = run_cli("session", "show", "--json", final["session"], env=env)
    records: list[dict[str, Any]] = [json.loads(line) for line in shown.stdout.splitlines()]
    kinds = [r["type"] for r in records]
    assert not any(k.startswith("tool/") for k in kinds), "nothing of the response ran"
    [failed] = [r["data"] for r in records if r["type"] == "model/failed"]
    assert (failed["code"], failed["retryable"]) == ("duplicate-call-id", True)
    assert "'call_dup'" in failed["message"]
    assert [r["data"]["content"] for r in records if r["type"] == "assistant/message"] == ["Done."]
    assert len(requests) == 2
    told = [m for m in requests[1]["messages"] if "'call_dup'" in str(m.get("content"))]
    assert len(told) == 1, requests[1]["messages"]
    assert "distinct id" in str(told[0]["content"])
    assert not any("'call_dup'" in str(m.get("content")) for m in requests[0]["messages"])
