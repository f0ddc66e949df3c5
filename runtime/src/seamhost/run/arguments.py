"""A call's inputs, read before governance: its arguments, its escalation, its sandbox mode.

The arguments are the model's raw string, parsed as JSON, checked lossless and validated against
the tool's input schema (design.md §5 step 3); an escalation request (`sandbox_permissions` with
a `justification`) must name a strictly wider mode (§5, sandbox escalation); the effective mode
is the last ``sandbox/mode`` event's, else the profile's (§5 step 7).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs
import orjson

from seamhost import jsonvalue
from seamhost.errors import SeamhostError
from seamhost.sandbox.policy import SandboxMode

if TYPE_CHECKING:
    from seamhost.llm.adapter import ToolCallProposal
    from seamhost.schema import Validator
    from seamhost.session.live import Session
    from seamhost.tool.declaration import ToolSpec


def effective_mode(session: Session, profile_mode: SandboxMode) -> SandboxMode:
    """The last ``sandbox/mode`` event's mode, else the profile's (design.md §5 step 7)."""
    record = session.last("sandbox/mode")
    return SandboxMode(record.data["mode"]) if record is not None else profile_mode


def parse_arguments(
    validator: Validator, raw: str, lift: Callable[[dict[str, Any]], dict[str, Any]] | None = None
) -> dict[str, Any] | str:
    """The validated arguments, or a sentence saying why they are invalid.

    `lift` takes the escalation fields out of the parsed object before it is validated.
    """
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
    parsed: dict[str, Any] = arguments if lift is None else lift(arguments)
    violation = validator(parsed)
    if violation is not None:
        return violation.at("arguments")
    return parsed


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


ESCALATION_FIELDS = ("sandbox_permissions", "justification")


def can_escalate(spec: ToolSpec) -> bool:
    """Whether calls of `spec` may ask for a wider sandbox mode (it writes or runs processes)."""
    return spec.effect == "write" or spec.runs_subprocesses


def model_declaration(spec: ToolSpec) -> dict[str, Any]:
    """The declaration the model is shown: an escalating tool's schema offers the two fields.

    Presentation only (design.md §12): the kernel takes them out of the arguments again
    (:func:`lift_escalation`) before the arguments are validated against the tool's own schema.
    """
    declared = spec.declaration()
    if not can_escalate(spec) or declared["input_schema"].get("type") != "object":
        return declared
    schema = dict(declared["input_schema"])
    properties = dict(schema.get("properties", {}))
    properties["sandbox_permissions"] = {
        "enum": [m.value for m in SandboxMode],
        "description": "a wider sandbox mode for this call only; a person is asked to approve",
    }
    properties["justification"] = {
        "type": "string",
        "description": "why this call needs the wider mode (required with sandbox_permissions)",
    }
    schema["properties"] = properties
    declared["input_schema"] = schema
    return declared


def lift_escalation(
    arguments: dict[str, Any], proposal: ToolCallProposal
) -> tuple[dict[str, Any], ToolCallProposal]:
    """The arguments without the escalation fields, and the proposal carrying them.

    A model that was shown :func:`model_declaration` asks for escalation inside its arguments;
    a proposal that already carries the fields (a scripted model) keeps its own.
    """
    if not any(name in arguments for name in ESCALATION_FIELDS):
        return arguments, proposal
    rest = {k: v for k, v in arguments.items() if k not in ESCALATION_FIELDS}
    if proposal.sandbox_permissions is None and proposal.justification is None:
        proposal = attrs.evolve(
            proposal,
            sandbox_permissions=arguments.get("sandbox_permissions"),
            justification=arguments.get("justification"),
        )
    return rest, proposal
