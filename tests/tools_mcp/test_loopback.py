"""The tests' own SDK server, told to misbehave: each case ends as design.md §13 says."""

from __future__ import annotations

import asyncio

import pytest

from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.agent import Agent
from tests.sandbox_local.conftest import working
from tests.tools_mcp.conftest import Area, loopback, one_call, run_turn

AGAIN = one_call("loop__echo", {"text": "again"}, call_id="second")


def test_the_idempotency_key_call_id_and_attempt_travel_in_meta(area: Area) -> None:
    profile = area.profile(loopback(area), scenario=one_call("loop__echo", {"text": "hi"}))
    run = run_turn(profile, area)
    assert run.codes == {"c1": "ok"}
    meta = run.values["c1"]["meta"]
    assert meta["seamhost/idempotency_key"] == f"{run.session.id}:c1"
    assert meta["seamhost/call_id"] == "c1"
    assert meta["seamhost/attempt"] == 1


def test_lying_annotations_loosen_nothing_unless_trusted(area: Area) -> None:
    untrusted = build_bundle(resolve_profile(str(area.profile(loopback(area)))))
    spec = untrusted.tools["loop__write_file"].spec
    assert (spec.effect, spec.idempotent, spec.concurrency_safe) == ("write", False, False)
    trusted = area.profile(loopback(area, "trust_annotations = true\n"), name="trusted.toml")
    spec = build_bundle(resolve_profile(str(trusted))).tools["loop__write_file"].spec
    assert (spec.effect, spec.idempotent, spec.concurrency_safe) == ("read-only", True, True)
    overridden = area.profile(
        loopback(
            area,
            """trust_annotations = true
            [plugins.tools-mcp.servers.loop.overrides.write_file]
            effect = "write"
            idempotent = false
            """,
        ),
        name="overridden.toml",
    )
    spec = build_bundle(resolve_profile(str(overridden))).tools["loop__write_file"].spec
    assert (spec.effect, spec.idempotent, spec.concurrency_safe) == ("write", False, True)
    assert spec.origin is not None
    assert spec.origin["overrides"] == ["effect", "idempotent"]


def test_a_dropped_response_is_an_unknown_outcome_never_a_retry(area: Area) -> None:
    profile = area.profile(
        loopback(area, "timeout_s = 1\n"),
        scenario=one_call("loop__hang", {}),
        plugins="[plugins.sandbox-local]\n[limits]\ntool_retries = 2\n",
    )
    run = run_turn(profile, area)
    assert run.codes == {"c1": "TOOL_OUTCOME_UNKNOWN"}
    assert run.dispatched == ("c1",)  # dispatched once: an unknown outcome is not retried
    assert "reconcile" in run.contents["c1"]


def test_a_dropped_response_of_a_trusted_read_only_tool_is_a_timeout(area: Area) -> None:
    extra = 'timeout_s = 1\n[plugins.tools-mcp.servers.loop.overrides.hang]\neffect = "read-only"\n'
    run = run_turn(area.profile(loopback(area, extra), scenario=one_call("loop__hang", {})), area)
    assert run.codes == {"c1": "TOOL_TIMEOUT"}


def test_a_crash_mid_call_is_unknown_and_the_next_call_reconnects(area: Area) -> None:
    scenario = """
    [[turn]]
    user = "go"
    final = "done"
    [[turn.step]]
    [[turn.step.call]]
    id = "boom"
    tool = "loop__crash"
    args = {}
    [[turn.step]]
    [[turn.step.call]]
    id = "after"
    tool = "loop__echo"
    args = { text = "still here" }
    """
    run = run_turn(area.profile(loopback(area), scenario=scenario), area)
    assert run.codes == {"boom": "TOOL_OUTCOME_UNKNOWN", "after": "ok"}
    assert "the answer was lost" in run.contents["boom"]


def test_a_request_that_never_left_is_not_sent(area: Area) -> None:
    profile = area.profile(loopback(area), scenario=one_call("loop__echo", {"text": "hi"}))
    bundle = build_bundle(resolve_profile(str(profile)))
    assert "loop__echo" in bundle.tools
    (area.state / "refuse-start").touch()  # the server will not start again
    run = run_turn(bundle, area)
    assert run.codes == {"c1": "TOOL_ERROR"}
    assert "not sent" in run.contents["c1"]


def test_a_tool_changed_within_the_bundle_is_refused(area: Area) -> None:
    profile = area.profile(loopback(area), scenario=one_call("loop__echo", {"text": "hi"}))
    bundle = build_bundle(resolve_profile(str(profile)))
    (area.state / "v2").touch()
    from seamhost.run.sessions import create_session

    session = create_session(bundle, cwd=str(area.workspace))
    try:
        outcome = asyncio.run(Agent(bundle, session, workspace=area.workspace).run_turn("go"))
    finally:
        session.close()
    assert outcome.reason == "completed"
    result = next(r.data for r in session.records if r.type == "tool/result")
    assert result["error"]["code"] == "TOOL_CHANGED"
    assert "nothing was sent" in result["error"]["message"]


def test_a_tool_changed_between_sessions_is_refused_until_re_pinned(area: Area) -> None:
    scenario = one_call("loop__echo", {"text": "hi"}, call_id="first")
    first = run_turn(area.profile(loopback(area), scenario=scenario), area)
    assert first.codes == {"first": "ok"}
    (area.state / "v2").touch()
    profile = area.profile(loopback(area), scenario=AGAIN, name="resume.toml")
    resumed = run_turn(profile, area, resume=first.session.id)
    assert resumed.codes["second"] == "TOOL_CHANGED"
    assert "re-pin" in resumed.contents["second"]
    new_digest = resumed.bundle.tools["loop__echo"].spec.origin["descriptor_digest"]  # type: ignore[index]
    pinned = loopback(
        area, f'[plugins.tools-mcp.servers.loop.overrides.echo]\npin = "{new_digest}"\n'
    )
    again = run_turn(
        area.profile(pinned, scenario=AGAIN, name="repinned.toml"), area, resume=first.session.id
    )
    assert again.codes["second"] == "ok"
    assert again.values["second"]["text"] == "AGAIN"


