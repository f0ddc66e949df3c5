"""Approval requests built by hand, for the tests that ask one answerer directly."""

from __future__ import annotations

from typing import Any

from seamhost.approval.request import ApprovalRequest
from seamhost.jsonvalue import digest, freeze
from seamhost.sandbox.policy import SandboxMode


def request(
    tool: str = "write_file",
    arguments: dict[str, Any] | None = None,
    *,
    call_id: str = "call-1-1-1",
    reason: str = "files under release/ are what ships",
    escalation: SandboxMode | None = None,
    justification: str | None = None,
) -> ApprovalRequest:
    arguments = {"path": "release/VERSION"} if arguments is None else arguments
    return ApprovalRequest(
        id=f"approval-{call_id}",
        session_id="s",
        call_id=call_id,
        tool=tool,
        reason=reason,
        args_digest=digest(arguments),
        arguments=freeze(arguments),
        sandbox_mode=SandboxMode.WORKSPACE_WRITE,
        escalation=escalation,
        justification=justification,
    )
