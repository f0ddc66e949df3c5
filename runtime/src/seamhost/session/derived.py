"""The state a resume needs, derived from a session's records (docs/design.md, "Resume snapshots").

:class:`Derived` is a fold over the log: ``Derived().fold(records)`` over every record is what a
full replay yields, and a snapshot is a `Derived` written down at some seq. It holds only what
does not grow with the session:

* ``seq`` (the records folded, [0, seq)) and ``last_time``;
* ``last``: the last record of each type (``Session.last``: the sandbox mode, the approval
  policy, the last ``turn/start`` and so on);
* ``window``: the records from the last turn boundary (``turn/start`` or ``turn/end``) on. When
  the last turn is open, that is the open turn: its open step, its calls, its pending approvals,
  everything repair and a parked turn's resume read. Every backward scan for "the open turn"
  stops inside it;
* ``usage``: the totals the budget enforces (tokens from ``model/usage``, calls from each
  call's first ``tool/dispatch``).

The conversation the model is shown is *not* folded here: it grows with the session, and a
copy in every snapshot would make keeping snapshots quadratic. It is made of the records of the
types in :data:`SHOWN` (the agent derives the messages from them); a snapshot carries those
records in **pieces**, each snapshot adding the ones since the last (``chain`` names them:
:mod:`seamhost.session.snapshot`), so that the agent's first model request after a resume reads
them, not the whole log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs
import orjson

from seamhost.session.record import Columns, Record, committed_record

BOUNDARIES = frozenset({"turn/start", "turn/end"})
# The types of the records the conversation the model is shown is derived from (the agent's
# `_observe` ignores every other type, so these records alone derive the same messages).
SHOWN = frozenset(
    {
        "turn/start",
        "sandbox/mode",
        "user/message",
        "assistant/message",
        "tool/result",
        "tool/reconciled",
        "agent/inbox/spliced",
        "approval/policy",
    }
)
USAGE_KEYS = ("input_tokens", "output_tokens", "tool_calls")
USAGE = frozenset({"model/usage", "tool/dispatch"})  # the types whose data the usage counts


@attrs.define(eq=False)
class Derived:
    """The resume state after the records [0, `seq`) (mutable: `fold` advances it)."""

    seq: int = 0  # how many records are folded in
    last_time: int = 0  # the time of the last one (0 before any)
    last: dict[str, Record] = attrs.Factory(dict)  # the last record of each type
    window_start: int = 0  # the seq of the last turn boundary (0 before any)
    window: list[Record] = attrs.Factory(list)  # the records [window_start, seq)
    usage: dict[str, int] = attrs.Factory(lambda: dict.fromkeys(USAGE_KEYS, 0))
    # Not folded: the pieces the snapshot it was read from has, as (count, chain digest);
    # None when it has none (or it was not read from a snapshot).
    chain: tuple[int, str] | None = None

    def fold(self, records: Iterable[Record], *, window: bool = True) -> Derived:
        """Advance over `records`, which must continue at `seq`; returns self.

        Without `window`, the window is left empty and only its start is kept: a live session
        keeps its records anyway, and slices the window from them when it writes a snapshot
        (``resumed.Snapshots``), so a long open turn is not held twice, as records the garbage
        collector walks."""
        last, usage = self.last, self.usage
        kept = self.window if window else None
        for record in records:
            if record.seq != self.seq:
                raise ValueError(f"record seq {record.seq} does not follow {self.seq}")
            kind = record.type
            if kind in BOUNDARIES:
                self.window_start = record.seq
                if kept is not None:
                    kept = self.window = [record]
            elif kept is not None:
                kept.append(record)
            if kind in USAGE:
                _count(usage, kind, orjson.loads(record.data_json))
            last[kind] = record
            self.seq += 1
            self.last_time = record.time
        return self

    def fold_columns(self, columns: Columns) -> Derived:
        """``fold(records, window=False)`` over records the live session committed, given as
        columns (``CommittedRecords.columns``): only the last record of each type is made, and
        only the usage types' data is read (making a record of each cost about 8k of the 280k
        instructions each call added to a durable step, docs/design.md §9)."""
        if columns.first != self.seq:
            raise ValueError(f"record seq {columns.first} does not follow {self.seq}")
        types = columns.types
        if not types:
            return self
        usage = self.usage
        first, times, lines = columns.first, columns.times, columns.lines
        for index, kind in enumerate(types):
            if kind in USAGE:  # the envelope parsed whole: no data JSON cut out of it first
                _count(usage, kind, orjson.loads(lines[index])["data"])
        for kind, index in {kind: index for index, kind in enumerate(types)}.items():
            seq = first + index
            line, ignorable = lines[index], seq in columns.ignorable
            self.last[kind] = committed_record(seq, kind, times[index], line, ignorable=ignorable)
            if kind in BOUNDARIES and seq > self.window_start:
                self.window_start = seq
        self.seq = first + len(types)
        self.last_time = times[-1]
        return self

    # -- what it says -----------------------------------------------------------------------

    @property
    def open_turn(self) -> int | None:
        """The open turn's number, or None when the last turn ended (or none started)."""
        first = self.window[0] if self.window else None
        if first is None or first.type != "turn/start":
            return None
        return int(first.data["turn"])

    @property
    def open_step(self) -> int | None:
        """The open step of the open turn, or None."""
        step = None
        for record in self.window:
            if record.type == "step/start":
                step = int(record.data["step"])
            elif record.type == "step/end":
                step = None
        return step if self.open_turn is not None else None

    @property
    def pending_approvals(self) -> tuple[str, ...]:
        """The ids of the open turn's questions without a decision, in the order asked."""
        asked: dict[str, None] = {}
        for record in self.window:
            if record.type == "approval/asked":
                asked[str(record.data["id"])] = None
            elif record.type == "approval/decided":
                asked.pop(str(record.data["id"]), None)
        return tuple(asked) if self.open_turn is not None else ()

    @property
    def sandbox_mode(self) -> str | None:
        """The mode of the last ``sandbox/mode`` record (None: the profile's mode applies)."""
        record = self.last.get("sandbox/mode")
        return str(record.data["mode"]) if record is not None else None

    def summary(self) -> dict[str, Any]:
        """Everything it holds, as JSON (what `seamhost session verify` compares)."""
        return {
            "seq": self.seq,
            "last_time": self.last_time,
            "last": {kind: r.envelope().decode() for kind, r in sorted(self.last.items())},
            "window_start": self.window_start,
            "window": [r.envelope().decode() for r in self.window],
            "usage": dict(self.usage),
            "open_turn": self.open_turn,
            "open_step": self.open_step,
            "pending_approvals": list(self.pending_approvals),
            "sandbox_mode": self.sandbox_mode,
        }

    def copy(self) -> Derived:
        return Derived(
            self.seq,
            self.last_time,
            dict(self.last),
            self.window_start,
            list(self.window),
            dict(self.usage),
            self.chain,
        )


def _count(usage: dict[str, int], kind: str, data: dict[str, Any]) -> None:
    """Add to `usage` what a record of type `kind` (one of :data:`USAGE`) with `data`, parsed
    from its JSON, counts (``record.data`` would freeze the whole data and keep it on the
    record, for each of the calls a snapshot folds)."""
    if kind == "model/usage":
        usage["input_tokens"] += int(data["input_tokens"])
        usage["output_tokens"] += int(data["output_tokens"])
    elif data["attempt"] == 1:  # a tool/dispatch: a call counts at its first attempt
        usage["tool_calls"] += 1


def replay(records: Iterable[Record]) -> Derived:
    """The state a full replay of `records` (from seq 0) yields."""
    return Derived().fold(records)


def usage_of(mapping: Mapping[str, Any]) -> dict[str, int] | None:
    """`mapping`'s usage totals when it holds exactly the expected non-negative integers."""
    if set(mapping) != set(USAGE_KEYS):
        return None
    values = {key: mapping[key] for key in USAGE_KEYS}
    if not all(type(v) is int and v >= 0 for v in values.values()):
        return None
    return values


__all__ = ["BOUNDARIES", "SHOWN", "Derived", "replay"]
