"""Issue 39's acceptance end to end: one seamhost delegating to another over A2A.

The serving side is a real ``seamhost a2a serve`` child (:class:`tests.a2a_serve.kit.Rig`, its
scripted model running a scenario whose turn makes tool calls, a bearer token from
``--token-env``). The calling side is a second seamhost, a real ``seamhost run`` child, whose
profile mounts the server through ``plugins/tools-a2a`` (``[plugins.tools-a2a.agents.notes]``,
``url`` and ``token = { "$env" = ... }``) and whose scripted model calls ``a2a__notes``. Both
logs are read back with ``seamhost session show --json``: the caller's holds the delegation's
dispatch record and the remote task id, the server's store holds the session whose id is that
task id, with the tool call it ran.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.a2a_serve.kit import Rig
from tests.conftest import run_cli
from tests.served import of_type, well_formed

TOKEN = {"NOTES_TOKEN": "loop-token-3f9a"}

SERVED = """
[[turn]]
user = "Take a note."
final = "Noted."

[[turn.step]]
text = "Writing the note."
[[turn.step.call]]
tool = "write_file"
args = { path = "NOTE", content = "- ship the A2A loop\\n", create_dirs = true }
"""

CALLER = """
[profile]
name = "delegator"
extends = ["default"]

[plugins.tools-a2a.agents.notes]
url = "URL"
token = { "$env" = "NOTES_TOKEN" }
"""

CALLING = """
[[turn]]
user = "Ask the notes agent to take a note."
final = "Delegated."

[[turn.step]]
[[turn.step.call]]
id = "d1"
tool = "a2a__notes"
args = { message = "Take a note." }
"""


class Caller:
    """The delegating seamhost: its profile, scenario, workspace and store home."""

    def __init__(self, root: Path, url: str) -> None:
        root.mkdir()
        self.profile = root / "caller.toml"
        self.profile.write_text(CALLER.replace("URL", url))
        self.scenario = root / "calling.toml"
        self.scenario.write_text(CALLING)
        self.workspace = root / "workspace"
        self.workspace.mkdir()
        self.env = {"SEAMHOST_HOME": str(root / "home"), **TOKEN}

    def run(self) -> tuple[str, list[dict[str, Any]]]:
        """``seamhost run`` the scenario; its session id and its log."""
        ran = run_cli(
            "run",
            str(self.scenario),
            "--profile",
            str(self.profile),
            "--workspace",
            str(self.workspace),
            "--json",
            env=self.env,
            timeout=180,
        )
        assert ran.returncode == 0, ran.stdout + ran.stderr
        session = json.loads(ran.stdout.splitlines()[-1])["session"]
        shown = run_cli(
            "session", "show", session, "--json", "--profile", str(self.profile), env=self.env
        )
        assert shown.returncode == 0, shown.stderr
        return session, [json.loads(line) for line in shown.stdout.splitlines()]


def delegation(
    records: list[dict[str, Any]],
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The caller's one ``a2a__notes`` call: its call, dispatch and result records."""
    (call,) = of_type(records, "tool/call")
    (dispatch,) = of_type(records, "tool/dispatch")
    (result,) = of_type(records, "tool/result")
    return call, dispatch, result


def test_a_seamhost_delegates_a_task_to_a_seamhost(tmp_path: Path) -> None:
    (tmp_path / "serving").mkdir()
    rig = Rig(tmp_path / "serving", SERVED.replace("NOTE", "notes/today.md"))
    with rig.serve("--token-env", "NOTES_TOKEN", env=TOKEN) as server:
        _, records = Caller(tmp_path / "calling", server.url).run()

    # The caller's log: the delegation was governed, dispatched (recorded before the message
    # left) and its result names the remote task.
    well_formed(records)
    call, dispatch, result = delegation(records)
    assert call["name"] == "a2a__notes"
    assert dispatch["call_id"] == result["call_id"] == call["call_id"] == "d1"
    assert (dispatch["effect"], dispatch["idempotent"]) == ("write", False)
    kinds = [r["type"] for r in records]
    assert kinds.index("tool/call") < kinds.index("tool/dispatch") < kinds.index("tool/result")
    assert result["is_error"] is False, result["content"]
    assert result["meta"]["decisions"][0]["stage"] == "policy"
    assert result["meta"]["a2a_agent"] == "notes"
    remote = result["meta"]["a2a_task_id"]
    assert result["value"]["task_id"] == remote
    assert result["value"]["state"] == "completed"
    assert [a["name"] for a in result["value"]["artifacts"]] == ["write_file"]
    assert TOKEN["NOTES_TOKEN"] not in json.dumps(records)  # the secret is not recorded

    # The server's store: the durable session whose id is that task id, holding the caller's
    # message as its user message and the tool call it ran.
    assert rig.session_ids() == [remote]
    served = rig.records(remote)
    well_formed(served)
    assert of_type(served, "a2a/task")[0]["task_id"] == remote
    assert of_type(served, "user/message")[0]["content"] == "Take a note."
    (write,) = of_type(served, "tool/call")
    assert write["name"] == "write_file"
    assert [d["call_id"] for d in of_type(served, "tool/dispatch")] == [write["call_id"]]
    (wrote,) = of_type(served, "tool/result")
    assert wrote["is_error"] is False
    assert of_type(served, "turn/end")[-1]["reason"] == "completed"
    assert (rig.workspace / "notes" / "today.md").read_text() == "- ship the A2A loop\n"


def test_a_parked_remote_task_is_input_required_for_the_caller(tmp_path: Path) -> None:
    """The server's policy asks a person about ``ask/**`` and defers the question: its task
    parks ``input-required``. The caller's call ends as a result that says so, naming the remote
    task and its question; it neither claims the work done nor answers the approval, and the
    remote write has not happened. The approval stays open on the server for its operator."""
    (tmp_path / "serving").mkdir()
    rig = Rig(tmp_path / "serving", SERVED.replace("NOTE", "ask/today.md"))
    with rig.serve("--token-env", "NOTES_TOKEN", env=TOKEN) as server:
        _, records = Caller(tmp_path / "calling", server.url).run()
        waiting = rig.cli("approvals", "--json")

    well_formed(records)
    _, dispatch, result = delegation(records)
    assert dispatch["call_id"] == "d1"
    remote = result["meta"]["a2a_task_id"]
    assert result["value"]["state"] == "input-required"
    assert result["is_error"] is False
    content = result["content"]
    assert remote in content
    assert "input-required" in content
    assert "awaits approval" in content  # the server's question, passed on
    assert "This delegation does not answer it" in content
    assert "calling it again starts a new task" in content  # so the model does not ask twice
    assert of_type(records, "turn/end")[-1]["reason"] == "completed"

    # The server: the task's session is parked on the deferred approval; nothing was written.
    assert rig.session_ids() == [remote]
    served = rig.records(remote)
    well_formed(served, closed=False)
    (asked,) = of_type(served, "approval/asked")
    assert asked["call_id"] == of_type(served, "tool/call")[0]["call_id"]
    assert of_type(served, "tool/dispatch") == []
    assert not (rig.workspace / "ask").exists()
    assert waiting.returncode == 0, waiting.stderr
    (open_question,) = json.loads(waiting.stdout)
    assert (open_question["session_id"], open_question["approval_id"]) == (remote, asked["id"])
    assert open_question["decision"] is None
    assert asked["id"] in content  # the caller was told which question its task waits on
