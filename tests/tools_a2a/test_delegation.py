"""Delegating to a real A2A agent through the governed pipeline, over loopback HTTP.

The agent is the SDK's own server (:mod:`tests.tools_a2a.agent_server`) in a child process; the
plugin is its client; calls are made by a scripted model in a real session.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from tests.conftest import run_cli
from tests.tools_a2a.conftest import TOKEN, RemoteAgent, agent_table, profile
from tests.tools_mcp.conftest import Area, one_call, records_of, run_turn


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ECHO_TOKEN", TOKEN)


def bundle_of(path: Path):  # type: ignore[no-untyped-def]
    return build_bundle(resolve_profile(str(path)))


def test_a_delegated_task_completes_with_its_dispatch_record_and_task_id(
    root: Path, shared: RemoteAgent
) -> None:
    scenario = one_call("a2a__echo", {"message": "hello there"})
    run = run_turn(profile(root, agent_table(shared.url), scenario), Area(root))
    assert run.codes == {"c1": "ok"}, run.contents
    assert run.contents["c1"] == "echo: hello there"
    value = run.values["c1"]
    assert value["state"] == "completed"
    assert value["artifacts"] == [{"name": "echo", "parts": [{"text": "echo: hello there"}]}]
    task_id = value["task_id"]
    assert task_id
    assert run.metas["c1"]["a2a_task_id"] == task_id
    assert run.metas["c1"]["a2a_agent"] == "echo"
    kinds = [kind for kind, _ in records_of(run.session)]
    assert kinds.index("tool/call") < kinds.index("tool/dispatch") < kinds.index("tool/result")
    [dispatch] = [data for kind, data in records_of(run.session) if kind == "tool/dispatch"]
    # A remote agent may have side effects: declared so, and recorded so before it ran.
    assert dispatch["effect"] == "write"
    assert dispatch["idempotent"] is False
    origin = run.bundle.tools["a2a__echo"].spec.origin
    assert origin is not None
    assert origin["card"]["name"] == "Echo agent"
    assert TOKEN not in json.dumps(run.session.header.bundle)  # the secret is not recorded


def test_the_token_goes_as_a_bearer_and_a_wrong_one_is_refused(
    root: Path, shared: RemoteAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ECHO_TOKEN", "not-the-token")
    scenario = one_call("a2a__echo", {"message": "hi"})
    run = run_turn(profile(root, agent_table(shared.url), scenario), Area(root))
    assert run.codes == {"c1": "TOOL_ERROR"}
    assert 'A2A agent "echo"' in run.contents["c1"]
    assert "401" in run.contents["c1"]
    assert "Traceback" not in run.contents["c1"]


def test_data_goes_with_the_message(root: Path, shared: RemoteAgent) -> None:
    scenario = (
        '[[turn]]\nuser = "go"\nfinal = "done"\n[[turn.step]]\n[[turn.step.call]]\n'
        'id = "c1"\ntool = "a2a__echo"\nargs = { message = "m", data = { city = "Oslo" } }\n'
    )
    run = run_turn(profile(root, agent_table(shared.url), scenario), Area(root))
    assert run.codes == {"c1": "ok"}, run.contents
    parts = run.values["c1"]["artifacts"][0]["parts"]
    assert {"data": {"city": "Oslo"}} in parts


def test_input_required_is_a_result_that_says_so(root: Path, shared: RemoteAgent) -> None:
    scenario = one_call("a2a__echo", {"message": "need input"})
    run = run_turn(profile(root, agent_table(shared.url), scenario), Area(root))
    assert run.codes == {"c1": "ok"}, run.contents
    assert run.values["c1"]["state"] == "input-required"
    assert "input-required: which city?" in run.contents["c1"]
    assert run.values["c1"]["task_id"] in run.contents["c1"]


def test_a_changed_card_refuses_the_call_naming_what_changed(
    root: Path, remote: RemoteAgent
) -> None:
    scenario = one_call("a2a__echo", {"message": "hi"})
    bundle = bundle_of(profile(root, agent_table(remote.url), scenario))
    remote.start(card="v2")  # the same agent, now another version with another skill
    run = run_turn(bundle, Area(root))
    assert run.codes == {"c1": "TOOL_CHANGED"}
    content = run.contents["c1"]
    assert "version ('1.0.0' -> '2.0.0')" in content
    assert "skill 'echo' removed" in content
    assert "skill 'shout' added" in content
    assert "nothing was sent" in content
    assert not (root / "agent-state" / "tasks.json").exists()  # no task reached the agent


def test_a_pin_that_is_not_the_card_refuses_every_call(root: Path, shared: RemoteAgent) -> None:
    table = agent_table(shared.url, f'pin = "sha256:{"0" * 64}"\n')
    scenario = one_call("a2a__echo", {"message": "pinned out"})
    run = run_turn(profile(root, table, scenario), Area(root))
    assert run.codes == {"c1": "TOOL_CHANGED"}
    assert f"pins Agent Card sha256:{'0' * 64}" in run.contents["c1"]
    tasks = Path(shared.root / "agent-state" / "tasks.json")
    assert not tasks.exists() or "pinned out" not in tasks.read_text()  # nothing was sent


def test_the_pin_of_the_card_served_is_accepted(root: Path, shared: RemoteAgent) -> None:
    bundle = bundle_of(profile(root, agent_table(shared.url)))
    pin = bundle.tools["a2a__echo"].spec.origin["descriptor_digest"]
    table = agent_table(shared.url, f'pin = "{pin}"\n')
    run = run_turn(profile(root, table, one_call("a2a__echo", {"message": "hi"})), Area(root))
    assert run.codes == {"c1": "ok"}, run.contents


def test_a_card_that_is_not_a2a_is_refused_at_mount(root: Path, remote: RemoteAgent) -> None:
    remote.start(card="invalid")
    done = run_cli("profile", "check", str(profile(root, agent_table(remote.url))))
    assert done.returncode != 0
    assert 'A2A agent "echo"' in done.stderr, done.stderr
    assert "not valid A2A" in done.stderr
    assert "name" in done.stderr
    assert "supported_interfaces" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unreachable_agent_at_mount_is_a_clear_error(root: Path) -> None:
    done = run_cli("profile", "check", str(profile(root, agent_table("http://127.0.0.1:9"))))
    assert done.returncode != 0
    assert 'A2A agent "echo": unreachable at http://127.0.0.1:9/' in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_an_unreachable_agent_at_call_is_a_tool_error_not_sent(
    root: Path, remote: RemoteAgent
) -> None:
    bundle = bundle_of(
        profile(root, agent_table(remote.url), one_call("a2a__echo", {"message": "hi"}))
    )
    remote.stop()
    run = run_turn(bundle, Area(root))
    assert run.codes == {"c1": "TOOL_ERROR"}
    assert 'not sent: A2A agent "echo": unreachable at' in run.contents["c1"]


def test_a_bad_agent_table_is_exit_2_naming_the_key(root: Path) -> None:
    table = '[plugins.tools-a2a.agents.echo]\nurl = "http://127.0.0.1:9"\ntimeout = 3\n'
    done = run_cli("profile", "check", str(profile(root, table)))
    assert done.returncode == 2, done.stderr
    assert "plugins.tools-a2a" in done.stderr
    assert "timeout" in done.stderr
    no_url = "[plugins.tools-a2a.agents.echo]\ntimeout_s = 3\n"
    done = run_cli("profile", "check", str(profile(root, no_url)))
    assert done.returncode == 2, done.stderr
    assert "url" in done.stderr


@pytest.mark.slow  # the changed card on resume; a changed card per call runs by default
def test_a_session_resumed_against_another_card_is_refused_until_re_pinned(
    root: Path, remote: RemoteAgent
) -> None:
    first = run_turn(
        profile(root, agent_table(remote.url), one_call("a2a__echo", {"message": "first"})),
        Area(root),
    )
    assert first.codes == {"c1": "ok"}, first.contents
    remote.start(card="v2")
    again = one_call("a2a__echo", {"message": "second"}, call_id="c2")
    resumed = run_turn(
        profile(root, agent_table(remote.url), again), Area(root), resume=first.session.id
    )
    assert resumed.codes["c2"] == "TOOL_CHANGED", resumed.contents
    assert "this session was written with Agent Card" in resumed.contents["c2"]
    assert "second" not in (root / "agent-state" / "tasks.json").read_text()
    origin = resumed.bundle.tools["a2a__echo"].spec.origin
    assert origin is not None
    new = origin["descriptor_digest"]
    pinned = agent_table(remote.url, f'pin = "{new}"\n')
    accepted = run_turn(profile(root, pinned, again), Area(root), resume=first.session.id)
    assert accepted.codes["c2"] == "ok", accepted.contents


def test_a_cancelled_turn_cancels_the_remote_task(root: Path, shared: RemoteAgent) -> None:
    async def cancel_once_dispatched(agent: Agent) -> None:
        # The message is with the agent and its task working: what the remote's store says, not
        # a guess at how long that takes (a fixed wait was a race on a loaded machine).
        deadline = time.monotonic() + 30
        while not shared.working():
            assert time.monotonic() < deadline, "the agent never started working on the task"
            await asyncio.sleep(0.05)
        # The agent stores `working` after it sent the task (with its id) down the stream: give
        # this loop a moment to read what is already on the wire.
        await asyncio.sleep(0.3)
        agent.cancel()

    scenario = one_call("a2a__echo", {"message": "slow"})
    run = run_turn(
        profile(root, agent_table(shared.url), scenario), Area(root), during=cancel_once_dispatched
    )
    # The agent confirmed the cancel, but the kernel records a stopped write tool as unknown
    # (it may have acted before it stopped); the probe then settles it from the agent's task.
    assert run.codes == {"c1": "TOOL_OUTCOME_UNKNOWN"}, run.contents
    assert run.metas["c1"]["stopped"] == "ABORTED"
    task_id = run.metas["c1"]["a2a_task_id"]
    assert f"cancelled task {task_id}" in run.contents["c1"]
    done = run_cli("session", "reconcile", "--due", "--profile", str(root / "profile.toml"))
    assert done.returncode == 0, done.stderr
    reconciled = run_cli("session", "show", run.session.id, "--profile", str(root / "profile.toml"))
    assert f"task {task_id} ended canceled" in reconciled.stdout, reconciled.stdout
