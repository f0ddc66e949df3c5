"""The governed call (design.md §5): every refusal has its code and no body starts after one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

from seamhost.approval.service import ApprovalService
from seamhost.jsonvalue import digest
from seamhost.kernel.bundle import Bundle
from seamhost.llm.adapter import ToolCallProposal
from seamhost.run.pipeline import ToolPipeline
from seamhost.run.sessions import create_session
from seamhost.session.events import SandboxModeChanged, TurnStart
from seamhost.session.live import Session
from seamhost.tool.result import ToolResult
from tests.conftest import BundleMaker, plugin_source, plugin_state

PROBE_MODULE = """
import asyncio
from seamhost import ToolOutput, ToolSpec
RUNS = []
ACTIVE = [0, 0]          # current, peak concurrency
def _spec(name, effect, safe, body, **kw):
    properties = {"ms": {"type": "integer"}, "path": {"type": "string"}}
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    return ToolSpec(name, name, schema, {}, effect, safe, body, **kw)
async def _work(ctx, name):
    RUNS.append(("start", name, ctx.call_id))
    ACTIVE[0] += 1
    ACTIVE[1] = max(ACTIVE)
    await asyncio.sleep(ctx.arguments.get("ms", 0) / 1000)
    ACTIVE[0] -= 1
    RUNS.append(("end", name, ctx.call_id))
async def read(ctx):
    await _work(ctx, "read")
    return ToolOutput("read " + ctx.call_id, value={"ok": True})
async def write(ctx):
    await _work(ctx, "write")
    return ToolOutput("wrote", value={"mode": str(ctx.sandbox_mode)})
async def spawn(ctx):
    await _work(ctx, "spawn")
    return ToolOutput("spawned")
async def fail(ctx):
    await _work(ctx, "fail")
    raise RuntimeError("disk on fire")
async def hint(ctx):
    await _work(ctx, "hint")
    return ToolOutput("hinted", additional_contexts=("remember " + ctx.call_id,))
"""

PROBE = """
runs = RUNS
active = ACTIVE
@hookimpl
def tools_register(self, register):
    register(_spec("read", "read-only", True, read))
    register(_spec("write", "write", False, write))
    register(_spec("spawn", "write", False, spawn, runs_subprocesses=True))
    register(_spec("fail", "write", False, fail))
    register(_spec("hint", "read-only", True, hint))
"""

POLICY = """
seen = []
@hookimpl
def tools_pre_execute(self, call):
    Plugin.seen.append(call.call_id)
    verdict = call.arguments.get("path", "")
    if verdict == "deny":
        return Decision.deny("path is off limits")
    if verdict.startswith("ask"):
        return Decision.ask("path needs a human")
    return None
@hookimpl
def tools_guard(self, call):
    if call.arguments.get("path") == "floor":
        return Decision.deny("below the floor")
    return None
"""

ANSWERER = """
@hookimpl
def approval_request(self, request):
    path = request.arguments.get("path")
    if path == "ask-boom":
        raise RuntimeError("answerer crashed")
    answers = {"ask-yes": ApprovalOutcome.ALLOWED_ONCE, "ask-no": ApprovalOutcome.REJECTED,
               "ask-cancel": ApprovalOutcome.CANCELLED}
    return answers.get(path)
"""

FLUSH = """
flushes = []
fail = []
@hookimpl
async def session_flush(self, session):
    if Plugin.fail:
        raise OSError("storage gone")
    Plugin.flushes.append([r.type for r in session.records])
