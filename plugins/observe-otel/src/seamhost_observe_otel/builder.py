"""Records in, finished spans out: a pure function of a session's log, fed one record at a time.

:class:`SpanBuilder` is given the session's header facts and then each record in commit order
(live, from ``session/event``; or a stored log read back), and returns the spans each record
finishes. It does no I/O and reads no clock: every time is a record's own ``time``, so the same
log always gives the same spans (:mod:`seamhost_observe_otel.spans` derives their ids too).

The tree, per turn (one trace each)::

    invoke_agent                 turn/start .. turn/end
      chat <model>               model/attempt .. assistant/message or model/failed
      execute_tool <tool>        tool/call .. tool/result
      seamhost.reconcile         tool/reconciled, tool/reconcile/pending (under their call)
      seamhost.repair            session/repaired

What happens between those records lands on the open span as attributes or span events:
usage on its ``chat``; approvals, dispatches and failed attempts on their ``execute_tool``;
parking, takeovers and spliced contexts on the ``invoke_agent``.

A log that starts mid-turn (a process resuming a parked turn or taking over a crashed one)
opens a *segment*: an ``invoke_agent`` marked ``seamhost.resumed`` in the turn's trace, child
of the turn's first span, whose id the turn number alone gives. A call first seen at its
dispatch is placed when its result names the turn. Spans still open when the log (or the
process) ends are finished by :meth:`SpanBuilder.close` at the last record's time and marked
``seamhost.incomplete``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from seamhost_observe_otel import conventions as cv
from seamhost_observe_otel.open_span import OpenSpan, add_count
from seamhost_observe_otel.spans import AttributeValue, SpanDescription, ns, span_id, trace_id

if TYPE_CHECKING:
    from seamhost import Record, SessionHeader

UNKNOWN_OUTCOME = "TOOL_OUTCOME_UNKNOWN"
# What a result's meta says about its sandbox (the backend only when a body was confined).
_SANDBOX_META = {
    "sandbox_mode": "seamhost.sandbox.mode",
    "backend": "seamhost.sandbox.backend",
    "enforcement": "seamhost.sandbox.enforcement",
}


@attrs.frozen
class SessionFacts:
    """What a session's header says that every span repeats."""

    session_id: str
    profile: str = ""
    model_plugin: str | None = None
    model: str | None = None
    sandbox_mode: str | None = None

    @classmethod
    def of(cls, header: SessionHeader) -> SessionFacts:
        bundle = header.bundle
        model = bundle.get("model") or {}
        return cls(
            session_id=header.session_id,
            profile=str(bundle.get("profile") or ""),
            model_plugin=model.get("plugin"),
            model=model.get("model"),
            sandbox_mode=bundle.get("sandbox_mode"),
        )


@attrs.frozen
class _Settled:
    """A call that ended with an unknown outcome: its reconciliation is its child."""

    trace: int
    span_id: int
    tool: str


