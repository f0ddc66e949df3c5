"""``seamhost a2a pins``: the pins it prints, pasted, pin the profile; a stale pin is flagged.

The command runs in a child process against a real agent, as a user runs it; the pinned profile
is then called through a scripted session.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.tools_a2a.conftest import TOKEN, RemoteAgent, agent_table, profile
from tests.tools_mcp.conftest import Area, one_call, run_turn

TABLE = "[plugins.tools-a2a.agents.echo]\n"
ZEROS = f"sha256:{'0' * 64}"


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ECHO_TOKEN", TOKEN)


def pins(path: Path, *json_flag: str) -> str:
    done = run_cli("a2a", "pins", "--profile", str(path), *json_flag)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_printed_pin_pasted_into_the_table_pins_the_profile(
    root: Path, shared: RemoteAgent
) -> None:
    printed = pins(profile(root, agent_table(shared.url)))
    header = f"# A2A agent 'echo': Echo agent 1.0.0 at {shared.url}\n{TABLE}pin = \"sha256:"
    assert printed.startswith(header), printed
    # Pasted over the table's header line, the agent's url and token stay in the same table.
    pasted = agent_table(shared.url).replace(TABLE, printed)
    pinned = profile(root, pasted, one_call("a2a__echo", {"message": "hi"}))
    shown = json.loads(pins(pinned, "--json"))
    digest = printed.split('pin = "')[1].split('"')[0]
    assert shown == {
        "profile": "a2a-test",
        "agents": [
            {
                "agent": "echo",
                "url": shared.url,
                "card_name": "Echo agent",
                "card_version": "1.0.0",
                "digest": digest,
                "pinned": digest,
                "matches": True,
            }
        ],
    }
    run = run_turn(pinned, Area(root))
    assert run.codes == {"c1": "ok"}, run.contents


def test_a_pin_that_is_not_the_card_served_is_flagged(root: Path, shared: RemoteAgent) -> None:
    stale = profile(root, agent_table(shared.url, f'pin = "{ZEROS}"\n'))
    printed = pins(stale)
    assert f"# the profile pins {ZEROS}: changed, not the card served now\n{TABLE}" in printed
    (agent,) = json.loads(pins(stale, "--json"))["agents"]
    assert agent["pinned"] == ZEROS
    assert agent["matches"] is False
    assert f'pin = "{agent["digest"]}"' in printed  # what to pin instead, once reviewed


def test_a_profile_without_agents_says_so(root: Path) -> None:
    # tools-a2a with no agent table yet: the profile loads, and there is nothing to pin.
    assert pins(profile(root, "")) == "# the profile mounts no A2A agents\n"
