"""Token and cost totals from a session's records (:mod:`seamhost.run.usage`)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from seamhost.kernel.profile.pricing import Price, Pricing
from seamhost.run.usage import format_cost, session_usage
from seamhost.session.record import Record

PRICED = Pricing("USD", {"gpt-4.1": Price(2.0, 8.0, 0.5), "mini": Price(0.15, 0.6)})


def log(*events: tuple[str, dict[str, Any]]) -> list[Record]:
    return [Record(seq, kind, 1000 + seq, plain=data) for seq, (kind, data) in enumerate(events)]


def attempt(turn: int, model: str, attempt: int = 1, step: int = 1) -> tuple[str, dict[str, Any]]:
    at = {"turn": turn, "step": step, "attempt": attempt}
    return "model/attempt", at | {"model": model, "request_digest": "sha256:x"}


def used(
    turn: int, inp: int, out: int, *, cached: int = 0, attempt: int = 1, step: int = 1
) -> tuple[str, dict[str, Any]]:
    at = {"turn": turn, "step": step, "attempt": attempt}
    return "model/usage", at | {
        "input_tokens": inp,
        "output_tokens": out,
        "cached_input_tokens": cached,
    }


def turn(n: int) -> tuple[str, dict[str, Any]]:
    return "turn/start", {"turn": n}


def test_totals_per_turn_and_session_priced_per_million_tokens() -> None:
    records = log(
        turn(1),
        attempt(1, "gpt-4.1"),
        used(1, 1000, 100, cached=400),
        attempt(1, "gpt-4.1", step=2),
        used(1, 2000, 50, step=2),
        ("turn/end", {"turn": 1, "reason": "completed"}),
        turn(2),
        attempt(2, "gpt-4.1"),
        ("model/failed", {"turn": 2, "step": 1, "attempt": 1, "code": "server"}),
        attempt(2, "gpt-4.1", attempt=2),
        used(2, 10, 1, attempt=2),
    )
    usage = session_usage(records, PRICED)
    # 600 fresh at 2.0, 400 cached at 0.5, 100 out at 8.0; then 2000 at 2.0, 50 at 8.0.
    first = (600 * 2 + 400 * Decimal("0.5") + 100 * 8 + 2000 * 2 + 50 * 8) / 1_000_000
    second = Decimal(10 * 2 + 1 * 8) / 1_000_000
    assert usage.turns[1].cost == first
    assert usage.turns[2].cost == second
    assert usage.session.cost == first + second
    assert usage.to_json() == {
        "currency": "USD",
        "input_tokens": 3010,
        "cached_input_tokens": 400,
        "output_tokens": 151,
        "cost": float(first + second),
        "unpriced": [],
        "turns": [
            {
                "turn": 1,
                "input_tokens": 3000,
                "cached_input_tokens": 400,
                "output_tokens": 150,
                "cost": float(first),
            },
            {
                "turn": 2,
                "input_tokens": 10,
                "cached_input_tokens": 0,
                "output_tokens": 1,
                "cost": float(second),
            },
        ],
    }
    assert usage.reported
    assert usage.text() == "3,010 in (400 cached), 151 out, cost 0.006628 USD"


def test_a_model_without_a_price_has_an_unknown_cost_never_zero() -> None:
    records = log(turn(1), attempt(1, "mini"), used(1, 10, 2), turn(2), attempt(2, "other"))
    usage = session_usage(records, PRICED)
    assert usage.turns[1].cost == Decimal("2.7") / 1_000_000
    assert usage.turns[2].cost is None  # asked, reported nothing: still not free
    assert usage.session.cost is None
    assert usage.unpriced == ("other",)
    assert usage.to_json()["cost"] is None
    assert usage.text() == "10 in (0 cached), 2 out, cost ? (no [pricing] for other)"
    assert session_usage(records, Pricing()).unpriced == ("mini", "other")


def test_cached_tokens_without_a_cached_price_are_not_guessed() -> None:
    records = log(turn(1), attempt(1, "mini"), used(1, 100, 10, cached=60))
    usage = session_usage(records, PRICED)
    assert usage.session.cost is None
    assert usage.unpriced == ()  # the model is priced; its cached tokens are not


def test_a_log_without_usage_reports_none() -> None:
    usage = session_usage(log(turn(1), attempt(1, "mini")), PRICED)
    assert not usage.reported
    assert usage.session.cost == 0
    assert usage.lines() == [
        "usage: 0 in (0 cached), 0 out, cost 0.00 USD",
        "  turn 1: 0 in (0 cached), 0 out, cost 0.00 USD",
    ]


def test_costs_are_shown_to_a_hundred_millionth_with_at_least_two_places() -> None:
    assert format_cost(Decimal("0.0000075"), "USD") == "0.0000075 USD"
    assert format_cost(Decimal("12.5"), "EUR") == "12.50 EUR"
    assert format_cost(Decimal("0.000000001"), "USD") == "0.00 USD"
    assert format_cost(None, "USD") == "?"
