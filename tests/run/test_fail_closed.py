"""The fail-closed matrix: for each seam, its provider missing and raising, through the agent.

Each case runs one scripted call of a probe tool whose body leaves a marker file, and asserts the
documented outcome (design.md §3.4) and whether a body started. Seams whose documented outcome lets
the call through (notify seams, or a missing optional wrapper) are in the matrix too: "fails
closed" must not mean "fails always".
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from seamhost.errors import SeamhostError
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.catalogue import SEAMS
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from seamhost.run.probing import probe_unknowns
from seamhost.run.sessions import create_session
from seamhost.testing.sites import PluginSite
from tests.conftest import plugin_source

PROBE = """
from pathlib import Path
from seamhost import ToolOutput, ToolSpec
async def body(ctx):
    Path(ctx.workspace, "body-ran").write_text(ctx.call_id)
    return ToolOutput("ran")
"""
PROBE_BODY = """
@hookimpl
def tools_register(self, register):
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    register(ToolSpec("probe", "leaves a marker", schema, {}, "write", False, body,
                      runs_subprocesses=self.ctx.config.get("spawns", False)))
"""
PROBE_SCHEMA = '{"type": "object", "properties": {"spawns": {"type": "boolean"}}}'

# seam -> (plugin body that raises, provides)
RAISING = {
    "tools/register": (
        "@hookimpl\ndef tools_register(self, register):\n    raise RuntimeError('x')\n",
        "[]",
    ),
    "session/store": (
        "@hookimpl\ndef session_store(self):\n    raise RuntimeError('x')\n",
        '["session/store"]',
    ),
    "session/event": (
        "@hookimpl\ndef session_event(self, session, record):\n    raise RuntimeError('x')\n",
        "[]",
    ),
    "session/flush": (
        "@hookimpl\ndef session_flush(self, session):\n    raise OSError('disk gone')\n",
        '["session/flush"]',
    ),
    "agent/pre-step": (
        "@hookimpl\nasync def agent_pre_step(self, ctx, call_next):\n    raise RuntimeError('x')\n",
        "[]",
    ),
    "llm/adapter": (
        "@hookimpl\ndef llm_adapter(self):\n    raise RuntimeError('x')\n",
        '["llm/adapter"]',
    ),
    "llm/replay": (
        "@hookimpl\ndef llm_replay(self, path):\n    raise RuntimeError('x')\n",
        '["llm/replay"]',
    ),
    "llm/stream": (
        "@hookimpl\ndef llm_stream(self, request, call_next):\n    raise RuntimeError('x')\n",
        "[]",
    ),
    "tools/pre-execute": (
        "@hookimpl\ndef tools_pre_execute(self, call):\n    raise RuntimeError('x')\n",
        "[]",
    ),
    "tools/guard": ("@hookimpl\ndef tools_guard(self, call):\n    raise RuntimeError('x')\n", "[]"),
    "approval/service": (
        "@hookimpl\ndef approval_service(self):\n    raise RuntimeError('x')\n",
        '["approval/service"]',
    ),
    "approval/request": (
        "@hookimpl\ndef approval_request(self, request):\n    raise RuntimeError('x')\n",
        "[]",
    ),
    "tools/execute": (
        "@hookimpl\nasync def tools_execute(self, execution, call_next):\n"
        "    raise RuntimeError('x')\n",
        "[]",
    ),
    "sandbox/confine": (
        "@hookimpl\ndef sandbox_confine(self, request):\n    raise RuntimeError('x')\n",
        '["sandbox/confine"]',
    ),
    "tools/post-execute": (
        "@hookimpl\ndef tools_post_execute(self, call, result):\n    raise RuntimeError('x')\n",
        "[]",
    ),
    "tools/result": (
        "@hookimpl\ndef tools_result(self, call, result):\n    raise RuntimeError('x')\n",
        "[]",
    ),
}
# A writing tool whose body leaves its marker, then outlives the profile's tool timeout: its
# outcome is unknown, and only its own plugin's status probe may resolve it.
SLOW_PROBE = """
@hookimpl
def tools_register(self, register):
    import asyncio
    from pathlib import Path
    async def body(ctx):
        Path(ctx.workspace, "body-ran").write_text(ctx.call_id)
        await asyncio.sleep(30)
    register(ToolSpec("probe", "stalls", {"type": "object"}, {}, "write", False, body,
                      status_query=self.STATUS_QUERY))
