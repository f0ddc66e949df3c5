"""A call's inputs, read before governance: its arguments, its escalation, its sandbox mode.

The arguments are the model's raw string, parsed as JSON, checked lossless and validated against
the tool's input schema (design.md §5 step 3); an escalation request (`sandbox_permissions` with
a `justification`) must name a strictly wider mode (§5, sandbox escalation); the effective mode
is the last ``sandbox/mode`` event's, else the profile's (§5 step 7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from seamhost import jsonvalue
from seamhost.errors import SeamhostError
from seamhost.sandbox.policy import SandboxMode

if TYPE_CHECKING:
    from seamhost.llm.adapter import ToolCallProposal
    from seamhost.schema import Validator
    from seamhost.session.live import Session


def effective_mode(session: Session, profile_mode: SandboxMode) -> SandboxMode:
    """The last ``sandbox/mode`` event's mode, else the profile's (design.md §5 step 7)."""
    record = session.last("sandbox/mode")
    return SandboxMode(record.data["mode"]) if record is not None else profile_mode


def parse_arguments(validator: Validator, raw: str) -> dict[str, Any] | str:
    """The validated arguments, or a sentence saying why they are invalid."""
    try:
        arguments = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return f"arguments are not valid JSON: {exc}"
    if type(arguments) is not dict:
        return f"arguments must be a JSON object, got {type(arguments).__name__}"
    try:
        jsonvalue.check_lossless(arguments, "arguments")
    except jsonvalue.LossyValue as exc:
        return str(exc)
    violation = validator(arguments)
    if violation is not None:
        return violation.at("arguments")
    return arguments


class InvalidEscalation(SeamhostError, ValueError):
    """A call's sandbox escalation request is malformed or does not widen anything."""

    problem: str

    def __str__(self) -> str:
        return self.problem


def parse_escalation(proposal: ToolCallProposal, mode: SandboxMode) -> SandboxMode | None:
    """The requested wider mode, or ``None`` when none is requested; raises when invalid."""
    requested, justification = proposal.sandbox_permissions, proposal.justification
    if requested is None and justification is None:
        return None
    if requested is None or justification is None:
        raise InvalidEscalation("sandbox_permissions and justification must be given together")
    if not str(justification).strip():
        raise InvalidEscalation("justification must not be empty")
    try:
        wanted = SandboxMode(requested)
    except ValueError:
        choices = ", ".join(m.value for m in SandboxMode)
        raise InvalidEscalation(
            f"sandbox_permissions {requested!r} is not a mode ({choices})"
        ) from None
    if not wanted.widens(mode):
        raise InvalidEscalation(
            f"{wanted} is not wider than the effective mode {mode}; nothing to escalate"
        )
    return wanted
