"""``seamhost a2a serve`` through real HTTP, driven by the a2a-sdk's own client.

Each test starts the server as a child process on a loopback port with a scenario for the
profile's scripted model, sends messages with the SDK's client (which reads the Agent Card
first), and reads the task's session back with ``seamhost session show --json``: the session
id is the task id.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from a2a.types import a2a_pb2 as a2a

from seamhost.testing.sites import PluginSite
from tests.a2a_serve.kit import Rig, card, client, events, last_text, message, states, task_id
from tests.served import of_type, well_formed

WRITE_THEN_READ = """
[scenario]
name = "notes"
description = "Write a note, read it back."

[[turn]]
user = "Take a note."
final = "Noted: the note says hello."

[[turn.step]]
text = "Writing the note."
[[turn.step.call]]
tool = "write_file"
args = { path = "notes.txt", content = "hello\\n" }

[[turn.step]]
text = "Reading it back."
[[turn.step.call]]
tool = "read_file"
args = { path = "notes.txt" }
"""

ASKS = """
[scenario]
name = "plan"
description = "A write the policy asks about."

[[turn]]
user = "Write the plan."
final = "The plan is written."

[[turn.step]]
text = "Writing the plan."
[[turn.step.call]]
tool = "write_file"
args = { path = "ask/plan.txt", content = "step one\\n", create_dirs = true }
"""

NAPS = """
[scenario]
name = "nap"
description = "A long call, to cancel."

[[turn]]
user = "Take a long nap."
final = "Rested."