"""
RECONCILE_RAISES = (
    "STATUS_QUERY = True\n" + SLOW_PROBE + "@hookimpl\ndef tools_reconcile(self, probe):\n"
    "    raise RuntimeError('the ledger is down')\n"
)
ASK = "@hookimpl\ndef tools_pre_execute(self, call):\n    return Decision.ask('needs a person')\n"
FLUSH_OK = "@hookimpl\ndef session_flush(self, session):\n    pass\n"

# (seam, variant) -> (extra plugins, profile extra, expected outcome, body runs)
#   outcome: a tool result code, "ok", or "startup" (the bundle or session refuses to start),
#   or "turn-error" (the turn ends `error` before any call).
CASES: dict[tuple[str, str], tuple[dict[str, tuple[str, str]], str, str, bool]] = {
    ("tools/register", "missing"): ({}, "no-probe", "UNKNOWN_TOOL", False),
    ("tools/register", "raising"): ({"bad": RAISING["tools/register"]}, "", "startup", False),
    ("session/store", "missing"): ({}, "require-store", "startup", False),
    ("session/store", "raising"): ({"bad": RAISING["session/store"]}, "", "startup", False),
    ("session/event", "missing"): ({}, "", "ok", True),
    ("session/event", "raising"): ({"bad": RAISING["session/event"]}, "", "ok", True),
    ("session/flush", "missing"): ({}, "checkpoint", "startup", False),
    ("session/flush", "raising"): (
        {"bad": RAISING["session/flush"]},
        "checkpoint",
        "turn-error",
        False,
    ),
    ("agent/pre-step", "missing"): ({}, "", "ok", True),
    ("agent/pre-step", "raising"): ({"bad": RAISING["agent/pre-step"]}, "", "turn-error", False),
    ("llm/adapter", "missing"): ({}, "no-model", "turn-error", False),
    ("llm/adapter", "raising"): ({"bad": RAISING["llm/adapter"]}, "no-model", "turn-error", False),
    # `seamhost run SCENARIO` asks llm/replay before any session: no replayer, or a raising one,
    # refuses the command at start-up (exit 2 or 1), and nothing runs.
    ("llm/replay", "missing"): ({}, "replay", "startup", False),
    ("llm/replay", "raising"): ({"bad": RAISING["llm/replay"]}, "replay", "startup", False),
    ("llm/stream", "missing"): ({}, "", "ok", True),
    ("llm/stream", "raising"): ({"bad": RAISING["llm/stream"]}, "", "turn-error", False),
    ("tools/pre-execute", "missing"): ({}, "", "ok", True),
    ("tools/pre-execute", "raising"): (
        {"bad": RAISING["tools/pre-execute"]},
        "",
        "DENIED_BY_POLICY",
        False,
    ),
    ("tools/guard", "missing"): ({}, "", "ok", True),
    ("tools/guard", "raising"): ({"bad": RAISING["tools/guard"]}, "", "DENIED_BY_GUARD", False),
    ("approval/service", "missing"): ({"ask": (ASK, "[]")}, "", "APPROVAL_UNAVAILABLE", False),
    ("approval/service", "raising"): ({"bad": RAISING["approval/service"]}, "", "startup", False),
    ("approval/request", "missing"): ({"ask": (ASK, "[]")}, "", "APPROVAL_UNAVAILABLE", False),
    ("approval/request", "raising"): (
        {"ask": (ASK, "[]"), "bad": RAISING["approval/request"]},
        "",
        "APPROVAL_UNAVAILABLE",
        False,
    ),
    ("tools/execute", "missing"): ({}, "", "ok", True),
    ("tools/execute", "raising"): ({"bad": RAISING["tools/execute"]}, "", "TOOL_ERROR", False),
    ("sandbox/confine", "missing"): ({}, "spawns", "SANDBOX_UNAVAILABLE", False),
    ("sandbox/confine", "raising"): (
        {"bad": RAISING["sandbox/confine"]},
        "spawns",
        "SANDBOX_UNAVAILABLE",
        False,
    ),
    ("tools/post-execute", "missing"): ({}, "", "ok", True),
    ("tools/post-execute", "raising"): (
        {"bad": RAISING["tools/post-execute"]},
        "",
        "POST_EXECUTE_BLOCKED",
        True,
    ),
    # An unknown outcome nobody can probe stays unknown; a raising probe writes nothing.
    ("tools/reconcile", "missing"): (
        {"slow": ("STATUS_QUERY = False\n" + SLOW_PROBE, "[]")},
        "reconcile",
        "TOOL_OUTCOME_UNKNOWN",
        True,
    ),
    ("tools/reconcile", "raising"): (
        {"slow": (RECONCILE_RAISES, "[]")},
        "reconcile",
        "TOOL_OUTCOME_UNKNOWN",
        True,
    ),
    ("tools/result", "missing"): ({}, "", "ok", True),
    ("tools/result", "raising"): ({"bad": RAISING["tools/result"]}, "", "ok", True),
}


def extra_probes(extra: dict[str, tuple[str, str]]) -> bool:
    return any("def tools_reconcile" in body for body, _ in extra.values())


def test_every_seam_is_in_the_matrix_both_ways() -> None:
    assert {seam for seam, _ in CASES} == set(SEAMS)
    assert all((seam, v) in CASES for seam in SEAMS for v in ("missing", "raising"))


@pytest.fixture
def site(plugin_site: PluginSite) -> PluginSite:
    plugin_site.add("probe", PROBE + plugin_source(PROBE_BODY, name="probe", schema=PROBE_SCHEMA))
    plugin_site.add(
        "flush-ok", plugin_source(FLUSH_OK, name="flush-ok", provides='["session/flush"]')
    )
    return plugin_site


def run_case(site: PluginSite, tmp: Path, extra: dict[str, tuple[str, str]], flags: str) -> str:
    scenario = tmp / "s.toml"
    scenario.write_text(
        '[[turn]]\nuser = "go"\n[[turn.step]]\n[[turn.step.call]]\ntool = "probe"\n'
    )
    tables = (
        []
        if flags in ("no-probe", "reconcile")
        else ["[plugins.probe]\n" + ("spawns = true\n" if flags == "spawns" else "")]
    )
    for name, (body, provides) in extra.items():
        site.add(name, plugin_source(body, name=name, provides=provides))
        tables.append(f"[plugins.{name}]\n")
    if flags not in ("no-model", "replay"):
        tables.append(f'[plugins.model-scripted]\nscenario = "{scenario}"\n')
    if flags == "checkpoint":
        tables.append("[plugins.checkpoint-policy]\n")
    if flags == "require-store":
        tables.append('[require]\nseams = ["session/store"]\n')
    if flags == "spawns":
        tables.append('[sandbox]\nmode = "workspace-write"\n')
    if flags == "reconcile":
        tables.append("[limits]\ntool_timeout_s = 0.2\n")
    profile = site.profile("case.toml", "\n".join(tables))
    workspace = tmp / "ws"
    workspace.mkdir(exist_ok=True)
    try:
        bundle = build_bundle(resolve_profile(str(profile)))
        if flags == "replay":
            bundle.seams.llm_replay(scenario)
        session = create_session(bundle)
        agent = Agent(bundle, session, workspace=workspace)
    except SeamhostError:  # every start-up refusal is a seamhost error, named, not a crash
        return "startup"
    outcome = asyncio.run(agent.run_turn("go"))
    results = [r for r in session.records if r.type == "tool/result"]
    if outcome.reason == "error" and not results:
        return "turn-error"
    assert len(results) == 1, [r.type for r in session.records]
    if flags == "reconcile":
        reports = asyncio.run(probe_unknowns(bundle, session, workspace))
        assert [r.outcome for r in reports] == ["failed" if extra_probes(extra) else "no-probe"]
        assert not [r for r in session.records if r.type.startswith("tool/reconcile")]
    error: Any = results[0].data.get("error")
    return "ok" if error is None else str(error["code"])


@pytest.mark.parametrize(("seam", "variant"), sorted(CASES))
def test_fail_closed(site: PluginSite, tmp_path: Path, seam: str, variant: str) -> None:
    extra, flags, expected, body_runs = CASES[(seam, variant)]
    outcome = run_case(site, tmp_path, extra, flags)
    assert outcome == expected
    assert (tmp_path / "ws" / "body-ran").exists() is body_runs
