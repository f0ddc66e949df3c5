"""The ``[retention]`` table of a profile: what ``seamhost session prune`` removes by default.

Each key is optional; a later file of the ``extends`` chain overrides an earlier one key by key,
and a ``session prune`` flag overrides the profile. The keys:

* ``keep_days``: sessions last written within this many days are kept; ``prune`` without
  ``--older-than`` removes the older ones (unset: ``prune`` needs ``--older-than``);
* ``keep_sessions``: the N most recently written sessions are kept whatever their age (0);
* ``keep``: kinds of session kept whatever their age: ``"unknown"`` (an unresolved
  ``TOOL_OUTCOME_UNKNOWN``), ``"parked"`` (a deferred approval), ``"failed"`` (the last turn
  ended with an error). Unknown and parked sessions are kept by ``prune`` and ``rm`` in any case,
  since removing them loses work that is not over (only ``--force`` naming one removes it);
  listing them here says so in the profile, and ``"failed"`` keeps failed runs for a post-mortem.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

import attrs

from seamhost.errors import ConfigError
from seamhost.kernel.profile.merge import merge_keys

if TYPE_CHECKING:
    from seamhost.kernel.profile.files import ProfileFile

KeepKind = Literal["unknown", "parked", "failed"]
KEEP_KINDS: tuple[KeepKind, ...] = ("unknown", "parked", "failed")

# The JSON Schema of each key (also shown by `seamhost profile schema`).
SCHEMA: dict[str, dict[str, Any]] = {
    "keep_days": {
        "type": "number",
        "minimum": 0,
        "description": "days a session is kept after its last write (session prune's default)",
    },
    "keep_sessions": {
        "type": "integer",
        "minimum": 0,
        "description": "the N most recently written sessions are kept whatever their age",
    },
    "keep": {
        "type": "array",
        "items": {"enum": list(KEEP_KINDS)},
        "description": "kinds of session kept whatever their age",
    },
}


@attrs.frozen
class Retention:
    """The resolved ``[retention]`` of a profile."""

    keep_days: float | None = None
    keep_sessions: int = 0
    keep: tuple[KeepKind, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {**attrs.asdict(self), "keep": list(self.keep)}


def merge_retention(chain: Iterable[ProfileFile]) -> Retention:
    """The retention policy of a profile chain: each file overrides the keys it sets."""
    return Retention(**merge_keys(chain, "retention", _check))


def _check(label: str, key: str, value: Any) -> Any:
    where = f"retention.{key}"
    if key not in SCHEMA:
        raise ConfigError(label, where, f"unknown key; expected one of: {', '.join(SCHEMA)}")
    if key == "keep":
        if not isinstance(value, list) or any(v not in KEEP_KINDS for v in value):
            expected = ", ".join(f'"{v}"' for v in KEEP_KINDS)
            raise ConfigError(label, where, f"expected a list of {expected}, got {value!r}")
        return tuple(dict.fromkeys(value))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(label, where, f"expected a number, got {value!r}")
    if key == "keep_sessions" and not isinstance(value, int):
        raise ConfigError(label, where, f"expected a whole number, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ConfigError(label, where, f"expected 0 or more, got {value!r}")
    return value
