"""A model response proposing two calls under one id runs neither (issue 33, point 7).

The check is the runtime's, whatever the adapter: here the scripted model answers (a scenario
cannot itself repeat an id, so an ``llm/stream`` layer installed as a real plugin gives the
second call the first one's id, as a faulty or hostile model would) and both calls would write
a file. The scripted model answers the same way every time (``max_attempts = 1``), so the turn
ends in error after the one refused attempt, with nothing run.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from seamhost.run.sessions import create_session
from seamhost.testing.sites import PluginSite
from tests.conftest import plugin_source

SAME_ID = """
@hookimpl
async def llm_stream(self, request, call_next):
    import attrs
    first = None
    async for event in call_next(request):
        if isinstance(event, ToolCallProposal):
            first = first or event.call_id
            event = attrs.evolve(event, call_id=first)
        yield event
"""

SCENARIO = """
[[turn]]
user = "go"
final = "done"
[[turn.step]]
[[turn.step.call]]
tool = "write_file"
args = { path = "a.txt", content = "a" }
[[turn.step.call]]
tool = "write_file"
args = { path = "b.txt", content = "b" }
"""


def test_two_calls_under_one_id_run_neither(plugin_site: PluginSite, tmp_path: Path) -> None:
    plugin_site.add("same-id", plugin_source(SAME_ID, name="same-id"))
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO)
    profile = plugin_site.profile(
        "p.toml",
        '[profile]\nname = "dup"\n[plugins.same-id]\n[plugins.tools]\n'
        f'[plugins.model-scripted]\nscenario = "{scenario}"\n',
    )
    workspace = tmp_path / "ws"
    workspace.mkdir()
    bundle = build_bundle(resolve_profile(str(profile)))
    session = create_session(bundle)
    outcome = asyncio.run(Agent(bundle, session, workspace=workspace).run_turn("go"))
    assert not (workspace / "a.txt").exists()
    assert not (workspace / "b.txt").exists()
    kinds = [r.type for r in session.records]
    assert not any(k.startswith("tool/") for k in kinds), kinds
    assert "assistant/message" not in kinds
    [failed] = [r.data for r in session.records if r.type == "model/failed"]
    assert failed["code"] == "duplicate-call-id"
    assert "'call-1-1-1'" in failed["message"]
    assert outcome.reason == "error"
    assert outcome.message is not None
    assert "duplicate-call-id" in outcome.message
