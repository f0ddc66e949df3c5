"""The ``[gateway]`` table of a profile: what ``seamhost mcp serve`` lets its clients decide.

Each key is optional; a later file of the ``extends`` chain overrides an earlier one key by key.
The keys:

* ``elicitation_may_escalate``: whether the user of an MCP client may approve, through MCP
  elicitation, a call that asks for a wider sandbox mode (``danger-full-access`` included)
  (false). While false, such a question is never put to the client: only the profile's own
  answerers (its rules, a terminal, a deferral) can grant an escalation.

The gateway reads the merged table (docs/design.md, "Serve: the MCP gateway"); every other
command ignores it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.errors import ConfigError
from seamhost.kernel.profile.merge import merge_keys

if TYPE_CHECKING:
    from seamhost.kernel.profile.files import ProfileFile
    from seamhost.kernel.profile.provenance import Provenance

# The JSON Schema of each key (also shown by `seamhost profile schema`).
SCHEMA: dict[str, dict[str, Any]] = {
    "elicitation_may_escalate": {
        "type": "boolean",
        "description": "whether an MCP client's user may approve a sandbox escalation "
        "through elicitation (mcp serve); default false",
    },
}


@attrs.frozen
class GatewaySettings:
    """The resolved ``[gateway]`` of a profile."""

    elicitation_may_escalate: bool = False
    """whether an MCP client's user may approve a sandbox escalation (``mcp serve``)"""

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


def merge_gateway(chain: Iterable[ProfileFile], provenance: Provenance) -> GatewaySettings:
    """The ``[gateway]`` of a profile chain: each file overrides the keys it sets."""
    return GatewaySettings(**merge_keys(chain, "gateway", _check, provenance))


def _check(label: str, key: str, value: Any) -> bool:
    where = f"gateway.{key}"
    if key not in SCHEMA:
        raise ConfigError(label, where, f"unknown key; expected one of: {', '.join(SCHEMA)}")
    if not isinstance(value, bool):
        raise ConfigError(label, where, f"expected true or false, got {value!r}")
    return value
