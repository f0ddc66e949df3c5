"""A remote agent as a seamhost tool: one tool per agent, ``a2a__NAME``.

One tool per agent, not per skill: A2A routes a message to an agent, never to a skill, so a
per-skill tool would promise a choice the protocol does not make. The skills are listed in the
tool's description (from the card), so the model knows what the agent offers. Input: the
``message`` text, and optional ``data`` (a JSON object sent as a data part).

**Effects are declared honestly.** A remote agent may do anything, so it is a ``write`` tool,
not idempotent, not concurrency-safe, unless its table says ``effect = "read-only"`` or
``idempotent = true``. It declares a status query: an unknown outcome is looked up by asking
the agent for its task (:mod:`.probing`).

**Pins.** The tool's origin records the agent's card and its digest at mount. A table ``pin``
that differs from the card served now keeps the tool registered but refuses every call with
``TOOL_CHANGED`` before anything is sent; a card that changes after mount is refused the same
way by the call itself (:mod:`.delegation`); a session resumed against another card than the
one its header recorded is refused by the plugin's ``tools/execute`` (unless the profile pins
the card served now: that is what re-pinning means).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from seamhost import ToolSpec
from seamhost_tools_a2a.delegation import delegate
from seamhost_tools_a2a.task_view import OUTPUT_SCHEMA

if TYPE_CHECKING:
    from seamhost_tools_a2a.card import Card
    from seamhost_tools_a2a.settings import AgentSettings

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "minLength": 1, "description": "What to ask the agent."},
        "data": {"type": "object", "description": "Structured data sent with the message."},
    },
    "required": ["message"],
    "additionalProperties": False,
}


def mounted_name(agent: str) -> str:
    return f"a2a__{agent}"


class MountedAgent:
    """One remote agent, with its card as found at mount and what policy may believe of it."""

    def __init__(self, agent: AgentSettings, card: Card) -> None:
        self.agent = agent
        self.card = card
        self.name = mounted_name(agent.name)
        self.read_only = agent.effect == "read-only"
        self.refusal: str | None = None
        if agent.pin is not None and agent.pin != card.digest:
            self.refusal = (
                f"{self.name}: the profile pins Agent Card {agent.pin}, but A2A agent "
                f"{agent.name!r} serves {card.digest}; nothing was sent. Check the change, "
                "then re-pin (`pin` in its table)."
            )

    @property
    def repinned(self) -> bool:
        return self.agent.pin is not None and self.refusal is None

    def description(self) -> str:
        parsed = self.card.parsed
        skills = "; ".join(f"{s.name}: {s.description}" for s in parsed.skills)
        text = f"Delegate a task to the remote A2A agent {parsed.name!r}: {parsed.description}"
        return f"{text} Skills: {skills}." if skills else text

    def origin(self) -> dict[str, Any]:
        origin: dict[str, Any] = {
            "kind": "a2a",
            "agent": self.agent.name,
            "url": self.agent.url,
            "card": dict(self.card.body),
            "descriptor_digest": self.card.digest,
            "effect": self.agent.effect,
            "idempotent": self.agent.idempotent,
        }
        if self.agent.pin is not None:
            origin["pin"] = self.agent.pin
        return origin

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description=self.description(),
            input_schema=INPUT_SCHEMA,
            output_schema=OUTPUT_SCHEMA,
            effect="read-only" if self.read_only else "write",
            concurrency_safe=self.read_only,
            body=functools.partial(delegate, self),
            idempotent=self.agent.idempotent,
            status_query=True,
            origin=self.origin(),
        )
