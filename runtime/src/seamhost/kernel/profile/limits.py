"""The ``[limits]`` table of a profile: kernel-owned bounds on a session's work.

Each key is optional; a later file of the ``extends`` chain overrides an earlier one key by key,
and a CLI flag overrides the profile. The keys:

* ``max_steps``: steps (model requests) per turn before the turn ends with an error (32);
* ``parallelism``: concurrency-safe bodies of one step run at most this many at once (4);
* ``tool_timeout_s``: seconds a tool body may run before it is stopped (no limit);
* ``tool_retries``: how many more times a call of a read-only or idempotent tool is dispatched
  after an attempt that failed retryably or ended with an unknown outcome (0). A tool that is
  neither is never dispatched twice, whatever this says;
* ``max_tool_calls``: calls dispatched in the whole session (retries not counted) (no limit);
* ``max_tool_calls_per_turn``: calls dispatched in one turn (retries not counted) (no limit;
  the shipped profiles set 256);
* ``max_response_bytes``: bytes one model response may stream, counted as it arrives (8 MiB):
  past it the attempt is cut off, ``response-too-large`` (:mod:`seamhost.llm.response_size`);
* ``max_input_tokens``, ``max_output_tokens``: tokens the session's model attempts may use, summed
  from the log's ``model/usage`` records (no limit);
* ``turn_deadline_s``: seconds a turn may take from its ``turn/start`` (no limit).

Budgets are checked before each model attempt and each dispatch (:mod:`seamhost.run.budget`);
running out ends the turn with ``BUDGET_EXCEEDED`` or ``DEADLINE_EXCEEDED``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.errors import ConfigError
from seamhost.kernel.profile.merge import merge_keys

if TYPE_CHECKING:
    from seamhost.kernel.profile.files import ProfileFile

MAX_RESPONSE_BYTES = 8 * 1024 * 1024  # a long answer is well under 1 MiB; 200 MB took 1.5 GB
# The JSON Schema of each key (also shown by `seamhost profile schema`).
SCHEMA: dict[str, dict[str, Any]] = {
    "max_steps": {"type": "integer", "minimum": 1},
    "parallelism": {"type": "integer", "minimum": 1},
    "tool_timeout_s": {"type": "number", "exclusiveMinimum": 0},
    "tool_retries": {"type": "integer", "minimum": 0},
    "max_tool_calls": {"type": "integer", "minimum": 0},
    "max_tool_calls_per_turn": {"type": "integer", "minimum": 0},
    "max_response_bytes": {"type": "integer", "minimum": 1},
    "max_input_tokens": {"type": "integer", "minimum": 0},
    "max_output_tokens": {"type": "integer", "minimum": 0},
    "turn_deadline_s": {"type": "number", "exclusiveMinimum": 0},
}


@attrs.frozen
class Limits:
    """The resolved ``[limits]`` of a profile."""

    max_steps: int = 32
    parallelism: int = 4
    tool_timeout_s: float | None = None
    tool_retries: int = 0
    max_tool_calls: int | None = None
    max_tool_calls_per_turn: int | None = None
    max_response_bytes: int = MAX_RESPONSE_BYTES
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    turn_deadline_s: float | None = None

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


def _check(label: str, key: str, value: Any) -> Any:
    where = f"limits.{key}"
    if key not in SCHEMA:
        expected = ", ".join(SCHEMA)
        raise ConfigError(label, where, f"unknown key; expected one of: {expected}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(label, where, f"expected a number, got {value!r}")
    if SCHEMA[key]["type"] == "integer" and not isinstance(value, int):
        raise ConfigError(label, where, f"expected a whole number, got {value!r}")
    low = SCHEMA[key].get("minimum")
    if low is not None and value < low:
        raise ConfigError(label, where, f"expected at least {low}, got {value!r}")
    if "exclusiveMinimum" in SCHEMA[key] and value <= 0:
        raise ConfigError(label, where, f"expected more than 0, got {value!r}")
    return value


def merge_limits(chain: Iterable[ProfileFile]) -> Limits:
    """The limits of a profile chain: each file overrides the keys it sets."""
    return Limits(**merge_keys(chain, "limits", _check))


def with_overrides(limits: Limits, pairs: Iterable[str]) -> Limits:
    """`limits` with ``KEY=VALUE`` pairs from the command line (``--limit``) applied."""
    import tomllib

    values = attrs.asdict(limits)
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep:
            raise ConfigError("--limit", pair, "expected KEY=VALUE, e.g. --limit max_steps=8")
        try:
            value = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            raise ConfigError("--limit", key, f"{text!r} is not a number") from None
        values[key.strip()] = _check("--limit", key.strip(), value)
    return Limits(**values)
