"""The budgets of ``[limits]``, kept from the log's own records (design.md §12).

A :class:`Budget` follows a session's records as they are committed: tokens from ``model/usage``,
calls from each call's first ``tool/dispatch``, and the time of the open ``turn/start``. It is
asked before each model attempt and each dispatch; it never takes a number from a caller, so
what it enforces is what the log says was used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost.errors import ErrorCode, LimitReached
from seamhost.session.derived import USAGE_KEYS

if TYPE_CHECKING:
    from seamhost.kernel.profile.limits import Limits
    from seamhost.session.live import Session
    from seamhost.session.record import Record


class Budget:
    """What a session has used against its profile's limits."""

    def __init__(self, limits: Limits, session: Session) -> None:
        self.limits = limits
        # From the resume snapshot's totals and the records after it, or a replay of them all.
        opened = session.resumed
        start = opened.seq if opened is not None else 0
        usage = opened.usage if opened is not None else dict.fromkeys(USAGE_KEYS, 0)
        self.input_tokens = usage["input_tokens"]
        self.output_tokens = usage["output_tokens"]
        self.tool_calls = usage["tool_calls"]
        self.turn_started: int | None = None  # ms, of the open turn
        started, ended = session.last("turn/start"), session.last("turn/end")
        if started is not None and (ended is None or ended.seq < started.seq):
            self.turn_started = started.time
        for record in session.records[start:]:
            if record.type not in ("turn/start", "turn/end"):
                self.observe(record)
        session.listen(self.observe)

    def observe(self, record: Record) -> None:
        kind = record.type
        if kind == "model/usage":
            self.input_tokens += int(record.data["input_tokens"])
            self.output_tokens += int(record.data["output_tokens"])
        elif kind == "tool/dispatch" and record.data["attempt"] == 1:
            self.tool_calls += 1
        elif kind == "turn/start":
            self.turn_started = record.time
        elif kind == "turn/end":
            self.turn_started = None

    def remaining_s(self, now_ms: int) -> float | None:
        """Seconds left before the turn's deadline (``None`` without one)."""
        deadline = self.limits.turn_deadline_s
        if deadline is None or self.turn_started is None:
            return None
        return deadline - (now_ms - self.turn_started) / 1000

    def check_model(self, now_ms: int) -> None:
        """Raise `LimitReached` when no further model attempt may start."""
        self._check_deadline(now_ms)
        for used, limit, what in (
            (self.input_tokens, self.limits.max_input_tokens, "input tokens"),
            (self.output_tokens, self.limits.max_output_tokens, "output tokens"),
        ):
            if limit is not None and used >= limit:
                problem = f"the session used {used} {what} of its {limit} ([limits])"
                raise LimitReached(ErrorCode.BUDGET_EXCEEDED, problem)

    def output_left(self) -> int | None:
        """Output tokens the session may still use (``None`` without a limit): the cap a model
        request asks for, so a turn resumed near its budget cannot answer past it."""
        limit = self.limits.max_output_tokens
        return None if limit is None else max(0, limit - self.output_tokens)

    def check_dispatch(self, now_ms: int) -> str | None:
        """Why the next call may not be dispatched, or ``None`` when it may."""
        remaining = self.remaining_s(now_ms)
        if remaining is not None and remaining <= 0:
            return f"{ErrorCode.DEADLINE_EXCEEDED}: {self._late()}"
        limit = self.limits.max_tool_calls
        if limit is not None and self.tool_calls >= limit:
            return (
                f"{ErrorCode.BUDGET_EXCEEDED}: the session dispatched {self.tool_calls} "
                f"call(s) of its {limit} ([limits] max_tool_calls)"
            )
        return None

    def _check_deadline(self, now_ms: int) -> None:
        remaining = self.remaining_s(now_ms)
        if remaining is not None and remaining <= 0:
            raise LimitReached(ErrorCode.DEADLINE_EXCEEDED, self._late())

    def _late(self) -> str:
        return f"the turn ran past its {self.limits.turn_deadline_s:g}s ([limits] turn_deadline_s)"


__all__ = ["Budget"]