def test_a_pin_that_no_longer_matches_refuses_every_call(area: Area) -> None:
    stale = "sha256:" + "0" * 64
    profile = area.profile(
        loopback(area, f'pin = "{stale}"\n'), scenario=one_call("loop__echo", {"text": "x"})
    )
    run = run_turn(profile, area)
    assert run.codes == {"c1": "TOOL_CHANGED"}
    assert stale in run.contents["c1"]


def test_cancellation_sends_notifications_cancelled_and_waits(area: Area) -> None:
    profile = area.profile(
        loopback(area, "cancel_grace_s = 4\n"), scenario=one_call("loop__slow", {"seconds": 30})
    )
    log = area.root / "logs" / "loop.log"
    seen_while_waiting: list[bool] = []

    async def cancel_once_dispatched(agent: Agent) -> None:
        while not any(r.type == "tool/dispatch" for r in agent.session.records):
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)  # the request is on the wire and progress is flowing
        agent.cancel()
        # Within the grace, before the client gives up: the server saw the notification (it
        # says so on its stderr, which went to its log), and the call has not settled.
        for _ in range(30):
            await asyncio.sleep(0.1)
            if "cancelled" in log.read_text():
                break
        settled = any(r.type == "tool/result" for r in agent.session.records)
        seen_while_waiting.append("cancelled" in log.read_text() and not settled)

    run = run_turn(profile, area, during=cancel_once_dispatched)
    assert seen_while_waiting == [True]
    assert run.codes == {"c1": "TOOL_OUTCOME_UNKNOWN"}
    assert "notifications/cancelled" in run.contents["c1"]


@pytest.mark.parametrize("backend", ["bwrap", "landlock"])
@pytest.mark.parametrize("mode", ["workspace-write", "read-only"])
def test_a_confined_server_cannot_write_outside_the_workspace(
    area: Area, mode: str, backend: str
) -> None:
    working(backend)  # skips, saying why, where the backend cannot work on this machine
    target = area.outside / "escaped.txt"
    inside = area.workspace / "inside.txt"
    scenario = f"""
    [[turn]]
    user = "go"
    final = "done"
    [[turn.step]]
    [[turn.step.call]]
    id = "outside"
    tool = "loop__write_file"
    args = {{ path = "{target}", text = "escaped" }}
    [[turn.step]]
    [[turn.step.call]]
    id = "inside"
    tool = "loop__write_file"
    args = {{ path = "{inside}", text = "kept" }}
    """
    plugins = f'[plugins.sandbox-local]\nbackends = ["{backend}"]\n'
    run = run_turn(
        area.profile(loopback(area), scenario=scenario, mode=mode, plugins=plugins), area
    )
    assert run.codes["outside"] == "TOOL_ERROR"
    assert not target.exists()
    if mode == "workspace-write":
        assert run.codes["inside"] == "ok"
        assert inside.read_text() == "kept"
        assert run.metas["inside"]["server_backend"] == backend
    else:
        assert run.codes["inside"] == "TOOL_ERROR"
        assert not inside.exists()


def test_concurrent_calls_share_one_connection(area: Area) -> None:
    extra = "[plugins.tools-mcp.servers.loop.overrides.echo]\nconcurrency_safe = true\n"
    calls = "".join(
        f'[[turn.step.call]]\nid = "c{n}"\ntool = "loop__echo"\nargs = {{ text = "{n}" }}\n'
        for n in range(4)
    )
    scenario = '[[turn]]\nuser = "go"\nfinal = "done"\n[[turn.step]]\n' + calls
    run = run_turn(area.profile(loopback(area, extra), scenario=scenario), area)
    assert run.codes == {f"c{n}": "ok" for n in range(4)}
    assert [run.values[f"c{n}"]["text"] for n in range(4)] == ["0", "1", "2", "3"]
    # One start to list the tools at bundle build, one for the session's four calls.
    assert (area.root / "logs" / "loop.log").read_text().count("loopback: started") == 2


@pytest.mark.parametrize(
    ("server_mode", "session_mode", "writes", "backend"),
    [
        ("read-only", "workspace-write", False, None),  # the server's own, stricter mode
        (None, "danger-full-access", True, None),  # an unconfined session: still confined
        ("danger-full-access", "workspace-write", True, "none"),  # only when the table says so
    ],
)
def test_the_server_mode_is_its_own_and_never_silently_unconfined(
    area: Area, server_mode: str | None, session_mode: str, writes: bool, backend: str | None
) -> None:
    inside = area.workspace / "inside.txt"
    extra = f'sandbox = "{server_mode}"\n' if server_mode else ""
    scenario = one_call("loop__write_file", {"path": str(inside), "text": "kept"})
    run = run_turn(area.profile(loopback(area, extra), scenario=scenario, mode=session_mode), area)
    assert (run.codes["c1"] == "ok") is writes
    assert inside.exists() is writes
    if writes:
        expected = server_mode or "workspace-write"
        assert run.metas["c1"]["server_sandbox"] == expected
        if backend is not None:
            assert run.metas["c1"]["server_backend"] == backend
        else:
            assert run.metas["c1"]["server_backend"] in ("bwrap", "landlock")
