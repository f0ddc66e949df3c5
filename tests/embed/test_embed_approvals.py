"""Approvals through the embedding API: a callback answers in-line; without one a turn parks.

The tool is deferral_kit's ``count_write``, a real plugin installed for the test whose policy
asks about every call and whose body appends a line to a counter file outside the session log,
so each test can tell how many times a body really ran. The profiles extend ``default``: its
store, checkpoint policy, sandbox and rules are all in play.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import seamhost
from seamhost.run.deferred import ApprovalNotOpen
from seamhost.testing.sites import PluginSite
from tests.run.deferral_kit import COUNTER, SCENARIO

TWO_COUNTS = """
[scenario]
name = "two counts"

[[turn]]
user = "count twice"
final = "done"

[[turn.step]]
text = "count one and two"
[[turn.step.call]]
tool = "count_write"
args = { n = 1 }
[[turn.step.call]]
tool = "count_write"
args = { n = 2 }
"""


def profile(counter: Path, answerers: str) -> str:
    return (
        '[profile]\nname = "counting"\nextends = ["default"]\n'
        f'[plugins.counter]\ncounter = "{counter}"\n'
        f"[plugins.user-approval]\nanswerers = {answerers}\n"
    )


@pytest.fixture
def counter(plugin_site: PluginSite, tmp_path: Path) -> Path:
    plugin_site.add("counter", COUNTER)
    return tmp_path / "counter.txt"


def counted(counter: Path) -> list[str]:
    return counter.read_text().splitlines() if counter.exists() else []


def log(host: seamhost.Host, session_id: str) -> list[tuple[str, dict[str, Any]]]:
    return [(r.type, dict(r.data)) for r in host.bundle.store.read(session_id).records()]


def test_a_callback_approves_one_call_and_rejects_another(counter: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "two.toml"
    scenario.write_text(TWO_COUNTS)
    asked: list[tuple[str, int]] = []

    def approve(request: seamhost.ApprovalRequest) -> bool | seamhost.ApprovalAnswer:
        asked.append((request.tool, request.arguments["n"]))
        if request.arguments["n"] == 1:
            return True
        return seamhost.ApprovalAnswer.reject("two is one too many", decider="alice")

    text = profile(counter, '["rules"]')
    with seamhost.open_host(profile_text=text, store=tmp_path / "s", approve=approve) as host:
        report = host.run(scenario=scenario)
        records = log(host, report.session_id)
    assert asked == [("count_write", 1), ("count_write", 2)]
    assert report.outcome == "completed"
    one, two = report.call("call-1-1-1"), report.call("call-1-1-2")
    assert (one.decision, one.approval, one.code, one.ran) == ("ask", "allowed-once", "ok", True)
    assert (two.decision, two.approval, two.code, two.ran) == (
        "ask",
        "rejected",
        "APPROVAL_REJECTED",
        False,
    )
    assert counted(counter) == ["call-1-1-1 1"]  # the rejected body never ran
    decided = [data for kind, data in records if kind == "approval/decided"]
    assert [(d["outcome"], d["answerer"]) for d in decided] == [
        ("allowed-once", "embed-callback"),
        ("rejected", "embed-callback"),
    ]
    assert decided[1]["message"] == "rejected by embed-callback: by alice: two is one too many"


def test_an_async_callback_is_awaited(counter: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "two.toml"
    scenario.write_text(TWO_COUNTS)

    async def approve(request: seamhost.ApprovalRequest) -> bool:
        await asyncio.sleep(0)
        return bool(request.arguments["n"] == 2)

    async def main() -> seamhost.RunReport:
        text = profile(counter, '["rules"]')
        host = await seamhost.open_host_async(
            profile_text=text, store=tmp_path / "s", approve=approve
        )
        async with host:
            return await host.run(scenario=scenario)

    report = asyncio.run(main())
    assert [c.code for c in report.calls] == ["APPROVAL_REJECTED", "ok"]
    assert counted(counter) == ["call-1-1-2 2"]


def test_a_rule_answers_before_the_callback_is_asked(counter: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "two.toml"
    scenario.write_text(TWO_COUNTS)
    text = profile(counter, '["rules"]') + (
        '[[plugins.user-approval.rules]]\ntool = "count_write"\nargs = { n = "1" }\n'
        'decision = "reject"\nreason = "one is never counted"\n'
    )
    asked: list[int] = []

    def approve(request: seamhost.ApprovalRequest) -> bool:
        asked.append(request.arguments["n"])
        return True

    with seamhost.open_host(profile_text=text, store=tmp_path / "s", approve=approve) as host:
        report = host.run(scenario=scenario)
    assert asked == [2]
    assert [c.code for c in report.calls] == ["APPROVAL_REJECTED", "ok"]


def test_a_callback_that_raises_or_answers_nonsense_refuses_the_call(
    counter: Path, tmp_path: Path
) -> None:
    scenario = tmp_path / "two.toml"
    scenario.write_text(TWO_COUNTS)

    def approve(request: seamhost.ApprovalRequest) -> Any:
        if request.arguments["n"] == 1:
            raise RuntimeError("the reviewer's service is down")
        return "yes"

    text = profile(counter, '["rules"]')
    with seamhost.open_host(profile_text=text, store=tmp_path / "s", approve=approve) as host:
        report = host.run(scenario=scenario)
        records = log(host, report.session_id)
    assert [c.code for c in report.calls] == ["APPROVAL_UNAVAILABLE"] * 2
    assert counted(counter) == []
    messages = [d["message"] for kind, d in records if kind == "approval/decided"]
    assert "the callback failed: RuntimeError: the reviewer's service is down" in messages[0]
    assert "returned 'yes'" in messages[1]


def test_without_a_callback_a_deferred_approval_is_answered_and_resumed_once(
    counter: Path, tmp_path: Path
) -> None:
    scenario = tmp_path / "deferred.toml"
    scenario.write_text(SCENARIO)
    text = profile(counter, '["defer"]')
    with seamhost.open_host(profile_text=text, store=tmp_path / "s") as host:
        parked = host.run(scenario=scenario)
        assert parked.outcome == "parked"
        assert not parked.ok
        [waiting] = parked.parked
        assert (waiting.call_id, waiting.tool) == ("call-1-1-2", "count_write")
        assert parked.call("call-1-1-1").code == "ok"  # the read before it ran
        assert parked.call("call-1-1-2").approval == "deferred"
        assert parked.call("call-1-1-2").code is None
        assert parked.workspace.is_dir()  # kept for the resume, as `seamhost run` keeps it
        assert [p.approval_id for p in host.pending()] == [waiting.approval_id]
        assert counted(counter) == []

        host.approve(parked.session_id, waiting.approval_id, decider="bob", reason="looks fine")
        with pytest.raises(ApprovalNotOpen, match="already answered"):
            host.approve(parked.session_id, waiting.approval_id)
        resumed = host.resume(parked.session_id, scenario=scenario)
        records = log(host, parked.session_id)

    assert resumed.outcome == "completed"
    assert counted(counter) == ["call-1-1-2 1"]  # exactly the approved call, once
    count = resumed.call("call-1-1-2")
    assert (count.approval, count.code, count.ran) == ("allowed-once", "ok", True)
    assert [t.turn for t in resumed.turns] == [1, 2]  # the parked turn, then the scenario's next
    [answer] = [d for kind, d in records if kind == "approval/decided"]
    assert (answer["decider"], answer["source"]) == ("bob", "api")
    assert answer["message"] == "allowed once by bob (api): looks fine"
    assert not resumed.workspace.exists()  # the session finished: its temporary workspace goes


def test_a_rejected_deferred_call_never_runs(counter: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "deferred.toml"
    scenario.write_text(SCENARIO)
    with seamhost.open_host(
        profile_text=profile(counter, '["defer"]'), store=tmp_path / "s"
    ) as host:
        parked = host.run(scenario=scenario)
        host.reject(parked.session_id, parked.parked[0].approval_id, decider="carol")
        resumed = host.resume(parked.session_id, scenario=scenario)
    assert resumed.call("call-1-1-2").code == "APPROVAL_REJECTED"
    assert counted(counter) == []


def test_a_callback_may_defer_and_the_answer_comes_later(counter: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "deferred.toml"
    scenario.write_text(SCENARIO)
    text = profile(counter, '["rules"]')

    def later(request: seamhost.ApprovalRequest) -> seamhost.ApprovalAnswer:
        return seamhost.ApprovalAnswer.defer("the reviewer answers by mail")

    with seamhost.open_host(profile_text=text, store=tmp_path / "s", approve=later) as host:
        parked = host.run(scenario=scenario)
    assert parked.outcome == "parked"
    # Another host on the same store answers and resumes it, as another process would.
    with seamhost.open_host(profile_text=text, store=tmp_path / "s") as host:
        host.approve(parked.session_id, parked.parked[0].approval_id, decider="dan")
        resumed = host.resume(parked.session_id, scenario=scenario)
    assert resumed.outcome == "completed"
    assert counted(counter) == ["call-1-1-2 1"]
