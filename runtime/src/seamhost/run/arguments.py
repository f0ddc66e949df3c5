"""A call's inputs, read before governance: its arguments and its escalation request.

Each function here is one step of design.md §5 step 3 that governance (the caller, which owns the
proposal) takes in order, handing each what it needs: :func:`load_arguments` reads the model's
raw string as a lossless JSON object; for a tool that may escalate, :func:`lift_escalation` takes
the escalation fields out of it into the proposal; :func:`check_arguments` validates what is left
against the tool's compiled input schema and makes it the call's value, frozen, with its digest;
:func:`parse_escalation` checks that an escalation (`sandbox_permissions` with a
`justification`) names a strictly wider mode (§5, sandbox escalation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
import orjson

from seamhost import jsonvalue
from seamhost.errors import SeamhostError
from seamhost.sandbox.policy import SandboxMode

if TYPE_CHECKING:
    from seamhost.jsonvalue import FrozenDict
    from seamhost.llm.adapter import ToolCallProposal
    from seamhost.schema import Validator

ESCALATION_FIELDS = ("sandbox_permissions", "justification")


def load_arguments(raw: str) -> dict[str, Any] | str:
    """The model's raw arguments as a lossless JSON object, or a sentence saying why not."""
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
    return arguments


def check_arguments(
    validator: Validator, arguments: dict[str, Any]
) -> tuple[FrozenDict, str] | str:
    """The validated arguments, frozen, and their digest; or a sentence saying why invalid.

    `arguments` come from :func:`load_arguments`, so they are known lossless and the digest
    does not check them again.
    """
    violation = validator(arguments)
    if violation is not None:
        return violation.at("arguments")
    return jsonvalue.freeze(arguments), jsonvalue.digest(arguments, checked=True)


def lift_escalation(
    arguments: dict[str, Any], proposal: ToolCallProposal
) -> tuple[dict[str, Any], ToolCallProposal]:
    """The arguments without the escalation fields, and the proposal carrying them.

    A model that was shown the tool's model declaration
    (:meth:`~seamhost.tool.declaration.ToolSpec.model_declaration`) asks for escalation inside
    its arguments; a proposal that already carries the fields (a scripted model) keeps its own.
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
