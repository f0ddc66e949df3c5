"""The unknown outcomes of a session: calls whose result is ``TOOL_OUTCOME_UNKNOWN``, unresolved.

Read from the log alone (design.md §10): the ``tool/call`` says what was proposed, the last
``tool/dispatch`` which attempt ran and with which arguments digest, the ``tool/result`` that the
outcome is unknown; a ``tool/reconciled`` closes it, and a ``tool/reconcile/pending`` says when a
status probe wants to be asked again.

A call whose last ``tool/dispatch`` has no result at all is in flight: its body may be running
now, or a crash stopped it and nobody has repaired or taken the session over yet. It is listed
too, marked ``unrepaired`` (its outcome is just as unknown, and an operator watching a dead
worker's run should see it before the next owner does), but it cannot be reconciled until a
repair or a takeover has recorded its unknown result.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import attrs

from seamhost.errors import ErrorCode, SeamhostError

if TYPE_CHECKING:
    from seamhost.session.record import Record
    from seamhost.session.store import SessionStore

UNKNOWN = ErrorCode.TOOL_OUTCOME_UNKNOWN.value


@attrs.frozen
class Unknown:
    """A call whose outcome is unknown, bound to the attempt that was dispatched last."""

    session_id: str
    call_id: str
    tool: str
    turn: int
    step: int
    attempt: int
    args_digest: str
    descriptor_digest: str | None
    arguments: str  # the raw string the model produced
    effect: str | None
    idempotent: bool | None
    time: int  # when the unknown result was recorded (ms)
    retry_at: int | None = None  # a status probe's "ask again" time, if it answered pending
    unrepaired: bool = False  # dispatched without a result: in flight, or left so by a crash

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


@attrs.frozen
class CallState:
    """Everything the log says about one call id, as the reconciliation rules need it."""

    call: Any = None  # the tool/call data
    dispatch: Any = None  # the last tool/dispatch data
    result: Any = None  # the last tool/result data
    result_time: int = 0
    reconciled: Any = None  # the tool/reconciled data
    pending: Any = None  # the last tool/reconcile/pending data


def call_states(records: Iterable[Record]) -> dict[str, CallState]:
    """Each call id's state after `records` (a call id proposed twice: its last use)."""
    states: dict[str, CallState] = {}
    for record in records:
        kind = record.type
        if not kind.startswith("tool/"):
            continue
        data = record.data
        call_id = str(data["call_id"])
        state = states.get(call_id, CallState())
        if kind == "tool/call":
            state = CallState(call=data)
        elif kind == "tool/dispatch":
            state = attrs.evolve(state, dispatch=data)
        elif kind == "tool/result":
            state = attrs.evolve(state, result=data, result_time=record.time)
        elif kind == "tool/reconciled":
            state = attrs.evolve(state, reconciled=data)
        elif kind == "tool/reconcile/pending":
            state = attrs.evolve(state, pending=data)
        else:
            continue
        states[call_id] = state
    return states


def is_unknown(state: CallState) -> bool:
    """Whether the call's result says its outcome is unknown."""
    error = (state.result or {}).get("error") or {}
    return bool(error.get("code") == UNKNOWN)


def is_in_flight(state: CallState) -> bool:
    """Whether the call was dispatched and has no result yet (its attempts all end in one)."""
    return state.call is not None and state.dispatch is not None and state.result is None


def unknowns(
    session_id: str, records: Iterable[Record], *, in_flight: bool = False
) -> list[Unknown]:
    """The unresolved unknown outcomes of a session, in the order their results were recorded;
    with `in_flight`, the dispatched calls without a result too (``unrepaired``)."""
    records = list(records)
    dispatched: dict[str, int] = {}  # an in-flight call's outcome is unknown since its dispatch
    if in_flight:
        for record in records:
            if record.type == "tool/dispatch":
                dispatched[str(record.data["call_id"])] = record.time
    found = []
    for call_id, state in call_states(records).items():
        unrepaired = in_flight and is_in_flight(state)
        if not unrepaired and (
            not is_unknown(state) or state.reconciled is not None or state.call is None
        ):
            continue
        dispatch = state.dispatch or {}
        attempt = int(dispatch.get("attempt", 1))
        pending = state.pending
        retry_at = None
        if pending is not None and int(pending["attempt"]) == attempt:
            retry_at = int(pending["retry_at"])
        found.append(
            Unknown(
                session_id=session_id,
                call_id=call_id,
                tool=str(state.call["name"]),
                turn=int(state.call["turn"]),
                step=int(state.call["step"]),
                attempt=attempt,
                args_digest=str(dispatch.get("args_digest", "")),
                descriptor_digest=state.call.get("descriptor_digest"),
                arguments=str(state.call["arguments"]),
                effect=dispatch.get("effect"),
                idempotent=dispatch.get("idempotent"),
                time=dispatched[call_id] if unrepaired else state.result_time,
                retry_at=retry_at,
                unrepaired=unrepaired,
            )
        )
    return sorted(found, key=lambda u: u.time)


def stored_unknowns(store: SessionStore, *, in_flight: bool = False) -> Iterator[Unknown]:
    """Every unresolved unknown outcome across the sessions of `store` (readers never lock);
    with `in_flight`, the calls dispatched without a result too."""
    for session_id in sorted(store.ids()):
        try:
            records = list(store.read(session_id).records())
        except SeamhostError:  # a damaged session is `session verify`'s to report
            continue
        yield from unknowns(session_id, records, in_flight=in_flight)


__all__ = [
    "CallState",
    "Unknown",
    "call_states",
    "is_in_flight",
    "is_unknown",
    "stored_unknowns",
    "unknowns",
]
