"""A probe pass (run/probing.py): one probe's deadline never stops the probes after it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from seamhost.run.probing import probe_unknowns
from seamhost.run.sessions import create_session
from tests.conftest import BundleMaker, plugin_source

SLOW_FIRST = """
@hookimpl
def tools_register(self, register):
    async def body(ctx):
        raise AssertionError("a probe never runs the body")
    register(ToolSpec("slow", "slow", {"type": "object"}, {}, "write", False, body,
                      status_query=True))
@hookimpl
async def tools_reconcile(self, probe):
    import asyncio
    if probe.call_id == "c1":
        await asyncio.sleep(60)
    return Resolved(f"cancelled={probe.cancelled.is_set()}", error_code="TOOL_ERROR")
"""


def test_a_slow_probe_fails_alone_and_the_next_is_asked_unhindered(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = make_bundle({"slow": plugin_source(SLOW_FIRST, name="slow")})
    session = create_session(bundle)
    digest = bundle.tools["slow"].digest
    session.append_data("turn/start", {"turn": 1})
    session.append_data("step/start", {"turn": 1, "step": 1})
    calls = [{"call_id": c, "name": "slow", "arguments": "{}"} for c in ("c1", "c2")]
    session.append_data(
        "assistant/message", {"turn": 1, "step": 1, "content": "", "tool_calls": calls}
    )
    for call in calls:
        session.append_data(
            "tool/call", {"turn": 1, "step": 1, **call, "descriptor_digest": digest}
        )
        session.append_data(
            "tool/dispatch",
            {"call_id": call["call_id"], "attempt": 1, "sandbox_mode": "read-only",
             "args_digest": "sha256:0"},
        )  # fmt: skip
        unknown = {"code": "TOOL_OUTCOME_UNKNOWN", "message": "stopped"}
        session.append_data(
            "tool/result",
            {"turn": 1, "step": 1, "call_id": call["call_id"], "is_error": True,
             "content": "unknown", "error": unknown},
        )  # fmt: skip
    stop = asyncio.Event()
    reports = asyncio.run(probe_unknowns(bundle, session, tmp_path, deadline=0.2, cancelled=stop))
    assert [(r.call_id, r.outcome) for r in reports] == [("c1", "failed"), ("c2", "resolved")]
    assert "cancelled=False" in reports[1].detail
    assert not stop.is_set(), "the caller's signal is the caller's"
    reconciled = [r.data["call_id"] for r in session.records if r.type == "tool/reconciled"]
    assert reconciled == ["c2"]


META_ECHO = """
@hookimpl
def tools_register(self, register):
    async def body(ctx):
        raise AssertionError("a probe never runs the body")
    register(ToolSpec("remote", "remote", {"type": "object"}, {}, "write", False, body,
                      status_query=True))
@hookimpl
def tools_reconcile(self, probe):
    return Resolved(f"meta={dict(probe.result_meta)}", error_code="TOOL_ERROR")
"""


def test_a_probe_is_given_the_meta_of_the_unknown_result(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = make_bundle({"remote": plugin_source(META_ECHO, name="remote")})
    session = create_session(bundle)
    digest = bundle.tools["remote"].digest
    session.append_data("turn/start", {"turn": 1})
    session.append_data("step/start", {"turn": 1, "step": 1})
    calls = [{"call_id": c, "name": "remote", "arguments": "{}"} for c in ("c1", "c2")]
    session.append_data(
        "assistant/message", {"turn": 1, "step": 1, "content": "", "tool_calls": calls}
    )
    metas = {"c1": {"remote_task": "t-1"}, "c2": None}  # what each body kept before the loss
    for call in calls:
        session.append_data(
            "tool/call", {"turn": 1, "step": 1, **call, "descriptor_digest": digest}
        )
        session.append_data(
            "tool/dispatch",
            {"call_id": call["call_id"], "attempt": 1, "sandbox_mode": "read-only",
             "args_digest": "sha256:0"},
        )  # fmt: skip
        result = {"turn": 1, "step": 1, "call_id": call["call_id"], "is_error": True,
                  "content": "unknown",
                  "error": {"code": "TOOL_OUTCOME_UNKNOWN", "message": "lost"}}  # fmt: skip
        if metas[call["call_id"]] is not None:
            result["meta"] = metas[call["call_id"]]
        session.append_data("tool/result", result)
    reports = asyncio.run(probe_unknowns(bundle, session, tmp_path))
    assert [(r.call_id, r.outcome) for r in reports] == [("c1", "resolved"), ("c2", "resolved")]
    contents = {
        r.data["call_id"]: r.data["content"] for r in session.records if r.type == "tool/reconciled"
    }
    assert contents == {
        "c1": "TOOL_ERROR: meta={'remote_task': 't-1'}",
        "c2": "TOOL_ERROR: meta={}",
    }
