"""The agent loop: what the model is shown is derived from the log."""

from __future__ import annotations

import asyncio
from pathlib import Path

from seamhost.approval.service import set_policy
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session


def test_the_model_is_told_when_the_approval_policy_changes(tmp_path: Path) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text('[[turn]]\nuser = "one"\n[[turn]]\nuser = "two"\n')
    profile = resolve_profile("minimal", overrides={"model-scripted": {"scenario": str(scenario)}})
    bundle = build_bundle(profile)
    session = create_session(bundle, cwd=str(tmp_path))
    agent = Agent(bundle, session, workspace=tmp_path)
    asyncio.run(agent.run_turn("one"))
    before = agent.messages
    set_policy(session, "never", "an operator")
    asyncio.run(agent.run_turn("two"))
    added = agent.messages[len(before) :]
    assert agent.messages[: len(before)] == before, "the earlier conversation is not rewritten"
    assert added[0] == {
        "role": "context",
        "content": "The approval policy is now `never` (set by an operator): calls that need "
        "approval are refused without asking.",
    }
    assert added[1] == {"role": "user", "content": "two"}
