"""Mounting ``mcp-server-time`` (PyPI), an independently written stdio server, confined."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from seamhost.errors import PluginLoadError
from seamhost.kernel.bundle import BundleSnapshot, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from tests.tools_mcp.conftest import TIME_SERVER, Area, one_call, records_of, run_turn

TIME = f"""
[plugins.tools-mcp.servers.time]
command = ["{TIME_SERVER}", "--local-timezone", "UTC"]
"""


def test_its_tools_are_listed_pinned_and_untrusted_by_default(area: Area) -> None:
    bundle = build_bundle(resolve_profile(str(area.profile(TIME))))
    assert set(bundle.tools) == {"time__get_current_time", "time__convert_time"}
    tool = bundle.tools["time__get_current_time"]
    origin = tool.spec.origin
    assert origin is not None
    assert origin["server_info"]["name"] == "mcp-time"
    assert origin["descriptor_digest"].startswith("sha256:")
    assert origin["descriptor"]["annotations"]["readOnlyHint"] is True
    # The server says read-only; nothing in the profile trusts it.
    assert origin["trusted_annotations"] == []
    assert (tool.spec.effect, tool.spec.idempotent, tool.spec.concurrency_safe) == (
        "write",
        False,
        False,
    )
    # The snapshot carries the descriptor and its digest, and survives its JSON form.
    snapshot = bundle.snapshot.to_json()
    entry = next(t for t in snapshot["tools"] if t["name"] == "time__get_current_time")
    assert entry["origin"]["descriptor_digest"] == origin["descriptor_digest"]
    assert (
        BundleSnapshot.from_json(json.loads(json.dumps(snapshot))).digest == bundle.snapshot.digest
    )


def test_trusted_annotations_count(area: Area) -> None:
    profile = area.profile(TIME + "trust_annotations = true\n")
    tool = build_bundle(resolve_profile(str(profile))).tools["time__convert_time"]
    assert (tool.spec.effect, tool.spec.idempotent, tool.spec.concurrency_safe) == (
        "read-only",
        True,
        True,
    )
    assert tool.spec.origin is not None
    assert tool.spec.origin["trusted_annotations"] == [
        "readOnlyHint",
        "idempotentHint",
        "destructiveHint",
    ]


def test_a_call_returns_its_structured_result_and_the_header_records_the_pin(area: Area) -> None:
    scenario = one_call("time__get_current_time", {"timezone": "Europe/Paris"})
    run = run_turn(area.profile(TIME, scenario=scenario), area)
    assert run.codes == {"c1": "ok"}
    assert run.values["c1"]["timezone"] == "Europe/Paris"
    assert "datetime" in run.values["c1"]
    meta = run.metas["c1"]  # how the server that answered was confined
    assert meta["server_sandbox"] == "workspace-write"
    assert meta["server_backend"] in ("bwrap", "landlock")
    assert meta["server_enforcement"] in ("full", "partial")
    header = run.session.header.bundle
    entry = next(t for t in header["tools"] if t["name"] == "time__get_current_time")
    assert entry["origin"]["server_info"]["name"] == "mcp-time"
    call = next(d for kind, d in records_of(run.session) if kind == "tool/call")
    assert call["descriptor_digest"] == run.bundle.tools["time__get_current_time"].digest
    assert (Path(area.root) / "logs" / "time.log").exists()


def test_a_server_error_is_a_tool_error_with_its_message(area: Area) -> None:
    args = {"source_timezone": "Nowhere/Atlantis", "time": "10:00", "target_timezone": "UTC"}
    run = run_turn(area.profile(TIME, scenario=one_call("time__convert_time", args)), area)
    assert run.codes == {"c1": "TOOL_ERROR"}
    assert 'MCP server "time"' in run.contents["c1"]
    assert "Nowhere/Atlantis" in run.contents["c1"]


def test_invalid_arguments_never_reach_the_server(area: Area) -> None:
    run = run_turn(area.profile(TIME, scenario=one_call("time__get_current_time", {})), area)
    assert run.codes == {"c1": "INVALID_ARGUMENTS"}
    assert run.dispatched == ()


def test_only_the_listed_tools_are_exposed(area: Area) -> None:
    profile = area.profile(TIME + 'tools = ["convert_time"]\n')
    assert set(build_bundle(resolve_profile(str(profile))).tools) == {"time__convert_time"}
    missing = area.profile(TIME + 'tools = ["no_such_tool"]\n', name="missing.toml")
    with pytest.raises(PluginLoadError, match=r'MCP server "time": does not list .*no_such_tool'):
        build_bundle(resolve_profile(str(missing)))


def test_trusted_read_only_calls_share_one_server_in_parallel(area: Area) -> None:
    scenario = """
    [[turn]]
    user = "go"
    final = "done"
    [[turn.step]]
    [[turn.step.call]]
    id = "tokyo"
    tool = "time__get_current_time"
    args = { timezone = "Asia/Tokyo" }
    [[turn.step.call]]
    id = "lima"
    tool = "time__get_current_time"
    args = { timezone = "America/Lima" }
    """
    profile = area.profile(TIME + "trust_annotations = true\n", scenario=scenario)
    run = run_turn(profile, area)
    assert run.codes == {"tokyo": "ok", "lima": "ok"}
    assert run.values["tokyo"]["timezone"] == "Asia/Tokyo"
    assert run.values["lima"]["timezone"] == "America/Lima"


def test_a_bundle_built_inside_a_running_event_loop(area: Area) -> None:
    profile = area.profile(TIME)

    async def build() -> set[str]:
        return set(build_bundle(resolve_profile(str(profile))).tools)

    assert asyncio.run(build()) == {"time__get_current_time", "time__convert_time"}
