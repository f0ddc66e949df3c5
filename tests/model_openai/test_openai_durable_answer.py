"""Issue 38 point 4: a model answer is durable before any of its calls is governed.

Against the OpenAI API stand-in (the one mock this project allows); the CLI runs in child
processes on a real store, JSONL or PostgreSQL, whose write-behind window is a minute, so that
only a barrier makes a record durable. The model proposes a write the profile's policy asks a person
about; the person is asked on a pseudo-terminal (``tty_path``), and the test SIGKILLs the child
once the question is on it: after the provider's terminal event, before the call is dispatched.
``run --resume`` must then run the recorded call without asking the model again for it.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
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
from tests.model_openai.standin import StandIn
from tests.persistence_postgres.conftest import pg_schema, postgres_dsn, postgres_server

__all__ = ["pg_schema", "postgres_dsn", "postgres_server"]  # the PostgreSQL store's fixtures

QUESTION_END = b"release/VERSION"  # the question names the file; its last byte is a space


class Terminal:
    """A pseudo-terminal the tty answerer asks on; the test reads and types on its other side."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        self.path = os.ttyname(self.slave)
        self.seen = b""

    def wait_for_question(self, child: subprocess.Popen[bytes], timeout: float = 60) -> None:
        """Return once the question has been written whole (it ends with a space after the
        file's name), failing if the child exits first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                self.seen += os.read(self.master, 4096)
                if QUESTION_END in self.seen and self.seen.endswith(b" "):
                    return
            if child.poll() is not None:
                pytest.fail(f"the child exited ({child.returncode}) before asking: {self.seen!r}")
        pytest.fail(f"no question within {timeout} s: {self.seen!r}")

    def close(self) -> None:
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    opened = Terminal()
    yield opened
    opened.close()


@pytest.fixture
def standin() -> Iterator[StandIn]:
    with StandIn() as server:
        yield server


def store_table(store: str, request: pytest.FixtureRequest) -> str:
    """The profile table of `store`, its write-behind window a minute: nothing is written but at
    a barrier. PostgreSQL: the test's own schema, and a short lease for the resume to take over."""
    if store == "jsonl":
        return "[plugins.persistence-jsonl]\nbatch_window_ms = 60000\n"
    dsn, schema = request.getfixturevalue("postgres_dsn"), request.getfixturevalue("pg_schema")
    return (
        f'[plugins.persistence-postgres]\ndsn = "{dsn}"\nschema = "{schema}"\n'
        "batch_window_ms = 60000\nlease_s = 1\n"
    )


def profile_text(base_url: str, tty_path: str, store: str) -> str:
    return f"""
[profile]
name = "durable-answer"

{store}

[plugins.checkpoint-policy]

[plugins.tools]

[plugins.model-openai]
base_url = "{base_url}"
model = "gpt-4o-mini"
api_key = {{ "$env" = "OPENAI_API_KEY" }}
max_attempts = 1

[plugins.tool-policy]
default = "allow"

[[plugins.tool-policy.rules]]
tool = "write_file"
path = "release/**"
decision = "ask"
reason = "a person approves each release write"

[plugins.user-approval]
policy = "ask"
answerers = ["tty"]
tty_path = "{tty_path}"

[sandbox]
mode = "workspace-write"
"""


@pytest.mark.parametrize("store", ["jsonl", "postgres"])
def test_a_kill_after_the_answer_resumes_without_asking_the_model_again(
    tmp_path: Path, standin: StandIn, terminal: Terminal, store: str, request: pytest.FixtureRequest
) -> None:
    arguments = json.dumps({"path": "release/VERSION", "content": "2\n"})
    standin.reply(
        canned_reply(CannedAnswer("Bumping.", (CannedCall("call_v1", "write_file", arguments),))),
        canned_reply(CannedAnswer("Done.")),
    )
    workspace = tmp_path / "ws"
    (workspace / "release").mkdir(parents=True)
    profile = tmp_path / "durable.toml"
    profile.write_text(profile_text(standin.base_url, terminal.path, store_table(store, request)))
    env = {"SEAMHOST_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "sk-test-durable"}
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")} | env

    child = subprocess.Popen(
        [sys.executable, "-m", "seamhost", "exec", "--profile", str(profile),
         "--workspace", str(workspace), "bump the version"],
        env=child_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        terminal.wait_for_question(child)
        child.send_signal(signal.SIGKILL)  # the answer is in; its call is being asked about
    finally:
        child.wait(timeout=30)
    assert len(standin.requests) == 1

    def records(session: str) -> list[dict[str, Any]]:
        shown = run_cli("session", "show", "--json", session, "--profile", str(profile), env=env)
        assert shown.returncode == 0, shown.stderr
        return [json.loads(line) for line in shown.stdout.splitlines()]

    listed = run_cli("session", "ls", "--json", "--profile", str(profile), env=env)
    [entry] = json.loads(listed.stdout)
    session = str(entry["session_id"])
    before = records(session)
    answers = [r["data"] for r in before if r["type"] == "assistant/message"]
    assert len(answers) == 1, "the answer was lost: it was not durable before the question"
    assert [c["call_id"] for c in answers[0]["tool_calls"]] == ["call_v1"]
    assert not (workspace / "release" / "VERSION").exists()

    resumed = subprocess.Popen(
        [sys.executable, "-m", "seamhost", "run", "--profile", str(profile), "--resume", session],
        env=child_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        terminal.seen = b""
        terminal.wait_for_question(resumed)
        os.write(terminal.master, b"y")
        out, err = resumed.communicate(timeout=60)
    finally:
        if resumed.poll() is None:
            resumed.kill()
            resumed.wait()
    assert resumed.returncode == 0, out.decode() + err.decode()

    after = records(session)
    attempts = [r["data"] for r in after if r["type"] == "model/attempt"]
    assert [(a["step"], a["attempt"]) for a in attempts] == [(1, 1), (2, 1)], (
        "step 1's request was not issued again: only step 2's, with the call's result"
    )
    assert len(standin.requests) == 2
    sent = standin.requests[1].body["messages"]
    assert any(m.get("role") == "tool" and m.get("tool_call_id") == "call_v1" for m in sent)
    dispatched = [r for r in after if r["type"] == "tool/dispatch"]
    assert [r["data"]["call_id"] for r in dispatched] == ["call_v1"], "the call ran once"
    assert (workspace / "release" / "VERSION").read_text() == "2\n"
    assert [r["data"]["content"] for r in after if r["type"] == "assistant/message"] == [
        "Bumping.",
        "Done.",
    ]
