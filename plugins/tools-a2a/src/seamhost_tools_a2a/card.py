"""An agent's Agent Card: fetched, checked to be valid A2A, digested, compared.

The card is fetched with the agent's bearer token (an agent may keep its card behind it) and
must be a JSON object that the SDK parses as an ``AgentCard`` with every field the protocol
marks REQUIRED (``name``, ``description``, ``version``, ``supportedInterfaces``, the default
modes, ``skills``...); anything else is refused naming the agent and what is wrong. Its
**digest** is ``sha256:`` of the card's canonical JSON, as served: the tool's pin. Two cards
are compared field by field (and skill by skill) to say what changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from seamhost.jsonvalue import digest
from seamhost_tools_a2a.errors import A2aAgentError

if TYPE_CHECKING:
    import httpx
    from a2a.types.a2a_pb2 import AgentCard

    from seamhost_tools_a2a.settings import AgentSettings


class Card(NamedTuple):
    """A card as served (its JSON), parsed, and its digest."""

    body: Mapping[str, Any]
    parsed: AgentCard
    digest: str


async def fetch_card(agent: AgentSettings, http: httpx.AsyncClient) -> Card:
    """The agent's card, checked; `A2aAgentError` when unreachable or not valid A2A."""
    import httpx

    try:
        response = await http.get(agent.card_url, headers=agent.headers())
    except httpx.HTTPError as exc:
        raise A2aAgentError(agent.name, f"unreachable at {agent.card_url}: {_reason(exc)}") from exc
    if response.status_code != 200:
        raise A2aAgentError(
            agent.name, f"its Agent Card at {agent.card_url} answered HTTP {response.status_code}"
        )
    try:
        body = response.json()
    except ValueError as exc:
        raise A2aAgentError(agent.name, f"its Agent Card at {agent.card_url} is not JSON") from exc
    return check_card(agent.name, body)


def check_card(agent: str, body: Any) -> Card:
    """`body` as a `Card`, or `A2aAgentError` saying why it is not a valid Agent Card."""
    from a2a.client.card_resolver import parse_agent_card
    from a2a.utils.errors import InvalidParamsError
    from a2a.utils.proto_utils import validate_proto_required_fields
    from google.protobuf.json_format import ParseError  # type: ignore[import-untyped]  # no hints

    if not isinstance(body, dict):
        raise A2aAgentError(agent, "its Agent Card is not a JSON object: not valid A2A")
    try:
        parsed = parse_agent_card(dict(body))
        validate_proto_required_fields(parsed)
    except ParseError as exc:
        raise A2aAgentError(agent, f"its Agent Card is not valid A2A: {exc}") from exc
    except InvalidParamsError as exc:
        errors = (exc.data or {}).get("errors", []) if isinstance(exc.data, dict) else []
        fields = ", ".join(str(e.get("field")) for e in errors) or str(exc)
        raise A2aAgentError(
            agent, f"its Agent Card is not valid A2A: required field(s) missing: {fields}"
        ) from exc
    if not any(i.url for i in parsed.supported_interfaces):
        raise A2aAgentError(agent, "its Agent Card is not valid A2A: no interface has a url")
    return Card(body, parsed, digest(body))


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """What differs between two cards: top-level fields, and skills by id."""
    found = []
    for key in sorted(set(before) | set(after)):
        if key == "skills" or before.get(key) == after.get(key):
            continue
        found.append(f"{key} ({_short(before.get(key))} -> {_short(after.get(key))})")
    old = {str(s.get("id")): s for s in before.get("skills", ()) if isinstance(s, Mapping)}
    new = {str(s.get("id")): s for s in after.get("skills", ()) if isinstance(s, Mapping)}
    found += [f"skill {i!r} removed" for i in sorted(set(old) - set(new))]
    found += [f"skill {i!r} added" for i in sorted(set(new) - set(old))]
    found += [f"skill {i!r} changed" for i in sorted(set(old) & set(new)) if old[i] != new[i]]
    return found


def _short(value: Any) -> str:
    text = "absent" if value is None else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _reason(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
