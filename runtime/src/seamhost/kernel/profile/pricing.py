"""The ``[pricing]`` table of a profile: what a model's tokens cost, to show spend next to usage.

Optional; a later file of the ``extends`` chain overrides an earlier one key by key, and each
model's table is one key (a child that prices a model again states its whole price)::

    [pricing]
    currency = "USD"                  # the unit of every price (default "USD")

    [pricing."gpt-4.1"]               # the model as its attempts record it (``model/attempt``)
    input = 2.0                       # per million input tokens (cached ones excluded)
    output = 8.0                      # per million output tokens
    cached_input = 0.5                # per million input tokens served from the cache (optional)

Prices are per million tokens, numbers of at least 0. A model the table does not price has an
unknown cost, and so has an attempt with cached tokens whose model has no ``cached_input``: a
cost is never guessed (:mod:`seamhost.run.usage`). Prices are read when a cost is shown, from
the profile the command is given; a session records tokens, never money.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.errors import ConfigError
from seamhost.kernel.profile.files import load_chain
from seamhost.kernel.profile.merge import merge_keys

if TYPE_CHECKING:
    from seamhost.kernel.profile.files import ProfileFile

PRICE_KEYS = ("input", "output", "cached_input")
REQUIRED = ("input", "output")
# The JSON Schema of the table (also shown by `seamhost profile schema`).
PRICE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": list(REQUIRED),
    "properties": {key: {"type": "number", "minimum": 0} for key in PRICE_KEYS},
}
SCHEMA: dict[str, dict[str, Any]] = {"currency": {"type": "string", "minLength": 1}}


@attrs.frozen
class Price:
    """What one model's tokens cost, per million."""

    input: float
    output: float
    cached_input: float | None = None  # None: cached tokens have no known price

    def to_json(self) -> dict[str, float]:
        prices = {"input": self.input, "output": self.output, "cached_input": self.cached_input}
        return {key: value for key, value in prices.items() if value is not None}


@attrs.frozen
class Pricing:
    """The resolved ``[pricing]`` of a profile."""

    currency: str = "USD"
    models: Mapping[str, Price] = attrs.field(factory=dict)

    def price_of(self, model: str) -> Price | None:
        """`model`'s price, or None when the table does not give one."""
        return self.models.get(model)

    def to_json(self) -> dict[str, Any]:
        return {
            "currency": self.currency,
            "models": {name: price.to_json() for name, price in self.models.items()},
        }


def merge_pricing(chain: Iterable[ProfileFile]) -> Pricing:
    """The prices of a profile chain: each file overrides the keys (currency, models) it sets."""
    values = merge_keys(chain, "pricing", _check)
    currency = values.pop("currency", "USD")
    return Pricing(currency, values)


def pricing_of(profile_ref: str) -> Pricing:
    """The prices of the profile `profile_ref` names, reading its files only (no plugin is
    loaded): what the listings use, whichever store they read."""
    return merge_pricing(load_chain(profile_ref))


def _check(label: str, key: str, value: Any) -> Any:
    where = f"pricing.{_quoted(key)}"
    if key == "currency":
        if not isinstance(value, str) or not value:
            raise ConfigError(
                label, where, f'expected a currency name such as "USD", got {value!r}'
            )
        return value
    if not isinstance(value, dict):
        raise ConfigError(
            label,
            where,
            f"expected a table of prices per million tokens, e.g. [{where}] "
            "input = 2.0, output = 8.0; or the key currency",
        )
    for name, price in value.items():
        if name not in PRICE_KEYS:
            expected = ", ".join(PRICE_KEYS)
            raise ConfigError(label, f"{where}.{name}", f"unknown key; expected one of: {expected}")
        if isinstance(price, bool) or not isinstance(price, (int, float)):
            raise ConfigError(label, f"{where}.{name}", f"expected a number, got {price!r}")
        if not 0 <= price < math.inf:  # also refuses nan
            raise ConfigError(label, f"{where}.{name}", f"expected at least 0, got {price!r}")
    missing = [name for name in REQUIRED if name not in value]
    if missing:
        raise ConfigError(label, f"{where}.{missing[0]}", "missing: a price needs input and output")
    cached = value.get("cached_input")
    return Price(value["input"], value["output"], cached)


def _quoted(key: str) -> str:
    """`key` as TOML spells it in a key path: bare when it can be, else quoted ("gpt-4.1")."""
    bare = key and all(c.isascii() and (c.isalnum() or c in "-_") for c in key)
    return key if bare else f'"{key}"'


__all__ = ["Price", "Pricing", "merge_pricing", "pricing_of"]
