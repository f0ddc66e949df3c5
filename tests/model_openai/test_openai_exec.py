"""End to end: `seamhost exec` and `seamhost chat` with model-openai against the API stand-in.

The stand-in is the one mock this project allows: a remote model API cannot run here. Everything
else is real: the CLI in a child process, the built-in tools, the sandbox and the JSONL store.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from seamhost.testing.model_adapter import CannedAnswer, CannedCall
from tests.conftest import run_cli
from tests.model_openai.canned import canned_reply
from tests.model_openai.standin import Reply, StandIn


@pytest.fixture
def standin() -> Iterator[StandIn]:
    with StandIn() as server:
        yield server


class Rig:
    def __init__(self, root: Path, standin: StandIn) -> None:
        self.root, self.standin = root, standin
        self.workspace = root / "ws"
        self.workspace.mkdir()
        self.profile = root / "real.toml"
        self.profile.write_text(
            '[profile]\nname = "real"\nextends = ["openai"]\n'
            f'[plugins.model-openai]\nbase_url = "{standin.base_url}"\nmax_attempts = 3\n'
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
        self.env = env | {"SEAMHOST_HOME": str(root / "home"), "OPENAI_API_KEY": "sk-test-e2e"}

    def cli(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        env = {"SEAMHOST_HOME": self.env["SEAMHOST_HOME"], "OPENAI_API_KEY": "sk-test-e2e"}
        return run_cli(*args, env=env, input=stdin)

    def records(self, session_id: str) -> list[dict[str, Any]]:
        shown = self.cli("session", "show", "--json", session_id)
        assert shown.returncode == 0, shown.stderr
        return [json.loads(line) for line in shown.stdout.splitlines()]

    def only_session(self) -> str:
        listed = self.cli("session", "ls", "--json")
        [entry] = json.loads(listed.stdout)
        return str(entry["session_id"])


@pytest.fixture
def rig(tmp_path: Path, standin: StandIn) -> Rig:
    return Rig(tmp_path, standin)


def write_call(path: str, content: str) -> Reply:
    arguments = json.dumps({"path": path, "content": content})
    return canned_reply(
        CannedAnswer("Writing it.", (CannedCall("call_w1", "write_file", arguments),))
    )


def test_exec_retries_a_rate_limit_runs_the_tool_and_answers(rig: Rig) -> None:
    rate_limited = Reply.transcript("rate_limited.json")
    rig.standin.reply(
        rate_limited, write_call("note.txt", "hello\n"), canned_reply(CannedAnswer("Done."))
    )
    done = run_cli(
        "exec", "--profile", str(rig.profile), "--workspace", str(rig.workspace), "--json",
        "write a note", env={k: rig.env[k] for k in ("SEAMHOST_HOME", "OPENAI_API_KEY")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    final = json.loads(done.stdout.splitlines()[-1])
    assert final["final"] == "Done."
    assert (rig.workspace / "note.txt").read_text() == "hello\n"
    records = rig.records(final["session"])
    kinds = [r["type"] for r in records if r["type"].startswith("model/")]
    assert kinds == [
        "model/attempt", "model/failed", "model/attempt", "model/usage",
        "model/attempt", "model/usage",
    ]  # fmt: skip
    failed = next(r["data"] for r in records if r["type"] == "model/failed")
    assert (failed["code"], failed["retryable"]) == ("rate-limited", True)
    assert len(rig.standin.requests) == 3, "one HTTP request per attempt: no hidden retries"
    # The tool result goes back to the model under the model's own call id.
    last = rig.standin.requests[-1].body["messages"]
    assert any(m.get("role") == "tool" and m.get("tool_call_id") == "call_w1" for m in last)
    # The session header names the model that answered, never its key.
    from seamhost.cli.session_store import jsonl_store

    store = jsonl_store(rig.root / "home" / "sessions")
    model = store.read(final["session"]).header.bundle["model"]
    assert model["model"] == "gpt-4o-mini"
    assert model["base_url"] == rig.standin.base_url
    assert "sk-test-e2e" not in json.dumps(dict(model))


def kill_during_the_stream(rig: Rig, *args: str, nth: int = 1) -> str:
    """`exec` killed while its `nth` request's stream is open (a slow reply); the session's id."""
    child = subprocess.Popen(
        [sys.executable, "-m", "seamhost", "exec", "--profile", str(rig.profile),
         "--workspace", str(rig.workspace), *args, "start"],
        env=rig.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if len(rig.standin.requests) >= nth:
                break
            time.sleep(0.05)
        assert len(rig.standin.requests) >= nth, "the request never left"
        time.sleep(0.3)  # the stream is open: the first event is 5 s away
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    return rig.only_session()


def test_a_kill_during_an_open_stream_is_continued_by_chat_resume(rig: Rig) -> None:
    # Issue 32: the open attempt is closed `interrupted` and the same step's request is issued
    # again as attempt 2, in the same turn; then the person's next line is turn 2.
    slow = canned_reply(CannedAnswer("This answer is never finished."))
    rig.standin.reply(
        Reply.sse(slow.body, delay_s=5.0),
        canned_reply(CannedAnswer("Back.")),
        canned_reply(CannedAnswer("Again.")),
    )
    session = kill_during_the_stream(rig)
    before = rig.records(session)
    assert before[-1]["type"] == "model/attempt", "the attempt was durable before the request left"
    chat = rig.cli(
        "chat", "--profile", str(rig.profile), "--resume", session, stdin="again\n/exit\n"
    )
    assert chat.returncode == 0, chat.stderr
    records = rig.records(session)
    closed = [r["data"] for r in records if r["type"] == "model/failed"]
    assert [(c["attempt"], c["code"]) for c in closed] == [(1, "interrupted")]
    attempts = [r["data"] for r in records if r["type"] == "model/attempt"]
    assert [(a["turn"], a["step"], a["attempt"]) for a in attempts] == [
        (1, 1, 1), (1, 1, 2), (2, 1, 1),
    ]  # fmt: skip
    messages = [r["data"]["content"] for r in records if r["type"] == "assistant/message"]
    assert messages == ["Back.", "Again."], "no partial message from the killed stream"
    ends = [r["data"]["reason"] for r in records if r["type"] == "turn/end"]
    assert ends == ["completed", "completed"]
    [takeover] = [r["data"] for r in records if r["type"] == "session/takeover"]
    assert (takeover["turn"], takeover["step"]) == (1, 1)
    verified = rig.cli("session", "verify", session)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_exec_stops_at_the_token_budget_given_on_the_command_line(rig: Rig) -> None:
    rig.standin.reply(write_call("note.txt", "hi\n"), canned_reply(CannedAnswer("never sent")))
    done = run_cli(
        "exec", "--profile", str(rig.profile), "--workspace", str(rig.workspace), "--json",
        "--limit", "max_output_tokens=4", "write a note",
        env={k: rig.env[k] for k in ("SEAMHOST_HOME", "OPENAI_API_KEY")},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    final = json.loads(done.stdout.splitlines()[-1])
    records = rig.records(final["session"])
    [end] = [r["data"] for r in records if r["type"] == "turn/end"]
    assert end["message"].startswith("BUDGET_EXCEEDED"), end
    assert len(rig.standin.requests) == 1, "the second request never left"
    assert (rig.workspace / "note.txt").read_text() == "hi\n"
