"""One test per seam of the catalogue, driven through a real bundle and the typed façade.

The meta-test (test_meta.py) requires a ``test_seam_<hook>`` here for every seam.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from seamhost.approval.request import ApprovalOutcome, ApprovalRequest
from seamhost.errors import ErrorCode, PluginConflict, PluginLoadError, SeamFailed, SeamUnavailable
from seamhost.jsonvalue import freeze
from seamhost.kernel import seams as facade
from seamhost.kernel.bundle import make_plugin_manager
from seamhost.kernel.catalogue import SEAMS
from seamhost.kernel.hookspecs import hookimpl, seam
from seamhost.kernel.modes import SEAM_ATTRIBUTE, Mode
from seamhost.kernel.seams import Seams
from seamhost.llm.adapter import ModelRequest, TextDelta
from seamhost.run.sessions import create_session
from seamhost.sandbox.confinement import ConfineRequest
from seamhost.sandbox.policy import SandboxMode
from seamhost.session.events import TurnStart
from seamhost.session.live import StepContext
from seamhost.tool.call import ToolExecution, ToolInvocation, ToolOutput
from seamhost.tool.decision import Decision, Verdict
from seamhost.tool.declaration import RegisteredTool, ToolSpec
from seamhost.tool.result import ToolResult
from tests.conftest import BundleMaker, plugin_source, plugin_state

TOOL = """
@hookimpl
def tools_register(self, register):
    async def body(ctx):
        return ToolOutput("ok")
    register(ToolSpec("{tool}", "a tool", {{"type": "object"}}, {{}},
                      "read-only", True, body))
"""


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def invocation(name: str = "probe") -> ToolInvocation:
    async def body(ctx: Any) -> ToolOutput:
        return ToolOutput("body ran")

    spec = ToolSpec(name, "probe", {"type": "object"}, {}, "write", False, body)
    return ToolInvocation(
        session_id="s",
        turn=1,
        step=1,
        call_id="c1",
        tool=RegisteredTool.of(spec, "test"),
        arguments=freeze({"x": 1}),
        args_digest="sha256:0",
        workspace=Path("/tmp"),
        sandbox_mode=SandboxMode.WORKSPACE_WRITE,
    )


def test_seam_tools_register(make_bundle: BundleMaker) -> None:
    bundle = make_bundle({"alpha": plugin_source(TOOL.format(tool="greet"), name="alpha")})
    tool = bundle.tools["greet"]
    assert tool.plugin == "alpha"
    assert tool.digest.startswith("sha256:")
    assert [t.name for t in bundle.snapshot.tools] == ["greet"]


def test_seam_tools_register_duplicate_names_both_plugins(make_bundle: BundleMaker) -> None:
    with pytest.raises(PluginConflict) as info:
        make_bundle(
            {
                "alpha": plugin_source(TOOL.format(tool="greet"), name="alpha"),
                "beta": plugin_source(TOOL.format(tool="greet"), name="beta"),
            }
        )
    assert set(info.value.claimants) == {"alpha", "beta"}
    assert "greet" in str(info.value)


def test_seam_tools_register_raising_is_reported_by_plugin(make_bundle: BundleMaker) -> None:
    body = "@hookimpl\ndef tools_register(self, register):\n    raise ValueError('bad tool')\n"
    with pytest.raises(PluginLoadError, match=r'plugin "alpha" failed to load .*bad tool'):
        make_bundle({"alpha": plugin_source(body, name="alpha")})


STORE = """
from seamhost.session.memory import MemoryStore as _Memory
class _Store(_Memory):
    name = "custom"
_store = _Store()
@hookimpl
def session_store(self):
    return self._store
"""


def test_seam_session_store(make_bundle: BundleMaker) -> None:
    bundle = make_bundle(
        {"store": plugin_source(STORE, name="store", provides='["session/store"]')}
    )
    assert bundle.store.name == "custom"
    assert create_session(bundle).header.durability["store"] == "custom"


def test_seam_session_store_missing_means_memory_only(make_bundle: BundleMaker) -> None:
    bundle = make_bundle({"alpha": plugin_source(TOOL.format(tool="t"), name="alpha")})
    assert bundle.store.name == "memory"
    assert not bundle.store.durable


def test_seam_session_store_two_providers_name_both(make_bundle: BundleMaker) -> None:
    with pytest.raises(PluginConflict, match='seam session/store is claimed by both "a" and "b"'):
        make_bundle(
            {
                "a": plugin_source(STORE, name="a", provides='["session/store"]'),
                "b": plugin_source(STORE, name="b", provides='["session/store"]'),
            }
        )


OBSERVER = """
seen = []
@hookimpl
def session_event(self, session, record):
    Plugin.seen.append((session.id, record.seq, record.type))