"""


def make(make_bundle: BundleMaker, *names: str, profile: str = "") -> Bundle:
    sources = {
        "probe": PROBE_MODULE + plugin_source(PROBE, name="probe"),
        "policy": plugin_source(POLICY, name="policy"),
        "answerer": plugin_source(ANSWERER, name="answerer"),
        "flush": plugin_source(FLUSH, name="flush", provides='["session/flush"]'),
    }
    chosen = {name: sources[name] for name in ("probe", *names)}
    extra = "[plugins.checkpoint-policy]\n" if "flush" in names else ""
    return make_bundle(chosen, profile=extra + profile)


def propose(*calls: tuple[str, Any]) -> list[ToolCallProposal]:
    out = []
    for n, (name, args) in enumerate(calls, start=1):
        raw = args if isinstance(args, str) else orjson.dumps(args).decode()
        out.append(ToolCallProposal(f"c{n}", name, raw))
    return out


def run_step(
    bundle: Bundle,
    workspace: Path,
    proposals: list[ToolCallProposal],
    session: Session | None = None,
    cancelled: asyncio.Event | None = None,
) -> tuple[list[ToolResult], Session]:
    session = session or create_session(bundle, session_id="s")
    if session.next_seq == 0:
        session.append(TurnStart(turn=1))
    pipeline = ToolPipeline(bundle, session, workspace, ApprovalService())
    results = asyncio.run(pipeline.run_step(1, 1, proposals, cancelled or asyncio.Event()))
    return results, session


def runs(bundle: Bundle) -> list[tuple[str, str, str]]:
    return list(plugin_state(bundle, "probe").runs)


def codes(results: list[ToolResult]) -> list[str]:
    return [r.error.code if r.error else "ok" for r in results]


def types(session: Session) -> list[str]:
    return [r.type for r in session.records]


# -- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (("nope", {}), "UNKNOWN_TOOL"),
        (("write", "{not json"), "INVALID_ARGUMENTS"),
        (("write", "[1, 2]"), "INVALID_ARGUMENTS"),
        (("write", {"ms": "soon"}), "INVALID_ARGUMENTS"),
        (("write", {"colour": "red"}), "INVALID_ARGUMENTS"),
        (("write", {"path": "deny"}), "DENIED_BY_POLICY"),
        (("write", {"path": "ask-none"}), "APPROVAL_UNAVAILABLE"),
        (("write", {"path": "ask-no"}), "APPROVAL_REJECTED"),
        (("write", {"path": "ask-cancel"}), "APPROVAL_CANCELLED"),
        (("write", {"path": "ask-boom"}), "APPROVAL_UNAVAILABLE"),
        (("write", {"path": "floor"}), "DENIED_BY_GUARD"),
        (("spawn", {}), "SANDBOX_UNAVAILABLE"),
    ],
)
def test_each_refusal_has_its_code_and_the_body_never_starts(
    make_bundle: BundleMaker, workspace: Path, call: tuple[str, Any], code: str
) -> None:
    bundle = make(
        make_bundle, "policy", "answerer", profile='[sandbox]\nmode = "workspace-write"\n'
    )
    results, session = run_step(bundle, workspace, propose(call))
    assert codes(results) == [code], results[0].content
    assert runs(bundle) == []
    assert "tool/dispatch" not in types(session)
    assert types(session)[-1] == "tool/result"


def test_arguments_are_validated_before_policy_sees_the_call(
    make_bundle: BundleMaker, workspace: Path
) -> None:
    bundle = make(make_bundle, "policy")
    run_step(bundle, workspace, propose(("write", "{bad"), ("write", {"ms": 0})))
    assert plugin_state(bundle, "policy").seen == ["c2"]


def test_allowed_once_runs_exactly_that_call_with_its_digest(
    make_bundle: BundleMaker, workspace: Path
) -> None:
    bundle = make(make_bundle, "policy", "answerer")
    args = {"path": "ask-yes", "ms": 1}
    results, session = run_step(bundle, workspace, propose(("write", args)))
    assert codes(results) == ["ok"]
    records = {r.type: r.data for r in session.records}
    assert records["approval/asked"]["args_digest"] == digest(args)
    assert records["approval/decided"]["outcome"] == "allowed-once"
    assert records["tool/dispatch"]["args_digest"] == digest(args)
    order = types(session)
    assert (
        order.index("approval/decided") < order.index("tool/dispatch") < order.index("tool/result")
    )
    assert [r[0] for r in runs(bundle)] == ["start", "end"]


def test_policy_never_refuses_before_any_answerer(
    make_bundle: BundleMaker, workspace: Path
) -> None:
    bundle = make(make_bundle, "policy", "answerer")
    session = create_session(bundle)
    session.append(TurnStart(turn=1))
    session.append_data("approval/policy", {"policy": "never", "source": "test"})
    results, session = run_step(bundle, workspace, propose(("write", {"path": "ask-yes"})), session)
    assert codes(results) == ["APPROVAL_UNAVAILABLE"]
    assert "never" in results[0].content
    assert runs(bundle) == []


# -- escalation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("permissions", "justification", "problem"),
    [
        ("danger-full-access", None, "together"),
        (None, "because", "together"),
        ("danger-full-access", "  ", "must not be empty"),
        ("root", "because", "is not a mode"),
        ("read-only", "because", "not wider"),
        ("workspace-write", "because", "not wider"),
    ],
)
def test_invalid_escalations_never_prompt(
    make_bundle: BundleMaker,
    workspace: Path,
    permissions: str | None,
    justification: str | None,
    problem: str,
) -> None:
    bundle = make(
        make_bundle, "policy", "answerer", profile='[sandbox]\nmode = "workspace-write"\n'
    )
    proposal = ToolCallProposal("c1", "write", '{"path": "ask-yes"}', permissions, justification)
    results, session = run_step(bundle, workspace, [proposal])
    assert codes(results) == ["ESCALATION_INVALID"]
    assert problem in results[0].content
    assert "approval/asked" not in types(session)
    assert runs(bundle) == []


def test_an_approved_escalation_applies_to_that_call_only(
    make_bundle: BundleMaker, workspace: Path
) -> None:
    bundle = make(make_bundle, "policy", "answerer")
    escalated = ToolCallProposal(
        "c1", "write", '{"path": "ask-yes"}', "danger-full-access", "needs it"
    )
    plain = ToolCallProposal("c2", "write", "{}")
    results, session = run_step(bundle, workspace, [escalated, plain])
    assert [r.value for r in results] == [{"mode": "danger-full-access"}, {"mode": "read-only"}]
    asked = next(r.data for r in session.records if r.type == "approval/asked")
    assert asked["escalation"] == "danger-full-access"


def test_the_last_sandbox_mode_event_sets_the_effective_mode(
    make_bundle: BundleMaker, workspace: Path
) -> None:
    bundle = make(make_bundle)
    session = create_session(bundle)
    session.append(TurnStart(turn=1))
    session.append(SandboxModeChanged(mode="workspace-write", source="test"))
    results, _ = run_step(bundle, workspace, propose(("write", {})), session)
    assert results[0].value == {"mode": "workspace-write"}


# -- checkpoint ---------------------------------------------------------------------------------


def test_the_checkpoint_precedes_the_body(make_bundle: BundleMaker, workspace: Path) -> None:
    bundle = make(make_bundle, "flush")
    results, _session = run_step(bundle, workspace, propose(("write", {})))
    assert codes(results) == ["ok"]
    flushes = plugin_state(bundle, "flush").flushes
    assert flushes[0][-1] == "tool/dispatch", "the dispatch record is flushed before the body"
    assert bundle.barriers


def test_a_failed_checkpoint_never_runs_the_body(make_bundle: BundleMaker, workspace: Path) -> None:
    bundle = make(make_bundle, "flush")
    plugin_state(bundle, "flush").fail.append(True)
    results, _session = run_step(bundle, workspace, propose(("write", {}), ("read", {})))
    assert codes(results) == ["CHECKPOINT_FAILED", "CHECKPOINT_FAILED"]
    assert "storage gone" in results[0].content
    assert runs(bundle) == []


def test_cancellation_aborts_what_was_not_dispatched(
    make_bundle: BundleMaker, workspace: Path
) -> None:
    bundle = make(make_bundle)
    cancelled = asyncio.Event()
    cancelled.set()
    results, session = run_step(
        bundle, workspace, propose(("read", {}), ("write", {})), cancelled=cancelled
    )
    assert codes(results) == ["ABORTED_BEFORE_DISPATCH"] * 2
    assert runs(bundle) == []
    assert "tool/dispatch" not in types(session)


def test_cancellation_drains_started_bodies_and_aborts_queued_ones(
    make_bundle: BundleMaker, workspace: Path
) -> None:
    bundle = make(make_bundle)
    session = create_session(bundle)
    session.append(TurnStart(turn=1))
    pipeline = ToolPipeline(bundle, session, workspace, ApprovalService(), parallelism=2)
    cancelled = asyncio.Event()

    async def cancel_while_the_first_two_run() -> list[ToolResult]:
        calls = propose(*[("read", {"ms": 100})] * 4)
        step = asyncio.create_task(pipeline.run_step(1, 1, calls, cancelled))
        await asyncio.sleep(0.03)
        cancelled.set()
        return await step

    results = asyncio.run(cancel_while_the_first_two_run())
    assert codes(results) == ["ok", "ok", "ABORTED_BEFORE_DISPATCH", "ABORTED_BEFORE_DISPATCH"]
    started = [call for kind, _, call in runs(bundle) if kind == "start"]
    ended = [call for kind, _, call in runs(bundle) if kind == "end"]
    assert started == ended == ["c1", "c2"], "started bodies were awaited, queued ones never ran"


# -- bodies -------------------------------------------------------------------------------------


def test_a_raising_body_is_a_tool_error(make_bundle: BundleMaker, workspace: Path) -> None:
    results, _ = run_step(make(make_bundle), workspace, propose(("fail", {})))
    assert codes(results) == ["TOOL_ERROR"]
    assert "disk on fire" in results[0].content


@pytest.mark.parametrize(
    ("tool", "code"), [("read", "TOOL_TIMEOUT"), ("write", "TOOL_OUTCOME_UNKNOWN")]
)
def test_a_slow_body_times_out(
    make_bundle: BundleMaker, workspace: Path, tool: str, code: str
) -> None:
    """A read-only body stopped by its timeout timed out; a writing one may have had its effect."""
    bundle = make(make_bundle)
    session = create_session(bundle)
    session.append(TurnStart(turn=1))
    pipeline = ToolPipeline(bundle, session, workspace, ApprovalService(), tool_timeout=0.05)
    results = asyncio.run(pipeline.run_step(1, 1, propose((tool, {"ms": 2000})), asyncio.Event()))
    assert codes(results) == [code]
    if tool == "write":
        assert results[0].meta["stopped"] == "TOOL_TIMEOUT"
        assert "reconcile" in results[0].content


# -- ordering -----------------------------------------------------------------------------------


def test_results_commit_in_model_order_while_reads_run_in_parallel(
    make_bundle: BundleMaker, workspace: Path
) -> None:
    bundle = make(make_bundle)
    calls = propose(("read", {"ms": 60}), ("read", {"ms": 30}), ("read", {"ms": 1}))
    results, session = run_step(bundle, workspace, calls)
    assert [r.call_id for r in results] == ["c1", "c2", "c3"]
    committed = [r.data["call_id"] for r in session.records if r.type == "tool/result"]
    assert committed == ["c1", "c2", "c3"]
    ends = [call for kind, _, call in runs(bundle) if kind == "end"]
    assert ends == ["c3", "c2", "c1"], "the bodies really overlapped"
    assert plugin_state(bundle, "probe").active[1] == 3
    calls_first = types(session)[1:4]
    assert calls_first == ["tool/call"] * 3, (
        "intent is recorded for every call before anything else"
    )


def test_exclusive_calls_are_barriers(make_bundle: BundleMaker, workspace: Path) -> None:
    bundle = make(make_bundle)
    calls = propose(
        ("read", {"ms": 30}), ("write", {"ms": 1}), ("read", {"ms": 1}), ("read", {"ms": 1})
    )
    run_step(bundle, workspace, calls)
    sequence = [(kind, call) for kind, _, call in runs(bundle)]
    assert sequence.index(("end", "c1")) < sequence.index(("start", "c2"))
    assert sequence.index(("end", "c2")) < sequence.index(("start", "c3"))


def test_additional_contexts_follow_all_results(make_bundle: BundleMaker, workspace: Path) -> None:
    _results, session = run_step(make(make_bundle), workspace, propose(("hint", {}), ("read", {})))
    assert types(session)[-3:] == ["tool/result", "tool/result", "agent/inbox/spliced"]
    assert session.records[-1].data["contexts"] == ("remember c1",)


def test_decision_path_is_recorded_with_the_result(
    make_bundle: BundleMaker, workspace: Path
) -> None:
    bundle = make(make_bundle, "policy", "answerer")
    results, session = run_step(bundle, workspace, propose(("write", {"path": "ask-yes"})))
    decisions = results[0].meta["decisions"]
    assert [(d["stage"], d["verdict"], d["plugin"]) for d in decisions] == [
        ("policy", "ask", "policy"),
        ("approval", "allowed-once", "answerer"),
    ]
    stored = session.records[-1].data["meta"]["decisions"]
    assert stored[0]["reason"] == "path needs a human"


def test_an_approval_is_never_reused(make_bundle: BundleMaker, workspace: Path) -> None:
    bundle = make(make_bundle, "policy", "answerer")
    session = create_session(bundle)
    session.append(TurnStart(turn=1))
    pipeline = ToolPipeline(bundle, session, workspace, ApprovalService())
    first = asyncio.run(
        pipeline.run_step(1, 1, propose(("write", {"path": "ask-yes"})), asyncio.Event())
    )
    replay = asyncio.run(
        pipeline.run_step(1, 2, propose(("write", {"path": "ask-no"})), asyncio.Event())
    )
    assert codes(first) == ["ok"]
    assert codes(replay) == ["APPROVAL_REJECTED"]
    decided = [r.data["id"] for r in session.records if r.type == "approval/decided"]
    assert len(decided) == 2, (
        "the replayed call id was asked again, not granted by the old approval"
    )


ASKING_FLOOR = """
asked = []
@hookimpl
def tools_pre_execute(self, call):
    return Decision.ask("every write needs a human")
