"""The context of the `agent/pre-step` around-chain."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import attrs


@attrs.frozen
class StepContext:
    """A step about to start: the session it belongs to and its turn and step numbers."""

    session: Any
    turn: int
    step: int


StepNext = Callable[[StepContext], Awaitable[None]]
