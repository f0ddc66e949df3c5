"""What a ``seamhost_run`` run returns: each call's outcome, and the records of its session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from seamhost.jsonvalue import FrozenDict
from seamhost.kernel.bundle import Bundle
from seamhost.run.agent import TurnOutcome
from seamhost.session.record import Record

OK = "ok"


@attrs.frozen
class CallOutcome:
    """How one call of the run ended."""

    call_id: str  # the call's id (scripted, or call-<turn>-<step>-<n>)
    name: str  # the tool the model called
    code: str | None  # the error code it ended with; None when it succeeded
    content: str  # what the model read
    value: Any  # the canonical result (None for most errors)

    @property
    def outcome(self) -> str:
        """``"ok"`` or the error code: the vocabulary of a scenario's ``expect``."""
        return self.code if self.code is not None else OK


@attrs.frozen
class RunOutcome:
    """What a run left: its turns, its calls in order, and the session's records."""

    bundle: Bundle = attrs.field(repr=False)  # the bundle it ran in (its plugins, its store)
    session_id: str  # the session it wrote
    workspace: Path  # where the tools worked
    turns: tuple[TurnOutcome, ...]  # how each turn ended (the last may be "suspended")
    calls: tuple[CallOutcome, ...]  # each call that reached a result, in the order of the log
    records: tuple[Record, ...] = attrs.field(repr=False)  # every record the session committed
    unmet: tuple[str, ...]  # the scenario's expectations for this profile that were not met

    @property
    def outcomes(self) -> dict[str, str]:
        """Call id → ``"ok"`` or its error code."""
        return {call.call_id: call.outcome for call in self.calls}

    def call(self, call_id: str) -> CallOutcome:
        """The outcome of call `call_id`; ``KeyError`` naming the calls there were."""
        for call in self.calls:
            if call.call_id == call_id:
                return call
        raise KeyError(f"no call {call_id!r} in this run; its calls: {list(self.outcomes)}")

    def of(self, record_type: str) -> list[FrozenDict]:
        """The data of every record of `record_type` (``"approval/decided"``...), in order."""
        return [record.data for record in self.records if record.type == record_type]


def calls_of(records: tuple[Record, ...]) -> tuple[CallOutcome, ...]:
    """The outcome of each call that reached a `tool/result` record, in the order of the log."""
    names = {r.data["call_id"]: r.data["name"] for r in records if r.type == "tool/call"}
    out = []
    for record in records:
        if record.type == "tool/result":
            data = record.data
            error = data.get("error")
            code = error["code"] if error else None
            call_id = data["call_id"]
            name = names.get(call_id, "?")
            out.append(CallOutcome(call_id, name, code, data["content"], data.get("value")))
    return tuple(out)


__all__ = ["OK", "CallOutcome", "RunOutcome", "calls_of"]