@hookimpl
def tools_guard(self, call):
    if call.arguments.get("path") == "floor":
        return Decision.deny("below the floor")
    return None
@hookimpl
def approval_request(self, request):
    Plugin.asked.append(request.call_id)
    return ApprovalOutcome.ALLOWED_ONCE
"""


def test_guards_run_before_approval_so_nobody_is_asked_about_a_denied_call(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = make_bundle(
        {
            "probe": PROBE_MODULE + plugin_source(PROBE, name="probe"),
            "floor": plugin_source(ASKING_FLOOR, name="floor"),
        }
    )
    results, session = run_step(
        bundle, tmp_path, propose(("write", {"path": "floor"}), ("write", {"path": "ok"}))
    )
    assert codes(results) == ["DENIED_BY_GUARD", "ok"]
    assert plugin_state(bundle, "floor").asked == ["c2"]  # the floor's call was never asked
    asked = [r.data["call_id"] for r in session.records if r.type == "approval/asked"]
    assert asked == ["c2"]
    assert [r[2] for r in runs(bundle) if r[0] == "start"] == ["c2"]


OBSERVER = """
seen = []
@hookimpl
def tools_result(self, call, result):
    Plugin.seen.append((call.call_id if call is not None else None, result.call_id,
                        result.error.code if result.error else "ok"))