class SpanBuilder:
    """The spans of one session's log. Feed each record once, in ``seq`` order."""

    def __init__(self, facts: SessionFacts, *, capture_content: bool = False) -> None:
        self.facts = facts
        self.capture_content = capture_content
        self._provider = cv.provider_name(facts.model_plugin)
        self._sandbox_mode = facts.sandbox_mode
        self._approval_policy: str | None = None
        self._turns: dict[int, OpenSpan] = {}
        self._chats: dict[tuple[int, int], OpenSpan] = {}
        self._calls: dict[str, OpenSpan] = {}
        self._approvals: dict[str, str] = {}  # approval id -> call id
        self._unknown: dict[str, _Settled] = {}  # call id -> its span, until reconciled
        self._last_ms = 0
        self._done: list[SpanDescription] = []
        self._handlers: Mapping[str, Callable[[Record, Any], None]] = {
            "turn/start": self._turn_start,
            "turn/end": self._turn_end,
            "turn/parked": self._turn_parked,
            "step/start": self._step_start,
            "user/message": self._user_message,
            "model/attempt": self._model_attempt,
            "model/usage": self._model_usage,
            "model/failed": self._model_failed,
            "assistant/message": self._assistant_message,
            "tool/call": self._tool_call,
            "approval/asked": self._approval_asked,
            "approval/deferred": self._approval_deferred,
            "approval/decided": self._approval_decided,
            "approval/policy": self._approval_policy_set,
            "tool/dispatch": self._tool_dispatch,
            "tool/attempt/failed": self._attempt_failed,
            "tool/result": self._tool_result,
            "tool/reconciled": self._reconciled,
            "tool/reconcile/pending": self._reconcile_pending,
            "sandbox/mode": self._sandbox_mode_set,
            "agent/inbox/spliced": self._inbox_spliced,
            "session/repaired": self._repaired,
            "session/takeover": self._takeover,
        }

    # -- the interface -------------------------------------------------------------------------

    def feed(self, record: Record) -> list[SpanDescription]:
        """The spans `record` finishes (often none). Types it does not know are skipped."""
        self._last_ms = max(self._last_ms, record.time)
        handler = self._handlers.get(record.type)
        if handler is None:
            return []
        handler(record, record.data)
        done, self._done = self._done, []
        return done

    def close(self) -> list[SpanDescription]:
        """Finish every open span at the last record's time, marked ``seamhost.incomplete``."""
        end = ns(self._last_ms)
        for key, chat in list(self._chats.items()):
            chat.attributes[cv.INCOMPLETE] = True
            self._finish_in_turn(chat, end)
            del self._chats[key]
        for call_id, call in list(self._calls.items()):
            call.attributes[cv.INCOMPLETE] = True
            if call.turn is None:  # never placed: a trace of its own
                self._done.append(call.finish(trace_id(self._sid, "call", call_id), None, end))
            else:
                self._finish_in_turn(call, end)
            del self._calls[call_id]
        for number, turn in sorted(self._turns.items()):
            turn.attributes[cv.INCOMPLETE] = True
            self._finish_turn(number, turn, end)
        self._turns.clear()
        done, self._done = self._done, []
        return done

    # -- turns ----------------------------------------------------------------------------------

    @property
    def _sid(self) -> str:
        return self.facts.session_id

    def _turn_start(self, record: Record, data: Any) -> None:
        number = int(data["turn"])
        self._turns[number] = self._open_turn(number, record.time, span_id(self._sid, number))

    def _open_turn(self, number: int, time_ms: int, sid: int) -> OpenSpan:
        attributes: dict[str, AttributeValue] = {
            cv.OPERATION: cv.INVOKE_AGENT,
            cv.PROVIDER: self._provider,
            cv.CONVERSATION: self._sid,
            cv.SESSION: self._sid,
            cv.PROFILE: self.facts.profile,
            cv.TURN: number,
            "seamhost.turn.steps": 0,
            "seamhost.turn.tool_calls": 0,
        }
        if self.facts.model:
            attributes[cv.REQUEST_MODEL] = self.facts.model
        if self._sandbox_mode:
            attributes["seamhost.sandbox.mode"] = self._sandbox_mode
        if self._approval_policy:
            attributes["seamhost.approval.policy"] = self._approval_policy
        return OpenSpan(cv.INVOKE_AGENT, "internal", ns(time_ms), sid, attributes, number)

    def _turn(self, number: int, record: Record) -> OpenSpan:
        """Turn `number`'s open span; a resumed segment when this log did not see it start."""
        turn = self._turns.get(number)
        if turn is None:
            start = min([record.time, *(c.start_ns // 1_000_000 for c in self._unplaced())])
            turn = self._open_turn(number, start, span_id(self._sid, number, record.seq))
            turn.attributes[cv.RESUMED] = True
            self._turns[number] = turn
        return turn

    def _unplaced(self) -> list[OpenSpan]:
        return [call for call in self._calls.values() if call.turn is None]

    def _turn_end(self, record: Record, data: Any) -> None:
        number = int(data["turn"])
        turn = self._turn(number, record)
        reason = str(data["reason"])
        turn.attributes["seamhost.turn.outcome"] = reason
        if reason == "error":
            turn.error = reason
            turn.status_message = data.get("message")
        self._finish_turn(number, turn, ns(record.time))
        del self._turns[number]

    def _finish_turn(self, number: int, turn: OpenSpan, end: int) -> None:
        anchor = span_id(self._sid, number)
        parent = None if turn.span_id == anchor else anchor
        self._done.append(turn.finish(trace_id(self._sid, number), parent, end))

    def _finish_in_turn(self, span: OpenSpan, end: int) -> None:
        """Finish a span whose turn is known, as a child of that turn's open span."""
        assert span.turn is not None
        parent = self._turns.get(span.turn)
        parent_id = parent.span_id if parent is not None else span_id(self._sid, span.turn)
        self._done.append(span.finish(trace_id(self._sid, span.turn), parent_id, end))

    def _turn_parked(self, record: Record, data: Any) -> None:
        turn = self._turn(int(data["turn"]), record)
        turn.attributes["seamhost.turn.parked"] = True
        turn.attributes["seamhost.turn.parked_calls"] = tuple(data.get("calls") or ())
        turn.event("seamhost.parked", record.time, reason=str(data.get("reason", "")))

    def _step_start(self, record: Record, data: Any) -> None:
        turn = self._turn(int(data["turn"]), record)
        turn.attributes["seamhost.turn.steps"] = int(data["step"])

    def _user_message(self, record: Record, data: Any) -> None:
        turn = self._turn(int(data["turn"]), record)
        if self.capture_content:
            turn.attributes[cv.INPUT_MESSAGES] = cv.message_json("user", str(data["content"]))

    def _inbox_spliced(self, record: Record, data: Any) -> None:
        turn = self._turn(int(data["turn"]), record)
        turn.event("seamhost.inbox.spliced", record.time, contexts=len(data.get("contexts", ())))

    def _takeover(self, record: Record, data: Any) -> None:
        turn = self._turn(int(data["turn"]), record)
        turn.attributes["seamhost.takeover.owner"] = str(data["owner"])
        extra: dict[str, AttributeValue] = {"owner": str(data["owner"])}
        if data.get("epoch") is not None:
            extra["epoch"] = int(data["epoch"])
        turn.event("seamhost.takeover", record.time, **extra)

    def _repaired(self, record: Record, data: Any) -> None:
        number = int(data["turn"])
        closed = tuple(f"{c['call_id']} {c['code']}" for c in data.get("calls", ()))
        span = OpenSpan(
            cv.REPAIR,
            "internal",
            ns(record.time),
            span_id(self._sid, record.seq),
            {
                cv.SESSION: self._sid,
                cv.TURN: number,
                "seamhost.repair.closed_calls": closed,
                "seamhost.repair.closed_approvals": tuple(data.get("approvals", ())),
                "seamhost.repair.torn_records": int(data.get("torn_records", 0)),
            },
            number,
        )
        self._finish_in_turn(span, ns(record.time))

    def _sandbox_mode_set(self, record: Record, data: Any) -> None:
        self._sandbox_mode = str(data["mode"])

    def _approval_policy_set(self, record: Record, data: Any) -> None:
        self._approval_policy = str(data["policy"])

    # -- model attempts -------------------------------------------------------------------------

    def _model_attempt(self, record: Record, data: Any) -> None:
        number, step = int(data["turn"]), int(data["step"])
        self._turn(number, record)
        model = str(data["model"])
        self._chats[(number, step)] = OpenSpan(
            f"{cv.CHAT} {model}",
            "client",
            ns(record.time),
            span_id(self._sid, record.seq),
            {
                cv.OPERATION: cv.CHAT,
                cv.PROVIDER: self._provider,
                cv.SYSTEM: self._provider,
                cv.REQUEST_MODEL: model,
                cv.CONVERSATION: self._sid,
                cv.SESSION: self._sid,
                cv.TURN: number,
                cv.STEP: step,
                cv.ATTEMPT: int(data["attempt"]),
                "seamhost.request_digest": str(data["request_digest"]),
            },
            number,
        )

    def _model_usage(self, record: Record, data: Any) -> None:
        number = int(data["turn"])
        usage = {
            cv.INPUT_TOKENS: int(data["input_tokens"]),
            cv.OUTPUT_TOKENS: int(data["output_tokens"]),
            cv.CACHED_TOKENS: int(data.get("cached_input_tokens", 0)),
        }
        chat = self._chats.get((number, int(data["step"])))
        if chat is not None:
            chat.attributes.update(usage)
        turn = self._turn(number, record)
        for key, value in usage.items():  # the turn's totals
            add_count(turn.attributes, key, value)

    def _model_failed(self, record: Record, data: Any) -> None:
        chat = self._chats.pop((int(data["turn"]), int(data["step"])), None)
        if chat is None:
            return
        chat.error = str(data["code"])
        chat.status_message = str(data["message"])
        chat.attributes[cv.ERROR_TYPE] = chat.error
        chat.attributes["seamhost.retryable"] = bool(data.get("retryable"))
        self._finish_in_turn(chat, ns(record.time))

    def _assistant_message(self, record: Record, data: Any) -> None:
        number = int(data["turn"])
        calls = data.get("tool_calls") or ()
        turn = self._turn(number, record)
        if self.capture_content:
            text = cv.message_json("assistant", str(data.get("content", "")), calls)
            turn.attributes[cv.OUTPUT_MESSAGES] = text
        chat = self._chats.pop((number, int(data["step"])), None)
        if chat is None:
            return
        # The log keeps the model the request named, not a provider's own response model.
        chat.attributes[cv.RESPONSE_MODEL] = chat.attributes[cv.REQUEST_MODEL]
        chat.attributes[cv.FINISH_REASONS] = (cv.finish_reason(calls),)
        if self.capture_content:
            chat.attributes[cv.OUTPUT_MESSAGES] = turn.attributes[cv.OUTPUT_MESSAGES]
        self._finish_in_turn(chat, ns(record.time))

    # -- calls ----------------------------------------------------------------------------------

    def _tool_call(self, record: Record, data: Any) -> None:
        number, call_id = int(data["turn"]), str(data["call_id"])
        turn = self._turn(number, record)
        add_count(turn.attributes, "seamhost.turn.tool_calls", 1)
        call = self._open_call(call_id, str(data["name"]), record, number)
        call.attributes[cv.STEP] = int(data["step"])
        if self.capture_content:
            call.attributes[cv.TOOL_ARGUMENTS] = str(data["arguments"])

    def _open_call(self, call_id: str, tool: str, record: Record, turn: int | None) -> OpenSpan:
        call = OpenSpan(
            f"{cv.EXECUTE_TOOL} {tool}",
            "internal",
            ns(record.time),
            span_id(self._sid, record.seq),
            {
                cv.OPERATION: cv.EXECUTE_TOOL,
                cv.TOOL_NAME: tool,
                cv.TOOL_CALL_ID: call_id,
                cv.TOOL_TYPE: "function",
                cv.SESSION: self._sid,
                "seamhost.idempotency_key": f"{self._sid}:{call_id}",
            },
            turn,
        )
        if turn is not None:
            call.attributes[cv.TURN] = turn
        self._calls[call_id] = call
        return call

    def _call_of_approval(self, data: Any) -> OpenSpan | None:
        call_id = self._approvals.get(str(data["id"])) or data.get("call_id")
        return self._calls.get(str(call_id)) if call_id is not None else None

    def _approval_asked(self, record: Record, data: Any) -> None:
        self._approvals[str(data["id"])] = str(data["call_id"])
        call = self._calls.get(str(data["call_id"]))
        if call is None:
            return
        call.attributes["seamhost.approval.id"] = str(data["id"])
        call.attributes["seamhost.approval.reason"] = str(data["reason"])
        if data.get("escalation"):
            call.attributes["seamhost.approval.escalation"] = str(data["escalation"])
        call.event("seamhost.approval.asked", record.time, reason=str(data["reason"]))

    def _approval_deferred(self, record: Record, data: Any) -> None:
        call = self._call_of_approval(data)
        if call is None:
            return
        call.attributes["seamhost.approval.deferred"] = True
        if data.get("expires") is not None:
            call.attributes["seamhost.approval.expires"] = int(data["expires"])
        call.event("seamhost.approval.deferred", record.time)

    def _approval_decided(self, record: Record, data: Any) -> None:
        call = self._call_of_approval(data)
        if call is None:
            return
        outcome = str(data["outcome"])
        answerer = data.get("answerer") or data.get("decider")
        call.attributes["seamhost.approval.outcome"] = outcome
        if answerer:
            call.attributes["seamhost.approval.answerer"] = str(answerer)
        if data.get("source"):
            call.attributes["seamhost.approval.source"] = str(data["source"])
        call.event("seamhost.approval.decided", record.time, outcome=outcome)

    def _tool_dispatch(self, record: Record, data: Any) -> None:
        call_id = str(data["call_id"])
        call = self._calls.get(call_id)
        if call is None:  # a call this log did not see proposed: a resumed step
            call = self._open_call(call_id, "unknown", record, None)
            call.attributes[cv.RESUMED] = True
        attempt = int(data["attempt"])
        call.attributes[cv.ATTEMPT] = attempt
        call.attributes["seamhost.sandbox.mode"] = str(data["sandbox_mode"])
        call.attributes["seamhost.args_digest"] = str(data["args_digest"])
        if data.get("effect") is not None:
            call.attributes["seamhost.tool.effect"] = str(data["effect"])
        if data.get("idempotent") is not None:
            call.attributes["seamhost.tool.idempotent"] = bool(data["idempotent"])
        call.event("seamhost.dispatch", record.time, attempt=attempt)

    def _attempt_failed(self, record: Record, data: Any) -> None:
        call = self._calls.get(str(data["call_id"]))
        if call is None:
            return
        error = data["error"]
        call.event(
            "seamhost.attempt.failed",
            record.time,
            attempt=int(data["attempt"]),
            code=str(error["code"]),
        )

    def _tool_result(self, record: Record, data: Any) -> None:
        number, call_id = int(data["turn"]), str(data["call_id"])
        call = self._calls.get(call_id)
        if call is None:
            return
        if call.turn is None:  # placed now that the result names the turn
            self._turn(number, record)  # a segment opened here starts with the unplaced calls
            call.turn = number
            call.attributes[cv.TURN] = number
        del self._calls[call_id]
        call.attributes[cv.STEP] = int(data["step"])
        meta = data.get("meta") or {}
        call.attributes.update(cv.decision_attributes(meta.get("decisions") or ()))
        for key, name in _SANDBOX_META.items():
            if meta.get(key) is not None:
                call.attributes[name] = str(meta[key])
        error = data.get("error")
        code = str(error["code"]) if error else ("TOOL_ERROR" if data.get("is_error") else None)
        call.attributes["seamhost.outcome"] = code or "ok"
        if code is not None:
            call.error = code
            call.attributes[cv.ERROR_TYPE] = code
            if self.capture_content and error:
                call.status_message = str(error["message"])
        if self.capture_content:
            call.attributes[cv.TOOL_RESULT] = str(data.get("content", ""))
        if code == UNKNOWN_OUTCOME:
            call.attributes["seamhost.outcome.unknown"] = True
            tool = str(call.attributes[cv.TOOL_NAME])
            self._unknown[call_id] = _Settled(trace_id(self._sid, number), call.span_id, tool)
        self._finish_in_turn(call, ns(record.time))

    # -- unknown outcomes -----------------------------------------------------------------------

    def _reconciled(self, record: Record, data: Any) -> None:
        call_id = str(data["call_id"])
        settled = self._unknown.pop(call_id, None)
        span = self._reconcile_span(record, call_id, settled)
        outcome = str(data["outcome"])
        span.attributes["seamhost.reconciled.outcome"] = outcome
        span.attributes["seamhost.reconciled.source"] = str(data["source"])
        span.attributes["seamhost.reconciled.evidence_digest"] = str(data["evidence_digest"])
        error = data.get("error")
        if error:
            span.error = str(error["code"])
            span.attributes[cv.ERROR_TYPE] = span.error
        self._finish_reconcile(span, call_id, settled, record)

    def _reconcile_pending(self, record: Record, data: Any) -> None:
        call_id = str(data["call_id"])
        settled = self._unknown.get(call_id)
        span = self._reconcile_span(record, call_id, settled)
        span.attributes["seamhost.reconcile.pending"] = True
        span.attributes["seamhost.reconcile.retry_at"] = int(data["retry_at"])
        span.attributes["seamhost.reconcile.reason"] = str(data["reason"])
        self._finish_reconcile(span, call_id, settled, record)

    def _reconcile_span(self, record: Record, call_id: str, settled: _Settled | None) -> OpenSpan:
        attributes: dict[str, AttributeValue] = {
            cv.TOOL_CALL_ID: call_id,
            cv.SESSION: self._sid,
            cv.ATTEMPT: int(record.data["attempt"]),
        }
        if settled is not None:
            attributes[cv.TOOL_NAME] = settled.tool
        return OpenSpan(
            cv.RECONCILE, "internal", ns(record.time), span_id(self._sid, record.seq), attributes
        )

    def _finish_reconcile(
        self, span: OpenSpan, call_id: str, settled: _Settled | None, record: Record
    ) -> None:
        if settled is not None:  # under the call whose outcome it settles
            self._done.append(span.finish(settled.trace, settled.span_id, ns(record.time)))
        else:  # the call ended in another process: a trace of its own
            trace = trace_id(self._sid, "reconcile", call_id)
            self._done.append(span.finish(trace, None, ns(record.time)))