"""


def test_seam_session_event(make_bundle: BundleMaker) -> None:
    broken = "@hookimpl\ndef session_event(self, session, record):\n    raise RuntimeError('x')\n"
    bundle = make_bundle(
        {
            "broken": plugin_source(broken, name="broken"),
            "watch": plugin_source(OBSERVER, name="watch"),
        }
    )
    session = create_session(bundle, session_id="s1")
    record = session.append(TurnStart(turn=1))
    assert plugin_state(bundle, "watch").seen == [("s1", 0, "turn/start")]
    assert list(session.records) == [record], "a raising observer never undoes the append"


ASYNC_OBSERVER = """
seen = []
@hookimpl
async def session_event(self, session, record):
    Plugin.seen.append(record.seq)
"""


def test_seam_session_event_one_observer_alone(
    make_bundle: BundleMaker, caplog: pytest.LogCaptureFixture
) -> None:
    """A seam's one observer is called directly (no loop over observers), with the same
    rules: its raise is logged and contained, and a coroutine it returns is run."""
    broken = "@hookimpl\ndef session_event(self, session, record):\n    raise RuntimeError('x')\n"
    alone = make_bundle({"broken": plugin_source(broken, name="broken")})
    session = create_session(alone)
    with caplog.at_level("WARNING", logger="seamhost.seams"):
        record = session.append(TurnStart(turn=1))
    assert list(session.records) == [record], "a raising observer never undoes the append"
    assert "session/event observer 'broken' failed: RuntimeError: x" in caplog.text
    watching = make_bundle({"watch": plugin_source(ASYNC_OBSERVER, name="watch")})
    create_session(watching).append(TurnStart(turn=1))  # no running loop: run to its end
    assert plugin_state(watching, "watch").seen == [0]


FLUSHER = """
flushed = []
@hookimpl
async def session_flush(self, session):
    await asyncio.sleep(0)
    Plugin.flushed.append(session.next_seq)
"""


def test_seam_session_flush(make_bundle: BundleMaker) -> None:
    source = "import asyncio\n" + plugin_source(FLUSHER, name="flusher")
    bundle = make_bundle({"flusher": source})
    session = create_session(bundle)
    session.append(TurnStart(turn=1))
    run(session.flush())
    assert plugin_state(bundle, "flusher").flushed == [1]


FLAKY_FLUSHER = """
flushed = []
fail_next = False
@hookimpl
async def session_flush(self, session):
    if Plugin.fail_next:
        Plugin.fail_next = False
        raise OSError("disk full")
    Plugin.flushed.append(session.next_seq)
"""


def test_session_flush_reaches_the_seam_only_for_records_not_yet_durable(
    make_bundle: BundleMaker,
) -> None:
    bundle = make_bundle({"flusher": plugin_source(FLAKY_FLUSHER, name="flusher")})
    state = plugin_state(bundle, "flusher")
    session = create_session(bundle)
    run(session.flush())  # the first flush always reaches the store (it may publish the log)
    session.append(TurnStart(turn=1))
    run(session.flush())
    run(session.flush())  # nothing appended since: already durable, the store is not asked
    assert state.flushed == [0, 1]
    session.append(TurnStart(turn=2))
    state.fail_next = True
    with pytest.raises(SeamFailed, match="disk full"):
        run(session.flush())
    run(session.flush())  # the failed flush made nothing durable: this one must reach the store
    assert state.flushed == [0, 1, 2]


def test_seam_session_flush_missing_or_raising_fails_closed(make_bundle: BundleMaker) -> None:
    bundle = make_bundle({"alpha": plugin_source(TOOL.format(tool="t"), name="alpha")})
    with pytest.raises(SeamUnavailable, match="session/flush"):
        run(create_session(bundle).flush())
    failing = "@hookimpl\ndef session_flush(self, session):\n    raise OSError('no space')\n"
    bundle = make_bundle({"disk": plugin_source(failing, name="disk")})
    with pytest.raises(SeamFailed, match=r"disk.*no space"):
        run(create_session(bundle).flush())


STEP_LAYER = """
log = []
@hookimpl
async def agent_pre_step(self, ctx, call_next):
    Plugin.log.append((self.ctx.name, ctx.step))
    if ctx.step == 2:
        return None
    await call_next(ctx)
