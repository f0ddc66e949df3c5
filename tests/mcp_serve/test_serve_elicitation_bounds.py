"""Elicitation is one answerer, not an override: what an always-accepting client cannot approve.

Each test drives a real ``seamhost mcp serve`` with the SDK's client whose elicitation callback
accepts every question (``allow_once = true``). The profile's policy, its floors and its
approval rules decide first and are final; the client's user answers only what they leave to
ask, and a sandbox escalation only where ``[gateway] elicitation_may_escalate = true``.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp_types as types
import pytest

from tests.mcp_serve.kit import Rig, answering, assert_refused, outcomes, session_of, text
from tests.served import of_type, well_formed

TRANSPORTS = pytest.mark.parametrize("transport", ["stdio", "http"])

# A reject rule of the approval chain, and a floor: both final, whatever the client says.
BOUNDS = """
[[plugins.user-approval.rules]]
tool = "write_file"
args = { path = "ask/reject/*" }
decision = "reject"
reason = "nothing is written under ask/reject/"

[[plugins.tool-policy.floor]]
tool = "write_file"
path = "floor/**"
reason = "floor/ is never written"
"""

MAY_ESCALATE = "\n[gateway]\nelicitation_may_escalate = true\n"


@TRANSPORTS
def test_an_accepting_client_cannot_override_a_reject_rule_a_floor_or_a_deny(
    tmp_path: Path, transport: str
) -> None:
    rig = Rig(tmp_path, extra=BOUNDS)
    for directory in ("ask/rule", "ask/reject", "floor", "secret"):
        (rig.workspace / directory).mkdir(parents=True)
    accept = answering("accept", {"allow_once": True})

    async def main() -> list[types.CallToolResult]:
        async with rig.connect(elicitation=accept, transport=transport) as (client, _):
            return [
                await client.call_tool("write_file", {"path": path, "content": "x"})
                for path in ("ask/reject/r.txt", "floor/f.txt", "secret/s.txt", "ask/rule/a.txt")
            ]

    rejected, floored, denied, by_rule = anyio.run(main)
    assert_refused(rejected, "APPROVAL_REJECTED")
    assert "nothing is written under ask/reject/" in text(rejected)
    assert_refused(floored, "DENIED_BY_POLICY")  # tool-policy votes its floors first too
    assert "floor/ is never written" in text(floored)
    assert_refused(denied, "DENIED_BY_POLICY")
    assert not by_rule.is_error, text(by_rule)
    # The profile answered all four; its user was never asked.
    assert accept.questions == []  # type: ignore[attr-defined]
    for path in ("ask/reject/r.txt", "floor/f.txt", "secret/s.txt"):
        assert not (rig.workspace / path).exists()
    records = rig.records(session_of(rejected))
    well_formed(records)
    decided = of_type(records, "approval/decided")
    assert [(d["outcome"], d.get("answerer")) for d in decided] == [
        ("rejected", "user-approval"),
        ("allowed-once", "user-approval"),
    ]
    assert list(outcomes(records).values()) == [
        "APPROVAL_REJECTED",
        "DENIED_BY_POLICY",
        "DENIED_BY_POLICY",
        "ok",
    ]


ESCALATE = {
    "sandbox_permissions": "danger-full-access",
    "justification": "the build cache lives outside the workspace",
}


def escalated_touch(
    rig: Rig, target: Path, transport: str
) -> tuple[types.CallToolResult, list[str]]:
    accept = answering("accept", {"allow_once": True})

    async def main() -> types.CallToolResult:
        async with rig.connect(elicitation=accept, transport=transport) as (client, _):
            return await client.call_tool("shell", {"command": f"touch {target}", **ESCALATE})

    return anyio.run(main), accept.questions  # type: ignore[attr-defined]


@TRANSPORTS
def test_an_accepting_client_cannot_grant_danger_full_access_by_default(
    tmp_path: Path, transport: str
) -> None:
    rig = Rig(tmp_path)
    target = tmp_path / "outside" / "escalated"
    target.parent.mkdir()
    result, questions = escalated_touch(rig, target, transport)
    assert_refused(result, "APPROVAL_UNAVAILABLE")
    assert "elicitation_may_escalate" in text(result)  # says what the operator can set
    assert questions == []  # the client is not asked about an escalation
    assert not target.exists()
    records = rig.records(session_of(result))
    well_formed(records)
    (asked,) = of_type(records, "approval/asked")
    assert asked["escalation"] == "danger-full-access"
    assert [d["outcome"] for d in of_type(records, "approval/decided")] == ["unavailable"]
    assert of_type(records, "tool/dispatch") == []


def test_with_elicitation_may_escalate_the_client_is_asked_with_the_justification(
    tmp_path: Path,
) -> None:
    rig = Rig(tmp_path, extra=MAY_ESCALATE)
    target = tmp_path / "outside" / "escalated"
    target.parent.mkdir()
    result, questions = escalated_touch(rig, target, "stdio")
    assert not result.is_error, text(result)
    assert target.exists()  # ran unconfined, as the client's user allowed once
    (question,) = questions
    assert "danger-full-access" in question
    assert "the build cache lives outside the workspace" in question
    assert "None" not in question
    records = rig.records(session_of(result))
    well_formed(records)
    (asked,) = of_type(records, "approval/asked")
    assert "the build cache lives outside the workspace" in asked["reason"]
    decided = of_type(records, "approval/decided")
    assert [(d["outcome"], d.get("answerer")) for d in decided] == [
        ("allowed-once", "mcp-elicitation")
    ]
