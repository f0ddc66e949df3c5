"""Token and cost totals of a session, whole and per turn, from its log (what every view shows).

Tokens are the log's own: each ``model/usage`` record (an attempt that reached its terminal
event and whose provider reported usage) adds its input, output and cached input tokens to its
turn and to the session. An attempt that failed, or whose provider said nothing, adds none: the
log does not know what it used, and nothing is made up for it.

Cost is priced from a profile's ``[pricing]`` (:mod:`seamhost.kernel.profile.pricing`), per
million tokens, by the model its ``model/attempt`` record names: input tokens not served from a
cache at ``input``, cached ones at ``cached_input``, output tokens at ``output``. A cost is
unknown (``None``; ``?`` in text), never guessed, when an attempt asked a model the table does not
price, or used cached tokens of a model without a ``cached_input`` price. Sums are exact decimals;
JSON carries them as numbers.

The JSON of a session's usage, the same wherever it is printed::

    {"currency": "USD", "input_tokens": 128, "cached_input_tokens": 48, "output_tokens": 4,
     "cost": 0.000116, "unpriced": [],
     "turns": [{"turn": 1, "input_tokens": 64, "cached_input_tokens": 48, "output_tokens": 2,
                "cost": 0.000058}, ...]}
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from seamhost.kernel.profile.pricing import Price, Pricing
    from seamhost.session.record import Record

MILLION = Decimal(1_000_000)
# Text shows a cost to 10^-8 of its currency: a short turn of a cheap model costs millionths.
SHOWN_PLACES = Decimal("0.00000001")
READ = frozenset({"turn/start", "model/attempt", "model/usage"})  # the records the totals read


@attrs.define
class Totals:
    """Tokens used, and what they cost (``cost`` None: unknown)."""

    input_tokens: int = 0  # cached ones included, as providers count them
    cached_input_tokens: int = 0
    output_tokens: int = 0
    cost: Decimal | None = Decimal(0)

    def add(self, input_tokens: int, cached: int, output: int, cost: Decimal | None) -> None:
        self.input_tokens += input_tokens
        self.cached_input_tokens += cached
        self.output_tokens += output
        self.cost = None if self.cost is None or cost is None else self.cost + cost

    def to_json(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "cached_input_tokens": self.cached_input_tokens,
            "output_tokens": self.output_tokens,
            "cost": None if self.cost is None else float(self.cost),
        }

    def text(self, currency: str) -> str:
        """One line: ``1,234 in (48 cached), 56 out, cost 0.0000185 USD`` (``cost ?``)."""
        return (
            f"{self.input_tokens:,} in ({self.cached_input_tokens:,} cached), "
            f"{self.output_tokens:,} out, cost {format_cost(self.cost, currency)}"
        )


@attrs.frozen
class SessionUsage:
    """A session's totals, whole and per turn, with the currency they are priced in."""

    currency: str
    session: Totals
    turns: dict[int, Totals]  # by turn number, in the log's order
    unpriced: tuple[str, ...]  # the models asked that the pricing does not price
    reported: bool  # whether any attempt reported usage (a scripted model's never do)

    def to_json(self) -> dict[str, Any]:
        return {
            "currency": self.currency,
            **self.session.to_json(),
            "unpriced": list(self.unpriced),
            "turns": [{"turn": turn, **totals.to_json()} for turn, totals in self.turns.items()],
        }

    def text(self) -> str:
        """The session's line, naming the models without a price when its cost is unknown."""
        line = self.session.text(self.currency)
        if self.unpriced:
            line += f" (no [pricing] for {', '.join(self.unpriced)})"
        return line

    def lines(self) -> list[str]:
        """The session's line, then one per turn: what the text views print."""
        return [
            f"usage: {self.text()}",
            *(f"  turn {turn}: {t.text(self.currency)}" for turn, t in self.turns.items()),
        ]


def session_usage(records: Iterable[Record], pricing: Pricing) -> SessionUsage:
    """The totals of a session whose records are `records` (in order), priced by `pricing`."""
    session = Totals()
    turns: dict[int, Totals] = {}
    models: dict[tuple[int, int, int], str] = {}  # (turn, step, attempt) -> the model asked
    unpriced: dict[str, None] = {}
    reported = False
    for record in records:
        kind = record.type
        if kind not in READ:
            continue
        data = record.data
        turn = int(data["turn"])
        totals = turns.setdefault(turn, Totals())
        if kind == "turn/start":
            continue
        key = (turn, int(data["step"]), int(data["attempt"]))
        if kind == "model/attempt":
            model = str(data["model"])
            models[key] = model
            if pricing.price_of(model) is None:
                unpriced[model] = None
                totals.cost = session.cost = None
            continue
        reported = True
        price = pricing.price_of(models.get(key, ""))
        used = (
            int(data["input_tokens"]),
            int(data.get("cached_input_tokens", 0)),
            int(data["output_tokens"]),
        )
        cost = None if price is None else cost_of(price, *used)
        totals.add(*used, cost)
        session.add(*used, cost)
    return SessionUsage(pricing.currency, session, turns, tuple(unpriced), reported)


def cost_of(price: Price, input_tokens: int, cached: int, output: int) -> Decimal | None:
    """What one attempt's tokens cost at `price`; None when cached tokens have no price."""
    if cached and price.cached_input is None:
        return None
    fresh = max(0, input_tokens - cached)
    total = fresh * _decimal(price.input) + output * _decimal(price.output)
    if cached and price.cached_input is not None:
        total += cached * _decimal(price.cached_input)
    return total / MILLION


def format_cost(cost: Decimal | None, currency: str) -> str:
    """``0.0000185 USD``, ``12.50 USD`` (to 10^-8, at least two places), or ``?``."""
    if cost is None:
        return "?"
    shown = f"{cost.quantize(SHOWN_PLACES):f}".rstrip("0")
    whole, _, places = shown.partition(".")
    return f"{whole}.{places.ljust(2, '0')} {currency}"


def _decimal(price: float) -> Decimal:
    """The price as written (2.0 -> 2.0, 0.15 -> 0.15, not the float's binary expansion)."""
    return Decimal(repr(price))


__all__ = ["SessionUsage", "Totals", "cost_of", "format_cost", "session_usage"]