"""


def test_seam_agent_pre_step(make_bundle: BundleMaker) -> None:
    bundle = make_bundle({"gate": plugin_source(STEP_LAYER, name="gate")})
    ran: list[int] = []

    async def proceed(ctx: StepContext) -> None:
        ran.append(ctx.step)

    no_session: Any = None  # the chain under test never reads it
    run(bundle.seams.agent_pre_step(StepContext(no_session, 1, 1), proceed))
    run(bundle.seams.agent_pre_step(StepContext(no_session, 1, 2), proceed))
    assert ran == [1], "an implementation that does not call call_next stops the step"
    assert plugin_state(bundle, "gate").log == [("gate", 1), ("gate", 2)]


ADAPTER = """
class _Adapter:
    name = "echo"
    async def stream(self, request):
        yield TextDelta("hello")
@hookimpl
def llm_adapter(self):
    return self._Adapter()
"""


def request() -> ModelRequest:
    return ModelRequest("s", 1, 1, (), ())


def test_seam_llm_adapter(make_bundle: BundleMaker) -> None:
    source = "from seamhost.llm.adapter import TextDelta\n" + plugin_source(
        ADAPTER, name="echo", provides='["llm/adapter"]'
    )
    bundle = make_bundle({"echo": source})
    adapter = bundle.seams.llm_adapter()

    async def collect() -> list[Any]:
        return [e async for e in adapter.stream(request())]

    assert run(collect()) == [TextDelta("hello")]
    empty = make_bundle({"alpha": plugin_source(TOOL.format(tool="t"), name="alpha")})
    with pytest.raises(SeamUnavailable, match="llm/adapter"):
        empty.seams.llm_adapter()


REPLAY = """
@hookimpl
def llm_replay(self, path):
    from seamhost import Expectation

    class Script:
        workspace = {"seed.txt": path.read_text()}
        user_messages = ("hi",)

        def expectations(self, profile, first_turn):
            yield Expectation(f"call-{first_turn}-1-1", "t", profile)

    return Script()
"""


def test_seam_llm_replay(make_bundle: BundleMaker, tmp_path: Path) -> None:
    bundle = make_bundle(
        {"replayer": plugin_source(REPLAY, name="replayer", provides='["llm/replay"]')}
    )
    recorded = tmp_path / "s.txt"
    recorded.write_text("seeded")
    script = bundle.seams.llm_replay(recorded)
    assert script.workspace == {"seed.txt": "seeded"}
    assert list(script.user_messages) == ["hi"]
    assert list(script.expectations("ci", 3)) == [("call-3-1-1", "t", "ci")]
    broken = "@hookimpl\ndef llm_replay(self, path):\n    raise RuntimeError('bad file')\n"
    failing = make_bundle({"bad": plugin_source(broken, name="bad", provides='["llm/replay"]')})
    with pytest.raises(SeamFailed, match="bad file"):
        failing.seams.llm_replay(recorded)
    empty = make_bundle({"alpha": plugin_source(TOOL.format(tool="t"), name="alpha")})
    with pytest.raises(SeamUnavailable, match="llm/replay"):
        empty.seams.llm_replay(recorded)


SHOUT = """
@hookimpl
def llm_stream(self, request, call_next):
    async def shout():
        async for event in call_next(request):
            yield TextDelta(event.text.upper())
    return shout()