"""


def test_result_observers_see_every_settled_call_refusals_included(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = make_bundle(
        {
            "probe": PROBE_MODULE + plugin_source(PROBE, name="probe"),
            "policy": plugin_source(POLICY, name="policy"),
            "answerer": plugin_source(ANSWERER, name="answerer"),
            "observer": plugin_source(OBSERVER, name="observer"),
        }
    )
    proposals = propose(
        ("nope", {}),
        ("read", "{not json"),
        ("read", {"path": "deny"}),
        ("read", {"path": "floor"}),
        ("read", {"path": "ask-no"}),
        ("read", {"path": "fine"}),
    )
    results, _ = run_step(bundle, tmp_path, proposals)
    expected = [
        "UNKNOWN_TOOL",
        "INVALID_ARGUMENTS",
        "DENIED_BY_POLICY",
        "DENIED_BY_GUARD",
        "APPROVAL_REJECTED",
        "ok",
    ]
    assert codes(results) == expected
    seen = plugin_state(bundle, "observer").seen
    # in model order; no invocation exists yet for the first two refusals
    assert seen == [
        (None, "c1", "UNKNOWN_TOOL"),
        (None, "c2", "INVALID_ARGUMENTS"),
        ("c3", "c3", "DENIED_BY_POLICY"),
        ("c4", "c4", "DENIED_BY_GUARD"),
        ("c5", "c5", "APPROVAL_REJECTED"),
        ("c6", "c6", "ok"),
    ]


COUNTING_CONFINE = """
requests = []
@hookimpl
def sandbox_confine(self, request):
    Plugin.requests.append(request.argv)
    return ConfinedCommand(request.argv, dict(request.env), "counting", "partial",
                           lambda code, err: "ok")
@hookimpl
def tools_register(self, register):
    async def body(ctx):
        result = await ctx.runner.run(("true",))
        return ToolOutput(str(result.returncode))
    schema = {"type": "object", "properties": {}, "additionalProperties": False}
    register(ToolSpec("spawn_true", "runs true", schema, {}, "write", False,
                      body, runs_subprocesses=True))
"""


def test_sandbox_confine_runs_once_per_call_after_one_readiness_probe_per_mode(
    make_bundle: BundleMaker, tmp_path: Path
) -> None:
    bundle = make_bundle(
        {
            "confiner": plugin_source(
                COUNTING_CONFINE, name="confiner", provides='["sandbox/confine"]'
            )
        },
        profile='[sandbox]\nmode = "workspace-write"\n',
    )
    proposals = [ToolCallProposal(f"c{n}", "spawn_true", "{}") for n in range(1, 4)]
    results, _ = run_step(bundle, tmp_path, proposals)
    assert codes(results) == ["ok", "ok", "ok"]
    # one probe for workspace-write, then exactly one confinement per call's subprocess
    assert plugin_state(bundle, "confiner").requests == [("true",)] * 4
