"""How a turn of the agent loop ended (run/agent.py, run/continuing.py)."""

from __future__ import annotations

import attrs


@attrs.frozen
class TurnOutcome:
    """How a turn ended."""

    turn: int
    # completed | aborted | error | interrupted | suspended (awaits an approval) | parked (awaits
    # the reconciliation of unknown outcomes, [recovery] on_unknown = "park")
    reason: str
    steps: int
    message: str | None = None
    approval: str | None = None  # the deferred approval a suspended turn waits on


__all__ = ["TurnOutcome"]