"""


def test_seam_llm_stream(make_bundle: BundleMaker) -> None:
    imports = "from seamhost.llm.adapter import TextDelta\n"
    bundle = make_bundle(
        {
            "shout": imports + plugin_source(SHOUT, name="shout"),
            "echo": imports + plugin_source(ADAPTER, name="echo", provides='["llm/adapter"]'),
        }
    )

    async def collect() -> list[Any]:
        adapter = bundle.seams.llm_adapter()
        return [e async for e in bundle.seams.llm_stream(request(), adapter.stream)]

    assert run(collect()) == [TextDelta("HELLO")]


def voter(verdict: str, kind: str = "tools_pre_execute") -> str:
    return (
        f"@hookimpl\ndef {kind}(self, call):\n    return Decision.{verdict}('{verdict} by rule')\n"
    )


def test_seam_tools_pre_execute(make_bundle: BundleMaker) -> None:
    bundle = make_bundle(
        {
            "lenient": plugin_source(voter("allow"), name="lenient"),
            "careful": plugin_source(voter("ask"), name="careful"),
        }
    )
    decision = run(bundle.seams.tools_pre_execute(invocation()))
    assert (decision.verdict, decision.plugin) == (Verdict.ASK, "careful")
    broken = "@hookimpl\ndef tools_pre_execute(self, call):\n    raise KeyError('rules')\n"
    bundle = make_bundle({"broken": plugin_source(broken, name="broken")})
    decision = run(bundle.seams.tools_pre_execute(invocation()))
    assert (decision.verdict, decision.plugin) == (Verdict.DENY, "broken")


def test_seam_tools_guard(make_bundle: BundleMaker) -> None:
    bundle = make_bundle({"floor": plugin_source(voter("deny", "tools_guard"), name="floor")})
    decision = run(bundle.seams.tools_guard(invocation()))
    assert (decision.verdict, decision.reason) == (Verdict.DENY, "deny by rule")
    bundle = make_bundle({"sneaky": plugin_source(voter("allow", "tools_guard"), name="sneaky")})
    assert run(bundle.seams.tools_guard(invocation())).verdict is Verdict.DENY


ANSWERER = """
asked = []
@hookimpl
def approval_request(self, request):
    Plugin.asked.append(self.ctx.name)
    return {answer}
"""


def approval() -> ApprovalRequest:
    return ApprovalRequest(
        id="a1",
        session_id="s",
        call_id="c1",
        tool="probe",
        reason="why",
        args_digest="d",
        arguments=freeze({}),
        sandbox_mode=SandboxMode.READ_ONLY,
    )


def test_seam_approval_request(make_bundle: BundleMaker) -> None:
    bundle = make_bundle(
        {
            "silent": plugin_source(ANSWERER.format(answer="None"), name="silent"),
            "yes": plugin_source(
                ANSWERER.format(answer="ApprovalOutcome.ALLOWED_ONCE"), name="yes"
            ),
            "no": plugin_source(ANSWERER.format(answer="ApprovalOutcome.REJECTED"), name="no"),
        }
    )
    answer = run(bundle.seams.approval_request(approval()))
    assert (answer.answer, answer.plugin) == (ApprovalOutcome.ALLOWED_ONCE, "yes")
    assert bundle.seams.implementers("approval/request") == ("silent", "yes", "no")
    bundle = make_bundle({"odd": plugin_source(ANSWERER.format(answer="'allowed'"), name="odd")})
    assert run(bundle.seams.approval_request(approval())).answer is None


TIMER = """
@hookimpl
async def tools_execute(self, execution, call_next):
    result = await call_next(execution)
    return result.__class__(result.call_id, result.content + " (timed)")
"""


def test_seam_tools_execute(make_bundle: BundleMaker) -> None:
    bundle = make_bundle({"timer": plugin_source(TIMER, name="timer")})
    call = invocation()

    async def body(execution: ToolExecution) -> ToolResult:
        return ToolResult(execution.invocation.call_id, "done")

    execution = ToolExecution(call, 1, asyncio.Event())
    assert run(bundle.seams.tools_execute(execution, body)).content == "done (timed)"
    broken = (
        "@hookimpl\nasync def tools_execute(self, execution, call_next):\n    raise OSError('x')\n"
    )
    bundle = make_bundle({"broken": plugin_source(broken, name="broken")})
    result = run(bundle.seams.tools_execute(execution, body))
    assert result.error is not None
    assert result.error.code == ErrorCode.TOOL_ERROR
    assert 'plugin "broken"' in result.error.message


CONFINER = """
@hookimpl
def sandbox_confine(self, request):
    return ConfinedCommand(("wrapped", *request.argv), {}, "fake", "partial", lambda rc, err: "ok")
"""


def test_seam_sandbox_confine(make_bundle: BundleMaker, tmp_path: Path) -> None:
    bundle = make_bundle(
        {"box": plugin_source(CONFINER, name="box", provides='["sandbox/confine"]')}
    )
    confined, plugin = run(
        bundle.seams.sandbox_confine(ConfineRequest(("true",), SandboxMode.READ_ONLY, tmp_path))
    )
    assert (confined.argv, confined.enforcement, plugin) == (("wrapped", "true"), "partial", "box")
    empty = make_bundle({"alpha": plugin_source(TOOL.format(tool="t"), name="alpha")})
    with pytest.raises(SeamUnavailable, match="sandbox/confine"):
        run(empty.seams.sandbox_confine(ConfineRequest(("true",), SandboxMode.READ_ONLY, tmp_path)))


REDACT = """
@hookimpl
def tools_post_execute(self, call, result):
    return Replace.with_content("[redacted]", reason="secrets")
