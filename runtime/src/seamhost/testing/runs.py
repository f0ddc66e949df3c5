"""The ``seamhost_run`` kit: run a scenario against a bundle built from a profile text, in a test.

What ``seamhost run SCENARIO`` does, in-process and isolated: the profile (a TOML string) and
the scenario (the model-scripted format, docs/reference/scenario.md, as a TOML string or a path)
are written to a directory of the test's own; the bundle is built with ``SEAMHOST_HOME`` there,
so a durable store writes its sessions there too; each turn of the scenario runs through the
kernel's agent loop (:class:`~seamhost.run.agent.Agent`) in a fresh workspace seeded with the
scenario's files. The run stops at the end of the scenario, or at a turn that parks on a
deferred approval. What it returns, a :class:`~seamhost.testing.run_outcome.RunOutcome`,
holds each call's outcome and every record the session committed, for the test to assert on.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

from seamhost.errors import ConfigError, SeamUnavailable
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.llm.replay import Script
from seamhost.run.agent import Agent, TurnOutcome
from seamhost.run.sessions import create_session
from seamhost.testing.run_outcome import CallOutcome, RunOutcome, calls_of


def run_scenario(
    directory: Path,
    profile: str,
    scenario: str | Path,
    *,
    environ: Mapping[str, str] | None = None,
    approval_policy: str | None = None,
) -> RunOutcome:
    """Build the bundle of `profile` (TOML text) and run `scenario` in it, under `directory`.

    `environ` is the environment the profile resolves with (default: this process's, without
    its ``SEAMHOST_*`` variables); ``SEAMHOST_HOME`` is always `directory`/home.
    `approval_policy` (``ask`` or ``never``) is recorded for the session, as ``--approval-policy``
    does. A profile or scenario error raises :class:`~seamhost.errors.ConfigError`.
    """
    directory.mkdir(parents=True, exist_ok=True)
    base = os.environ if environ is None else environ
    env = {k: v for k, v in base.items() if not k.startswith("SEAMHOST_")}
    env["SEAMHOST_HOME"] = str(directory / "home")
    profile_path = directory / "profile.toml"
    profile_path.write_text(profile, encoding="utf-8")
    if isinstance(scenario, str):
        scenario_path = directory / "scenario.toml"
        scenario_path.write_text(scenario, encoding="utf-8")
    else:
        scenario_path = scenario
    bundle = build_bundle(resolve_profile(str(profile_path), environ=env), environ=env)
    if not bundle.seams.has("llm/replay"):
        raise ConfigError(
            str(profile_path),
            "plugins",
            "no plugin replays a scenario (none provides llm/replay); add [plugins.model-scripted]",
        )
    script = bundle.seams.llm_replay(scenario_path.resolve(), 1)
    workspace = directory / "workspace"
    _seed(workspace, script)
    session = create_session(bundle, cwd=str(workspace))
    if approval_policy is not None:
        from seamhost.approval.service import set_policy

        set_policy(session, approval_policy, "seamhost_run")
    agent = Agent(bundle, session, workspace=workspace)
    try:
        turns = asyncio.run(_drive(agent, script))
    finally:
        session.close()
    records = tuple(session.records)
    calls = calls_of(records)
    unmet = _unmet(script, calls, bundle.profile.name)
    return RunOutcome(bundle, session.id, workspace, tuple(turns), calls, records, unmet)


def _seed(workspace: Path, script: Script) -> None:
    workspace.mkdir(parents=True, exist_ok=True)
    for name, content in script.workspace.items():
        target = workspace / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


async def _drive(agent: Agent, script: Script) -> list[TurnOutcome]:
    turns = []
    for message in script.user_messages:
        turns.append(await agent.run_turn(message))
        if turns[-1].reason == "suspended":
            break
    with contextlib.suppress(SeamUnavailable):  # a memory-only session has nothing to flush
        await agent.session.flush()
    return turns


def _unmet(script: Script, calls: tuple[CallOutcome, ...], profile: str) -> tuple[str, ...]:
    got = {call.call_id: call.outcome for call in calls}
    return tuple(
        f"{call_id} ({tool}): expected {expected}, got {got.get(call_id, 'not run')}"
        for call_id, tool, expected in script.expectations(profile, 1)
        if got.get(call_id, "not run") != expected
    )


__all__ = ["run_scenario"]
