"""``seamhost mcp serve`` over stdio, driven by the official Python SDK's client.

Each test starts a real server child process through ``mcp.client.stdio`` and checks both
sides: what the client receives (content, structuredContent, isError, _meta) and what the
session's log holds afterwards (read back by ``seamhost session show``), always well formed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from tests.mcp_serve.kit import Rig, answering, assert_refused, outcomes, session_of, text
from tests.served import of_type, well_formed

TRANSPORTS = pytest.mark.parametrize("transport", ["stdio", "http"])


def test_tools_list_carries_schemas_and_annotations_from_the_declarations(tmp_path: Path) -> None:
    rig = Rig(tmp_path)

    async def main() -> tuple[types.InitializeResult, types.ListToolsResult]:
        async with rig.connect() as (client, init):
            return init, await client.list_tools()

    init, listed = anyio.run(main)
    tools = {tool.name: tool for tool in listed.tools}
    assert {"read_file", "write_file", "shell"} <= set(tools)
    read, write = tools["read_file"], tools["write_file"]
    assert read.annotations is not None
    assert write.annotations is not None
    assert (read.annotations.read_only_hint, read.annotations.destructive_hint) == (True, False)
    assert (write.annotations.read_only_hint, write.annotations.destructive_hint) == (False, True)
    assert read.input_schema["type"] == "object"
    assert "path" in read.input_schema["properties"]
    assert read.output_schema is not None
    assert read.output_schema["type"] == "object"
    # shell may ask for a wider sandbox: its schema offers the escalation fields.
    assert "sandbox_permissions" in tools["shell"].input_schema["properties"]
    assert init.instructions is not None
    assert "session " in init.instructions


def test_calls_allowed_denied_unknown_and_invalid_all_reach_the_log(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    (rig.workspace / "notes.txt").write_text("hello\n")

    async def main() -> tuple[str, list[types.CallToolResult]]:
        async with rig.connect() as (client, init):
            results = [
                await client.call_tool("read_file", {"path": "notes.txt"}),
                await client.call_tool("write_file", {"path": "secret/key", "content": "x"}),
                await client.call_tool("no_such_tool", {}),
                await client.call_tool("read_file", {"wrong": 1}),
            ]
            assert init.instructions is not None
            return init.instructions, results

    instructions, (read, denied, unknown, invalid) = anyio.run(main)
    assert not read.is_error
    assert text(read) == "hello\n"
    assert read.structured_content is not None
    assert read.structured_content["content"] == "hello\n"
    session_id = session_of(read)
    assert session_id in instructions
    assert {session_of(r) for r in (denied, unknown, invalid)} == {session_id}
    for result, code in (
        (denied, "DENIED_BY_POLICY"),
        (unknown, "UNKNOWN_TOOL"),
        (invalid, "INVALID_ARGUMENTS"),
    ):
        assert result.is_error
        assert text(result).startswith(code)
        assert result.meta is not None
        assert result.meta["seamhost/error"]["code"] == code
        assert result.structured_content is None
    assert not (rig.workspace / "secret").exists()
    records = rig.records(session_id)
    well_formed(records)
    assert list(outcomes(records).values()) == [
        "ok",
        "DENIED_BY_POLICY",
        "UNKNOWN_TOOL",
        "INVALID_ARGUMENTS",
    ]
    assert [m["source"] for m in of_type(records, "user/message")] == ["mcp"] * 4


def elicited_write(
    rig: Rig, path: str, answer: Any, transport: str = "stdio"
) -> tuple[types.CallToolResult, list[str]]:
    async def main() -> types.CallToolResult:
        async with rig.connect(elicitation=answer, transport=transport) as (client, _):
            return await client.call_tool("write_file", {"path": path, "content": "v1\n"})

    return anyio.run(main), answer.questions


@TRANSPORTS
def test_an_ask_becomes_an_elicitation_accept_allows_that_call_once(
    tmp_path: Path, transport: str
) -> None:
    rig = Rig(tmp_path)
    (rig.workspace / "ask").mkdir()
    accept = answering("accept", {"allow_once": True})
    result, questions = elicited_write(rig, "ask/a.txt", accept, transport)
    assert not result.is_error, text(result)
    assert (rig.workspace / "ask" / "a.txt").read_text() == "v1\n"
    # The question names the tool, the reason and the call.
    assert len(questions) == 1
    assert "write_file" in questions[0]
    assert "a person decides about ask/" in questions[0]
    assert "ask/a.txt" in questions[0]
    records = rig.records(session_of(result))
    well_formed(records)
    decided = of_type(records, "approval/decided")
    assert [(d["outcome"], d.get("answerer")) for d in decided] == [
        ("allowed-once", "mcp-elicitation")
    ]


@TRANSPORTS
def test_decline_rejects_cancel_cancels_and_an_answer_outside_the_form_is_unavailable(
    tmp_path: Path,
    transport: str,
) -> None:
    rig = Rig(tmp_path)
    cases = [
        ({"action": "decline"}, "APPROVAL_REJECTED", "rejected"),
        ({"action": "cancel"}, "APPROVAL_CANCELLED", "cancelled"),
        (
            {"action": "accept", "content": {"allow_once": "yes"}},
            "APPROVAL_UNAVAILABLE",
            "unavailable",
        ),
        ({"action": "accept", "content": {"allow_once": False}}, "APPROVAL_REJECTED", "rejected"),
    ]
    replies = iter(types.ElicitResult.model_validate(reply) for reply, _, _ in cases)

    async def in_turn(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return next(replies)

    async def main() -> list[types.CallToolResult]:
        async with rig.connect(elicitation=in_turn, transport=transport) as (client, _):
            return [
                await client.call_tool("write_file", {"path": f"ask/{n}.txt", "content": "x"})
                for n in range(len(cases))
            ]

    results = anyio.run(main)
    for result, (_, code, _) in zip(results, cases, strict=True):
        assert_refused(result, code)
    records = rig.records(session_of(results[0]))
    well_formed(records)
    decided = [d["outcome"] for d in of_type(records, "approval/decided")]
    assert decided == [outcome for _, _, outcome in cases]
    assert of_type(records, "tool/dispatch") == []  # never dispatched
    assert not (rig.workspace / "ask").exists()


def test_an_unanswered_elicitation_times_out_closed(tmp_path: Path) -> None:
    rig = Rig(tmp_path, approval="timeout_seconds = 1")

    async def slow(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        await anyio.sleep(4)
        return types.ElicitResult(action="accept", content={"allow_once": True})

    slow.questions = []  # type: ignore[attr-defined]
    result, _ = elicited_write(rig, "ask/late.txt", slow)
    assert_refused(result, "APPROVAL_UNAVAILABLE")
    records = rig.records(session_of(result))
    well_formed(records)
    assert [d["outcome"] for d in of_type(records, "approval/decided")] == ["unavailable"]
    assert not (rig.workspace / "ask").exists()


@TRANSPORTS
def test_without_elicitation_the_profiles_rules_answer_and_the_terminal_is_never_asked(
    tmp_path: Path,
    transport: str,
) -> None:
    rig = Rig(tmp_path)
    (rig.workspace / "ask" / "rule").mkdir(parents=True)

    async def main() -> tuple[types.CallToolResult, types.CallToolResult]:
        async with rig.connect(transport=transport) as (client, _):  # no elicitation
            by_rule = await client.call_tool(
                "write_file", {"path": "ask/rule/r.txt", "content": "r"}
            )
            nobody = await client.call_tool("write_file", {"path": "ask/n.txt", "content": "n"})
            return by_rule, nobody

    by_rule, nobody = anyio.run(main)
    assert not by_rule.is_error, text(by_rule)
    assert (rig.workspace / "ask" / "rule" / "r.txt").read_text() == "r"
    assert nobody.is_error
    assert text(nobody).startswith("APPROVAL_UNAVAILABLE")
    records = rig.records(session_of(by_rule))
    well_formed(records)
    decided = of_type(records, "approval/decided")
    assert [(d["outcome"], d.get("answerer")) for d in decided] == [
        ("allowed-once", "user-approval"),
        ("unavailable", None),
    ], decided
    if transport == "stdio":  # the tty answerer was in the chain and passed without asking
        assert "the terminal is not asked here" in decided[1]["message"]


@TRANSPORTS
def test_an_escalation_is_asked_through_elicitation_with_its_mode(
    tmp_path: Path, transport: str
) -> None:
    # Only where the profile lets the client's user answer escalations (off by default:
    # test_serve_elicitation_bounds.py).
    rig = Rig(tmp_path, extra="\n[gateway]\nelicitation_may_escalate = true\n")
    answer = answering("decline")

    async def main() -> types.CallToolResult:
        async with rig.connect(elicitation=answer, transport=transport) as (client, _):
            return await client.call_tool(
                "shell",
                {
                    "command": "touch /tmp/escalated",
                    "sandbox_permissions": "danger-full-access",
                    "justification": "it writes outside the workspace",
                },
            )

    result = anyio.run(main)
    assert_refused(result, "APPROVAL_REJECTED")
    assert len(answer.questions) == 1  # type: ignore[attr-defined]
    assert "danger-full-access" in answer.questions[0]  # type: ignore[attr-defined]
    records = rig.records(session_of(result))
    well_formed(records)
    assert of_type(records, "approval/asked")[0]["escalation"] == "danger-full-access"


def test_a_call_cancelled_while_asked_and_a_failing_client_both_fail_closed(
    tmp_path: Path,
) -> None:
    rig = Rig(tmp_path)

    async def never(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        await anyio.sleep(60)
        raise AssertionError("unreachable")

    async def broken(context: Any, params: types.ElicitRequestParams) -> types.ErrorData:
        return types.ErrorData(code=-32603, message="the client's form crashed")

    async def cancel_while_asked() -> str:
        async with rig.connect(elicitation=never) as (client, init):
            assert init.instructions is not None
            with anyio.move_on_after(1.0):  # notifications/cancelled, then the client leaves
                await client.call_tool("write_file", {"path": "ask/c.txt", "content": "c"})
            return init.instructions.split("session ")[1].split()[0]

    async def failing_client() -> types.CallToolResult:
        async with rig.connect(elicitation=broken) as (client, _):
            return await client.call_tool("write_file", {"path": "ask/f.txt", "content": "f"})

    session_id = anyio.run(cancel_while_asked)
    records = rig.records(session_id)
    well_formed(records)
    assert [d["outcome"] for d in of_type(records, "approval/decided")] == ["cancelled"]
    assert list(outcomes(records).values()) == ["APPROVAL_CANCELLED"]
    failed = anyio.run(failing_client)
    assert_refused(failed, "APPROVAL_UNAVAILABLE")
    assert "the client's form crashed" in text(failed)
    records = rig.records(session_of(failed))
    well_formed(records)
    assert of_type(records, "tool/dispatch") == []
    assert not (rig.workspace / "ask").exists()


def test_a_deferred_approval_parks_the_session_until_answered_then_serve_continues_it(
    tmp_path: Path,
) -> None:
    rig = Rig(tmp_path, answerers='["defer"]')
    (rig.workspace / "ask").mkdir()

    async def first() -> tuple[types.CallToolResult, types.CallToolResult]:
        async with rig.connect() as (client, _):  # no elicitation: the profile's chain defers
            parked = await client.call_tool("write_file", {"path": "ask/d.txt", "content": "d"})
            later = await client.call_tool("list_dir", {"path": "."})
            return parked, later

    parked, later = anyio.run(first)
    assert_refused(parked, "APPROVAL_DEFERRED")
    assert_refused(later, "APPROVAL_DEFERRED")
    session_id = session_of(parked)
    records = rig.records(session_id)
    well_formed(records)  # a parked turn is open, not unfinished
    (asked,) = of_type(records, "approval/asked")
    approved = rig.cli("approve", session_id, asked["id"])
    assert approved.returncode == 0, approved.stderr
    assert not (rig.workspace / "ask" / "d.txt").exists()

    async def again() -> types.CallToolResult:
        async with rig.connect("--session", session_id) as (client, _):
            return await client.call_tool("list_dir", {"path": "."})

    listed = anyio.run(again)
    assert not listed.is_error, text(listed)
    assert (rig.workspace / "ask" / "d.txt").read_text() == "d"  # ran once, as approved
    records = rig.records(session_id)
    well_formed(records)
    assert list(outcomes(records).values()) == ["ok", "ok"]
    assert len(of_type(records, "tool/dispatch")) == 2
