"""The ``[plugins.tools-a2a]`` profile table: its JSON Schema and the settings read from it.

One sub-table per remote agent, ``[plugins.tools-a2a.agents.NAME]``: ``url`` (where its Agent
Card is served, at ``card_path`` below it), ``token`` (sent as ``Authorization: Bearer``; give it
as ``{ "$env" = "VAR" }``, which the kernel resolves when the profile loads, so the secret is
never written in the profile or recorded), the timeouts, what policy may believe of the agent
(``effect``, ``idempotent``: by default a delegation may change things and is not idempotent),
and ``pin``, the Agent Card digest the operator accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from seamhost.errors import ConfigError

NAME = "tools-a2a"
AGENT_NAME = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"
PIN = r"^sha256:[0-9a-f]{64}$"
CARD_PATH = "/.well-known/agent-card.json"

_AGENT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "url": {
            "type": "string",
            "pattern": "^https?://",
            "description": "The agent's base URL; its Agent Card is at card_path below it.",
        },
        "card_path": {
            "type": "string",
            "pattern": "^/",
            "description": f"Where the Agent Card is served (default {CARD_PATH}).",
        },
        "token": {
            "type": "string",
            "minLength": 1,
            "description": 'Sent as "Authorization: Bearer TOKEN" (give it as {"$env" = VAR}).',
        },
        "connect_timeout_s": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": "How long fetching the card or connecting may take (default 10).",
        },
        "timeout_s": {
            "type": "number",
            "exclusiveMinimum": 0,
            "description": "How long a delegation may wait for its task to end (default 300).",
        },
        "effect": {
            "enum": ["read-only", "write"],
            "description": "What the agent does (default write: it may have side effects).",
        },
        "idempotent": {
            "type": "boolean",
            "description": "Sending the same message twice is harmless (default false).",
        },
        "pin": {"type": "string", "pattern": PIN, "description": "The accepted card digest."},
    },
    "required": ["url"],
    "additionalProperties": False,
}

CONFIG_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "agents": {
            "type": "object",
            "propertyNames": {"pattern": AGENT_NAME},
            "additionalProperties": _AGENT,
            "description": "The remote A2A agents, by name; each is mounted as tool a2a__NAME.",
        },
    },
    "additionalProperties": False,
}


class AgentSettings(NamedTuple):
    """One ``[plugins.tools-a2a.agents.NAME]`` table, defaults filled in."""

    name: str
    url: str
    card_path: str = CARD_PATH
    token: str | None = None
    connect_timeout_s: float = 10.0
    timeout_s: float = 300.0
    effect: str = "write"
    idempotent: bool = False
    pin: str | None = None

    @property
    def card_url(self) -> str:
        return self.url.rstrip("/") + self.card_path

    def headers(self) -> dict[str, str]:
        """The HTTP headers of every request to the agent (the card's too)."""
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}


def agents_from_config(config: Mapping[str, Any], source: str) -> tuple[AgentSettings, ...]:
    """The agents of a table valid against `CONFIG_SCHEMA`; `ConfigError` for the rest."""
    agents = []
    for name, table in dict(config.get("agents", {})).items():
        key = f"plugins.{NAME}.agents.{name}"
        values = dict(table)
        if "token" in values and not str(values["token"]).strip():
            raise ConfigError(source, f"{key}.token", "is empty: set the variable it names")
        for number in ("connect_timeout_s", "timeout_s"):
            if number in values:
                values[number] = float(values[number])
        agents.append(AgentSettings(name=name, **values))
    return tuple(agents)
