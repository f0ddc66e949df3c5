"""The Agent Card: what ``seamhost a2a serve`` says about itself at the well-known path.

The card names the profile's agent (the profile's name and description), the JSON-RPC
interface it serves, streaming (``message/stream``), and one skill per tool of the bundle: the
tool's name as the skill's id and name, its description, and tags saying its effect
(``read-only`` or ``write``) and whether repeating it is harmless (``idempotent``). A client
does not call the skills directly: it asks the agent, whose model proposes calls that the
profile's policy governs.

With a token (``--token-env``) the card declares one HTTP ``bearer`` security scheme, required
for every request but the card itself, which an A2A client reads first to learn that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a.types import a2a_pb2 as a2a
from a2a.utils.constants import PROTOCOL_VERSION_CURRENT, TransportProtocol

from seamhost.version import __version__

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle

BEARER = "bearer"  # the security scheme's name in the card
TEXT = "text/plain"
JSON = "application/json"


def agent_card(bundle: Bundle, url: str, *, bearer: bool) -> a2a.AgentCard:
    """The card of `bundle`'s agent served at `url` (its JSON-RPC endpoint)."""
    profile = bundle.profile
    skills = []
    for name in sorted(bundle.tools):
        spec = bundle.tools[name].spec
        tags: list[str] = [spec.effect]
        if spec.idempotent:
            tags.append("idempotent")
        skills.append(
            a2a.AgentSkill(
                id=name,
                name=name,
                description=spec.description or name,
                tags=tags,
                input_modes=[TEXT],
                output_modes=[TEXT, JSON],
            )
        )
    card = a2a.AgentCard(
        name=profile.name,
        description=profile.description
        or f"A seamhost agent (profile {profile.name}): every tool call it makes is governed, "
        "durable and recorded.",
        supported_interfaces=[
            a2a.AgentInterface(
                url=url,
                protocol_binding=TransportProtocol.JSONRPC,
                protocol_version=PROTOCOL_VERSION_CURRENT,
            )
        ],
        version=__version__,
        capabilities=a2a.AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=[TEXT],
        default_output_modes=[TEXT, JSON],
        skills=skills,
    )
    if bearer:
        card.security_schemes[BEARER].CopyFrom(
            a2a.SecurityScheme(
                http_auth_security_scheme=a2a.HTTPAuthSecurityScheme(
                    scheme="Bearer",
                    description="the token the operator gave `seamhost a2a serve --token-env`",
                )
            )
        )
        requirement = a2a.SecurityRequirement()
        requirement.schemes[BEARER].CopyFrom(a2a.StringList())
        card.security_requirements.append(requirement)
    return card


__all__ = ["BEARER", "agent_card"]