[[turn.step]]
text = "Napping."
[[turn.step.call]]
tool = "nap"
args = { seconds = 60 }
"""


def test_a_task_completes_and_its_calls_are_in_a_durable_session(tmp_path: Path) -> None:
    rig = Rig(tmp_path, WRITE_THEN_READ)
    with rig.serve() as server:

        async def go() -> list[a2a.StreamResponse]:
            described = await card(server.url)
            assert described.name == "a2a-serve-test"
            assert described.description == "The agent another agent delegates to, in the tests."
            assert {s.id for s in described.skills} >= {"write_file", "read_file", "shell"}
            assert not described.security_schemes  # no token: no scheme
            assert described.supported_interfaces[0].url == server.url + "/"
            async with client(server.url) as made:
                return await events(made, message("Take a note."))

        received = asyncio.run(go())
    task = task_id(received)
    # The updates arrive in the log's order: each call taken, dispatched, its result; then done.
    assert states(received) == [
        "TASK_STATE_SUBMITTED",
        "TASK_STATE_WORKING",
        "TASK_STATE_WORKING",  # tool/call write_file
        "TASK_STATE_WORKING",  # tool/dispatch
        "artifact:call-1-1-1",
        "TASK_STATE_WORKING",  # tool/call read_file
        "TASK_STATE_WORKING",  # tool/dispatch
        "artifact:call-1-2-1",
        "TASK_STATE_COMPLETED",
    ]
    assert last_text(received) == "Noted: the note says hello."
    seqs = [
        int(e.status_update.metadata["seamhost/seq"])
        for e in received
        if e.HasField("status_update") and "seamhost/seq" in e.status_update.metadata
    ]
    assert seqs == sorted(seqs)
    assert len(seqs) == 4
    read = next(
        e.artifact_update.artifact
        for e in received
        if e.HasField("artifact_update") and e.artifact_update.artifact.name == "read_file"
    )
    assert "hello" in read.parts[0].text

    assert rig.session_ids() == [task]  # the session id is the task id
    records = rig.records(task)
    well_formed(records)
    (opened,) = of_type(records, "a2a/task")
    assert records[0]["type"] == "a2a/task"
    assert opened["task_id"] == task
    assert opened["context_id"] == received[0].task.context_id
    (user,) = of_type(records, "user/message")
    assert user == {"turn": 1, "step": 0, "content": "Take a note.", "source": "a2a"}
    assert [d["call_id"] for d in of_type(records, "tool/dispatch")] == ["call-1-1-1", "call-1-2-1"]
    assert [bool(d["is_error"]) for d in of_type(records, "tool/result")] == [False, False]
    assert of_type(records, "turn/end")[-1]["reason"] == "completed"
    assert (rig.workspace / "notes.txt").read_text() == "hello\n"


def test_a_deferred_approval_is_input_required_until_answered(tmp_path: Path) -> None:
    rig = Rig(tmp_path, ASKS)
    with rig.serve() as server:

        async def ask() -> list[a2a.StreamResponse]:
            async with client(server.url) as made:
                return await events(made, message("Write the plan."))

        first = asyncio.run(ask())
        task = task_id(first)
        assert states(first)[-1] == "TASK_STATE_INPUT_REQUIRED"
        waiting = last_text(first)
        records = rig.records(task)
        (deferred,) = of_type(records, "approval/deferred")
        approval = deferred["id"]
        assert approval in rig.cli("approvals", "--json").stdout  # the operator's listing
        assert f"seamhost approve {task} {approval}" in waiting, waiting
        assert not of_type(records, "tool/dispatch")
        assert not (rig.workspace / "ask" / "plan.txt").exists()

        async def follow_up() -> list[a2a.StreamResponse]:
            async with client(server.url) as made:
                return await events(made, message("Is it done?", task, first[0].task.context_id))

        # Unanswered: the follow-up continues nothing, writes nothing, and says why.
        again = asyncio.run(follow_up())
        assert states(again)[-1] == "TASK_STATE_INPUT_REQUIRED"
        assert "your message was not added" in last_text(again)
        assert len(rig.records(task)) == len(records)

        # The operator answers from another process, while the server runs.
        approved = rig.cli("approve", task, approval, "--as", "ops")
        assert approved.returncode == 0, approved.stderr
        done = asyncio.run(follow_up())
        assert states(done)[-1] == "TASK_STATE_COMPLETED"
        assert last_text(done) == "The plan is written."
    records = rig.records(task)
    well_formed(records)
    (decided,) = of_type(records, "approval/decided")
    assert decided["outcome"] == "allowed-once"
    assert decided["decider"] == "ops"
    assert len(of_type(records, "tool/dispatch")) == 1  # the call ran once
    (result,) = of_type(records, "tool/result")
    assert result["call_id"] == "call-1-1-1"
    assert not result["is_error"], result
    assert (rig.workspace / "ask" / "plan.txt").read_text() == "step one\n"


def test_cancel_takes_the_runs_cancel_path(tmp_path: Path, plugin_site: PluginSite) -> None:
    rig = Rig(tmp_path, NAPS, site=plugin_site)
    with rig.serve() as server:

        async def go() -> tuple[list[a2a.StreamResponse], a2a.Task]:
            async with client(server.url) as made:
                received: list[a2a.StreamResponse] = []
                stream = made.send_message(message("Take a long nap."))
                async for event in stream:
                    received.append(event)
                    meta = event.status_update.metadata
                    if "seamhost/record" in meta and meta["seamhost/record"] == "tool/dispatch":
                        break
                # The SDK types it an AsyncIterator; it is an async generator: close the stream.
                await stream.aclose()  # type: ignore[attr-defined]
                canceled = await made.cancel_task(a2a.CancelTaskRequest(id=task_id(received)))
                return received, canceled

        received, canceled = asyncio.run(go())
    assert canceled.status.state == a2a.TaskState.TASK_STATE_CANCELED
    task = task_id(received)
    records = rig.records(task)
    well_formed(records)
    assert of_type(records, "turn/end")[-1]["reason"] == "aborted"
    (result,) = of_type(records, "tool/result")
    assert len(of_type(records, "tool/dispatch")) == 1
    # The dispatch record streams out as it is appended, before the checkpoint that precedes the
    # body is written: a cancel that arrives during that write stops the call before its body
    # (seen under load, 2 runs in 24); one that arrives later is seen by the running body.
    if result["is_error"]:
        assert result["error"]["code"] == "ABORTED_BEFORE_DISPATCH", result
        assert "the tool did not run" in result["error"]["message"]
    else:
        assert result["value"]["woke"] == "cancelled"  # the body saw its cancellation, and ended


@pytest.mark.parametrize("given", [None, "wrong"])
def test_a_wrong_or_missing_token_is_401(tmp_path: Path, given: str | None) -> None:
    import httpx

    rig = Rig(tmp_path, WRITE_THEN_READ)
    with rig.serve("--token-env", "A2A_TOKEN", env={"A2A_TOKEN": "s3cret"}) as server:
        card = httpx.get(f"{server.url}/.well-known/agent-card.json", timeout=30).json()
        assert card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] == "Bearer"
        headers = {"Authorization": f"Bearer {given}"} if given else {}
        refused = httpx.post(
            server.url + "/",
            json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}},
            headers={**headers, "A2A-Version": "1.0"},
            timeout=30,
        )
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == -32600

        async def with_token(token: str) -> list[a2a.StreamResponse]:
            async with client(server.url, token) as made:
                return await events(made, message("Take a note."))

        assert states(asyncio.run(with_token("s3cret")))[-1] == "TASK_STATE_COMPLETED"
    assert "a missing or wrong bearer token" in server.stderr
    assert len(rig.session_ids()) == 1  # only the task with the right token


def test_malformed_and_oversized_requests_get_json_rpc_errors(tmp_path: Path) -> None:
    import httpx

    rig = Rig(tmp_path, WRITE_THEN_READ)
    headers = {"Content-Type": "application/json", "A2A-Version": "1.0"}
    with rig.serve() as server:
        url = server.url + "/"

        def post(body: bytes) -> httpx.Response:
            return httpx.post(url, content=body, headers=headers, timeout=30)

        not_json = post(b"{not json")
        assert not_json.json()["error"]["code"] == -32700
        not_a_request = post(b'["a", "list"]')
        assert not_a_request.json()["error"]["code"] == -32600
        unknown = post(b'{"jsonrpc": "2.0", "id": 7, "method": "Nope", "params": {}}')
        assert unknown.json() == {
            "jsonrpc": "2.0",
            "id": 7,
            "error": unknown.json()["error"],
        }
        assert unknown.json()["error"]["code"] == -32601
        bad_params = post(
            b'{"jsonrpc": "2.0", "id": 8, "method": "SendMessage", '
            b'"params": {"message": {"parts": 3}}}'
        )
        assert bad_params.json()["error"]["code"] == -32602
        text = "x" * (6 << 20)
        big = (
            '{"jsonrpc": "2.0", "id": 9, "method": "SendMessage", "params": {"message": '
            '{"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "' + text + '"}]}}}'
        ).encode()
        oversized = post(big)
        assert oversized.status_code == 413
        assert oversized.json()["error"]["code"] == -32600
    assert rig.session_ids() == []  # the store was never touched
    assert "Traceback" not in server.stderr


def test_a_task_past_the_session_cap_is_rejected_unrecorded(
    tmp_path: Path, plugin_site: PluginSite
) -> None:
    rig = Rig(tmp_path, NAPS, site=plugin_site)
    with rig.serve("--max-sessions", "1") as server:

        async def go() -> tuple[str, list[a2a.StreamResponse]]:
            async with client(server.url) as made:
                received: list[a2a.StreamResponse] = []
                stream = made.send_message(message("Take a long nap."))
                async for event in stream:
                    received.append(event)
                    meta = event.status_update.metadata
                    if "seamhost/record" in meta and meta["seamhost/record"] == "tool/dispatch":
                        break
                # The SDK types it an AsyncIterator; it is an async generator: close the stream.
                await stream.aclose()  # type: ignore[attr-defined]
                second = await events(made, message("Another nap."))
                await made.cancel_task(a2a.CancelTaskRequest(id=task_id(received)))
                return task_id(received), second

        first, second = asyncio.run(go())
    assert states(second)[-1] == "TASK_STATE_REJECTED"
    assert "runs 1 tasks already" in last_text(second)
    assert rig.session_ids() == [first]  # the rejected task wrote nothing


@pytest.mark.slow  # a corner of cancellation; the cancel path itself runs in the default suite
def test_cancelling_a_parked_task_leaves_its_question_open(tmp_path: Path) -> None:
    rig = Rig(tmp_path, ASKS)
    with rig.serve() as server:

        async def go() -> tuple[str, a2a.Task]:
            async with client(server.url) as made:
                parked = await events(made, message("Write the plan."))
                assert states(parked)[-1] == "TASK_STATE_INPUT_REQUIRED"
                task = task_id(parked)
                return task, await made.cancel_task(a2a.CancelTaskRequest(id=task))

        task, canceled = asyncio.run(go())
    assert canceled.status.state == a2a.TaskState.TASK_STATE_CANCELED
    records = rig.records(task)
    well_formed(records)  # parked: open, not unfinished
    (deferred,) = of_type(records, "approval/deferred")
    assert deferred["id"] in rig.cli("approvals", "--json").stdout  # still for the operator
    assert not of_type(records, "tool/dispatch")
