"""The ``[recovery]`` table of a profile: what a continuation does with an unknown outcome.

One key, optional; a later file of the ``extends`` chain overrides an earlier one:

* ``on_unknown``: what to do, when a crashed turn is continued (design.md §6), with a call that
  was dispatched and never got its result, once its tool's status probe (if any) could not tell:
  ``"report"`` (the default) tells the model plainly that the outcome is unknown and goes on;
  ``"park"`` suspends the session until ``seamhost session reconcile`` resolves it (the run ends
  ``parked``; a resume then goes on); ``"fail"`` ends the turn with ``TOOL_OUTCOME_UNKNOWN``.

The resolved value is recorded in every session header the profile writes (its bundle
snapshot), and a continuation follows what the session recorded.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

import attrs

from seamhost.errors import ConfigError
from seamhost.kernel.profile.merge import merge_keys

if TYPE_CHECKING:
    from seamhost.kernel.profile.files import ProfileFile

OnUnknown = Literal["report", "park", "fail"]
ON_UNKNOWN: tuple[OnUnknown, ...] = ("report", "park", "fail")

# The JSON Schema of each key (also shown by `seamhost profile schema`).
SCHEMA: dict[str, dict[str, Any]] = {"on_unknown": {"enum": list(ON_UNKNOWN)}}


@attrs.frozen
class Recovery:
    """The resolved ``[recovery]`` of a profile."""

    on_unknown: OnUnknown = "report"

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


def merge_recovery(chain: Iterable[ProfileFile]) -> Recovery:
    """The recovery policy of a profile chain: each file overrides the keys it sets."""
    return Recovery(**merge_keys(chain, "recovery", _check))


def _check(label: str, key: str, value: Any) -> Any:
    where = f"recovery.{key}"
    if key not in SCHEMA:
        raise ConfigError(label, where, f"unknown key; expected one of: {', '.join(SCHEMA)}")
    if value not in ON_UNKNOWN:
        expected = ", ".join(f'"{v}"' for v in ON_UNKNOWN)
        raise ConfigError(label, where, f"expected one of {expected}, got {value!r}")
    return value
