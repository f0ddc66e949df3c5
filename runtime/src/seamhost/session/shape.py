"""The shape of a well-formed session log: what turns, steps, calls and approvals must nest as.

:func:`shape_problems` lists every place a sequence of records breaks these rules (an empty
list means the log is well formed); ``closed=True`` also requires that nothing is left open, which
is what repair guarantees. The rules:

* ``seq`` is contiguous from 0 and ``time`` never goes backwards;
* turns do not nest: ``turn/start`` only when no turn is open, ``turn/end`` closes the open one;
* steps live inside a turn and do not nest; a turn ends only once its step has ended;
* every call an ``assistant/message`` proposes gets exactly one ``tool/result`` in its step,
  before ``step/end``; no result exists for a call that was not proposed in that step;
* every ``approval/asked`` is decided at most once, and before its turn ends; it may be
  deferred first (``approval/deferred``, at most once, before any decision);
* a ``tool/reconciled`` record resolves a call whose result was ``TOOL_OUTCOME_UNKNOWN``, once;
* ``session/takeover`` names the open turn and its open step (none when no step is open): a
  continuation takes over a turn that is open, never a closed one;
* ``turn/parked`` parks the open step of the open turn, naming calls whose outcome is unknown.

A turn parked on a deferred approval or on reconciliation (:mod:`seamhost.session.suspension`)
is open but not unfinished: ``closed=True`` accepts it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from seamhost.session.record import Record
from seamhost.session.suspension import find_parking, find_suspension


def shape_problems(records: Iterable[Record], *, closed: bool = False) -> list[str]:
    """Every violation of the log's nesting rules, as sentences naming the seq."""
    shape = _Shape()
    fed = list(records)
    for record in fed:
        shape.feed(record)
    parked = find_suspension(fed) is not None or find_parking(fed) is not None
    if closed and shape.turn is not None and not parked:
        shape.problems.append(f"turn {shape.turn} is still open at the end of the log")
    return shape.problems


class _Shape:
    """Follows the open turn, step, calls and approvals record by record."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.turn: int | None = None
        self.step: int | None = None
        self.pending: set[str] = set()  # calls proposed in this step still awaiting a result
        self.results: set[str] = set()
        self.asked: set[str] = set()
        self.decided: set[str] = set()
        self.deferred: set[str] = set()
        self.unknown: set[str] = set()  # calls whose outcome is unknown and not reconciled
        self.next_seq = 0
        self.last_time = 0

    def feed(self, record: Record) -> None:
        if record.seq != self.next_seq:
            self._problem(record, f"expected seq {self.next_seq}")
        self.next_seq = record.seq + 1
        if record.time < self.last_time:
            self._problem(record, "time goes backwards")
        self.last_time = max(self.last_time, record.time)
        handler = getattr(self, "_" + record.type.replace("/", "_"), None)
        if handler is not None:
            handler(record, record.data)

    def _problem(self, record: Record, text: str) -> None:
        self.problems.append(f"seq {record.seq}: {text}")

    def _turn_start(self, record: Record, data: Any) -> None:
        if self.turn is not None:
            self._problem(record, f"turn {data['turn']} starts while turn {self.turn} is open")
        self.turn, self.step = int(data["turn"]), None

    def _turn_end(self, record: Record, data: Any) -> None:
        if self.turn is None or data["turn"] != self.turn:
            self._problem(record, f"turn/end for turn {data['turn']} that is not open")
        if self.step is not None:
            self._problem(record, f"turn ends while step {self.step} is open")
        undecided = sorted(self.asked - self.decided)
        if undecided:
            self._problem(record, f"turn ends with undecided approvals {undecided}")
        self.turn, self.step = None, None
        self.asked.clear()
        self.decided.clear()
        self.deferred.clear()

    def _step_start(self, record: Record, data: Any) -> None:
        if self.turn is None:
            self._problem(record, "step starts outside a turn")
        if self.step is not None:
            self._problem(record, f"step {data['step']} starts while step {self.step} is open")
        self.step = int(data["step"])
        self.pending.clear()
        self.results.clear()

    def _step_end(self, record: Record, data: Any) -> None:
        if self.step is None or data["step"] != self.step:
            self._problem(record, f"step/end for step {data['step']} that is not open")
        for call_id in sorted(self.pending):
            self._problem(record, f"step ends without a result for call {call_id}")
        self.step = None
        self.pending.clear()

    def _assistant_message(self, record: Record, data: Any) -> None:
        if self.step is None:
            self._problem(record, "assistant message outside a step")
        self.pending.update(str(call["call_id"]) for call in data.get("tool_calls", ()))

    def _tool_result(self, record: Record, data: Any) -> None:
        call_id = str(data["call_id"])
        if call_id in self.results:
            self._problem(record, f"a second result for call {call_id}")
        elif call_id not in self.pending:
            self._problem(record, f"result for call {call_id} not proposed in this step")
        self.pending.discard(call_id)
        self.results.add(call_id)
        error = data.get("error") or {}
        if error.get("code") == "TOOL_OUTCOME_UNKNOWN":
            self.unknown.add(call_id)

    def _tool_reconciled(self, record: Record, data: Any) -> None:
        call_id = str(data["call_id"])
        if call_id not in self.unknown:
            self._problem(record, f"call {call_id} reconciled, but its outcome was not unknown")
        self.unknown.discard(call_id)

    def _session_takeover(self, record: Record, data: Any) -> None:
        if self.turn is None or data["turn"] != self.turn:
            self._problem(record, f"takeover of turn {data['turn']}, which is not open")
        elif data.get("step") != self.step:
            self._problem(
                record, f"takeover names step {data.get('step')}, the open one is {self.step}"
            )

    def _turn_parked(self, record: Record, data: Any) -> None:
        if self.turn is None or data["turn"] != self.turn or data["step"] != self.step:
            self._problem(
                record, f"turn {data['turn']} step {data['step']} parked, which is not open"
            )
        for call_id in data["calls"]:
            if call_id not in self.unknown:
                self._problem(record, f"parked on call {call_id}, whose outcome is not unknown")

    def _approval_asked(self, record: Record, data: Any) -> None:
        if self.turn is None:
            self._problem(record, "approval asked outside a turn")
        self.asked.add(str(data["id"]))

    def _approval_deferred(self, record: Record, data: Any) -> None:
        approval = str(data["id"])
        if approval not in self.asked:
            self._problem(record, f"approval {approval} deferred but never asked")
        elif approval in self.decided or approval in self.deferred:
            self._problem(record, f"approval {approval} deferred after it was settled")
        self.deferred.add(approval)

    def _approval_decided(self, record: Record, data: Any) -> None:
        approval = str(data["id"])
        if approval not in self.asked:
            self._problem(record, f"decision for approval {approval} never asked")
        elif approval in self.decided:
            self._problem(record, f"approval {approval} decided twice")
        self.decided.add(approval)