"""


def test_seam_tools_post_execute(make_bundle: BundleMaker) -> None:
    bundle = make_bundle({"redact": plugin_source(REDACT, name="redact")})
    result = ToolResult("c1", "password=hunter2", value={"password": "hunter2"})
    out = run(bundle.seams.tools_post_execute(invocation(), result))
    assert out.content == "[redacted]"
    assert out.value == {"password": "hunter2"}
    assert out.meta["redactions"] == (
        {"plugin": "redact", "changes": "content", "reason": "secrets"},
    )
    blocker = "@hookimpl\ndef tools_post_execute(self, call, result):\n    return Block('leak')\n"
    bundle = make_bundle(
        {
            "block": plugin_source(blocker, name="block"),
            "redact": plugin_source(REDACT, name="redact"),
        }
    )
    out = run(bundle.seams.tools_post_execute(invocation(), result))
    assert out.error is not None
    assert out.error.code == ErrorCode.POST_EXECUTE_BLOCKED
    assert "hunter2" not in out.content
    assert 'plugin "block"' in out.error.message


def test_seam_tools_result(make_bundle: BundleMaker) -> None:
    watcher = (
        "seen = []\n@hookimpl\ndef tools_result(self, call, result):\n"
        "    Plugin.seen.append(result.content)\n"
    )
    broken = "@hookimpl\ndef tools_result(self, call, result):\n    raise RuntimeError('x')\n"
    bundle = make_bundle(
        {
            "broken": plugin_source(broken, name="broken"),
            "watch": plugin_source(watcher, name="watch"),
        }
    )
    bundle.seams.tools_result(invocation(), ToolResult("c1", "fine"))
    assert plugin_state(bundle, "watch").seen == ["fine"]


SERVICE = """
from seamhost.approval.service import ApprovalService as _Service
@hookimpl
def approval_service(self):
    return self._Service(default_policy="never", timeout=1.0)
"""


def test_seam_approval_service(make_bundle: BundleMaker) -> None:
    bundle = make_bundle(
        {"svc": plugin_source(SERVICE, name="svc", provides='["approval/service"]')}
    )
    service = bundle.seams.approval_service()
    assert service is not None
    assert (service.default_policy, service.timeout) == ("never", 1.0)
    empty = make_bundle({"alpha": plugin_source(TOOL.format(tool="t"), name="alpha")})
    assert empty.seams.approval_service() is None


# --------------------------------------------------------------------------------------------
# a seam's declaration is all the façade needs
# --------------------------------------------------------------------------------------------


class ToySpecs:
    """A seam declared as hookspecs declares each of the kernel's, and nowhere else."""

    @seam("toy/floor", Mode.GUARD, missing="allow")
    def toy_floor(self, call: ToolInvocation) -> Decision | None:
        """Seam ``toy/floor`` (guard): a floor the façade has no method for."""


class ToyFloor:
    @hookimpl
    def toy_floor(self, call: ToolInvocation) -> Decision:
        return Decision.deny(f"{call.tool.spec.name} is below the floor")


def test_a_seam_declared_once_is_driven_in_its_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    toy = getattr(ToySpecs.toy_floor, SEAM_ATTRIBUTE)
    monkeypatch.setattr(facade, "SEAMS", {**SEAMS, toy.name: toy})
    pm = make_plugin_manager((ToySpecs,))
    pm.register(ToyFloor(), name="floor")
    decision = run(Seams(pm).driver("toy/floor")(invocation()))
    assert (decision.verdict, decision.reason, decision.plugin) == (
        Verdict.DENY,
        "probe is below the floor",
        "floor",
    )


def test_every_seam_is_driven_by_its_mode_or_by_a_method_of_its_own() -> None:
    seams = Seams(make_plugin_manager())
    for declared in SEAMS.values():
        try:
            seams.driver(declared.name)
        except KeyError:
            assert callable(getattr(Seams, declared.hook, None)), declared.name
    with pytest.raises(KeyError):
        seams.driver("llm/stream")  # an around seam whose links stream: its own method drives it
