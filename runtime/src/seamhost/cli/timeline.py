"""A readable rendering of a session, record by record: ``session show`` and ``run``'s live view.

Everything shown is derived from committed records, so it never claims more than the log holds:
a call is "dispatched" only once its ``tool/dispatch`` record exists, and its outcome is its
``tool/result`` record's. An event type without a rendering is shown by type and data, so nothing
stored is hidden. What repair would add to an open tail can be shown, marked as such, without
writing anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from seamhost.cli.display import clip, esc, format_time, header_json
from seamhost.cli.next_steps import (
    answer_command,
    awaits_reconciliation,
    continue_command,
    model_of,
)
from seamhost.session.suspension import find_suspension

if TYPE_CHECKING:
    from rich.console import Console

    from seamhost.session.record import Record
    from seamhost.session.repair import RepairPlan
    from seamhost.session.store import SessionHeader


class Timeline:
    """Renders records one line per event, indented by turn and step."""

    def __init__(self, out: Console) -> None:
        self.out = out
        self.calls: dict[str, str] = {}  # call_id -> tool name
        self.open_turn: int | None = None
        self.parked_turn: int | None = None  # a turn/parked record's: it waits on reconciling
        self.count = 0
        self.prefix = ""
        self.renderers: dict[str, Callable[[Any], None]] = {
            "turn/start": self.turn_start,
            "turn/end": self.turn_end,
            "step/start": self.step_start,
            "step/end": lambda data: None,
            "user/message": self.user_message,
            "assistant/message": self.assistant_message,
            "tool/call": self.tool_call,
            "approval/asked": self.approval_asked,
            "approval/decided": self.approval_decided,
            "approval/policy": self.approval_policy,
            "tool/dispatch": self.tool_dispatch,
            "tool/result": self.tool_result,
            "sandbox/mode": self.sandbox_mode,
            "agent/inbox/spliced": self.inbox_spliced,
            "session/repaired": self.repaired,
            "approval/deferred": self.approval_deferred,
            "tool/attempt/failed": self.attempt_failed,
            "tool/reconciled": self.reconciled,
            "tool/reconcile/pending": self.reconcile_pending,
            "model/attempt": self.model_attempt,
            "model/usage": self.model_usage,
            "model/failed": self.model_failed,
            "session/takeover": self.takeover,
            "turn/parked": self.turn_parked,
            "a2a/task": self.a2a_task,
        }
        self.time: int | None = None  # the time of the record being rendered, when known

    def __call__(self, record: Record) -> None:
        """Render one committed record (``Session.listen`` calls this for a live view)."""
        self.time = record.time
        self.feed(record.type, record.data)
        self.time = None

    def feed(self, type_: str, data: Any) -> None:
        self.count += 1
        renderer = self.renderers.get(type_)
        if renderer is None:
            self.say(2, f"[dim]{esc(type_)}[/dim] {clip(str(dict(data)), 100)}")
        else:
            renderer(data)

    def render(
        self, header: SessionHeader, records: Iterable[Record], repair: RepairPlan | None = None
    ) -> None:
        """The whole session; `repair` is what repair would add, shown marked, not written."""
        info = header_json(header)
        barriers = "on" if header.barriers else "off (unfinished calls count as outcome-unknown)"
        self.say(0, f"[bold]session[/bold] {esc(header.session_id)}")
        self.say(1, f"created {format_time(header.created)}  cwd {esc(header.cwd)}")
        self.say(
            1,
            f"profile {esc(str(info['profile'] or '-'))}  "
            f"bundle {esc(str(info['bundle_digest'] or '-'))}  barriers {barriers}",
        )
        seen = list(records)
        for record in seen:
            self(record)

        parked = find_suspension(seen) if self.open_turn is not None else None
        if parked is not None:
            sid = header.session_id
            then = esc(continue_command(sid, model_of(header)))
            answer = (
                f"answered: continue with `{then}`"
                if parked.decision
                else (
                    f"answer it with `{esc(answer_command(sid, parked.approval_id))}` or "
                    f"`seamhost reject ...`, then continue with `{then}`"
                )
            )
            self.say(
                0,
                f"[yellow]turn {self.open_turn} is parked on approval "
                f"{esc(parked.approval_id)}: {answer}[/yellow]",
            )
        elif self.open_turn is not None and self.parked_turn == self.open_turn:
            then = continue_command(header.session_id, model_of(header))
            advice = awaits_reconciliation(header.session_id, None, then).partition(": ")[2]
            self.say(0, f"[yellow]turn {self.open_turn} is parked: {esc(advice)}[/yellow]")
        elif self.open_turn is not None:
            self.say(
                0,
                f"[yellow]turn {self.open_turn} is open (no turn/end): the session is running, "
                "or it crashed and awaits `seamhost session repair`[/yellow]",
            )
        count = self.count
        if repair is not None:
            self.say(0, "[yellow]repair would add (not written):[/yellow]")
            self.prefix = "[yellow]+[/yellow] "
            for type_, data in repair.events:
                self.feed(type_, data)
            self.prefix = ""
        self.say(0, f"{count} record(s)")

    def say(self, depth: int, text: str) -> None:
        self.out.print(self.prefix + "  " * depth + text, highlight=False)

    # -- one method per event type --------------------------------------------------------------

    def turn_start(self, data: Any) -> None:
        self.open_turn = data.get("turn")
        self.say(0, f"[bold]turn {data.get('turn')}[/bold]")

    def turn_end(self, data: Any) -> None:
        self.open_turn = None
        reason = data.get("reason")
        colour = "green" if reason == "completed" else "red"
        message = f": {clip(data['message'])}" if data.get("message") else ""
        self.say(0, f"[{colour}]turn {data.get('turn')} {reason}[/{colour}]{message}")

    def step_start(self, data: Any) -> None:
        self.say(1, f"[bold]step {data.get('step')}[/bold]")

    def user_message(self, data: Any) -> None:
        source = esc(str(data.get("source")))
        self.say(2, f"[cyan]user[/cyan] ({source}): {clip(str(data.get('content')))}")

    def assistant_message(self, data: Any) -> None:
        if data.get("content"):
            self.say(2, f"[magenta]assistant[/magenta]: {clip(str(data['content']))}")

    def tool_call(self, data: Any) -> None:
        self.calls[data["call_id"]] = data["name"]
        self.say(
            2,
            f"→ [bold]{esc(data['name'])}[/bold] {clip(str(data.get('arguments')), 100)}  "
            f"[dim]{esc(data['call_id'])}[/dim]",
        )

    def approval_asked(self, data: Any) -> None:
        wider = f" (escalation to {esc(data['escalation'])})" if data.get("escalation") else ""
        self.say(3, f"[yellow]approval asked[/yellow]{wider}: {clip(str(data.get('reason')))}")

    def approval_deferred(self, data: Any) -> None:
        until = f", answerable until {format_time(data['expires'])}" if data.get("expires") else ""
        self.say(
            3,
            f"[yellow]approval deferred[/yellow]: {esc(str(data['id']))} waits for "
            f"`seamhost approve` or `reject`{until}",
        )

    def approval_decided(self, data: Any) -> None:
        outcome = str(data.get("outcome"))
        colour = "green" if outcome == "allowed-once" else "red"
        who = data.get("answerer") or data.get("decider")
        by = f" by {esc(str(who))}" if who else ""
        note = " (interrupted)" if data.get("interrupted") else ""
        # In full: an unavailable approval's message says what to configure.
        message = f": {esc(str(data['message']))}" if data.get("message") else ""
        self.say(3, f"[{colour}]approval {esc(outcome)}[/{colour}]{by}{note}{message}")

    def approval_policy(self, data: Any) -> None:
        policy, source = esc(str(data.get("policy"))), esc(str(data.get("source")))
        self.say(1, f"approval policy: {policy} ({source})")

    def tool_dispatch(self, data: Any) -> None:
        mode = esc(str(data.get("sandbox_mode")))
        self.say(
            3,
            f"[dim]dispatched {esc(data['call_id'])}: attempt {data.get('attempt')}, "
            f"sandbox {mode}[/dim]",
        )

    def tool_result(self, data: Any) -> None:
        name = esc(self.calls.get(data["call_id"], data["call_id"]))
        meta = data.get("meta") or {}
        path = " · ".join(
            f"{d['stage']} {d['verdict']}" + (f" ({d['plugin']})" if d.get("plugin") else "")
            for d in meta.get("decisions", ())
        )
        where = ""
        if "backend" in meta:
            where = (
                f" · sandbox {meta.get('sandbox_mode', '?')} via {meta['backend']} "
                f"({meta.get('enforcement', '?')})"
            )
        elif "sandbox_mode" in meta:
            where = f" · sandbox {meta['sandbox_mode']}"
        trail = esc((" · " + path if path else "") + where)
        error = data.get("error")
        if not data.get("is_error"):
            self.say(3, f"[green]✓ ok {name}[/green]{trail}")
            body = str(data.get("content") or "")
        elif error:
            self.say(3, f"[red]✗ {esc(error['code'])} {name}[/red]{trail}")
            body = str(error.get("message") or "")
        else:
            self.say(3, f"[red]✗ {name}[/red]{trail}")
            body = str(data.get("content") or "")
        if body:
            self.say(4, f"[dim]{clip(body, 120 if not data.get('is_error') else 600)}[/dim]")

    def model_attempt(self, data: Any) -> None:
        if data.get("attempt", 1) > 1:
            self.say(2, f"[dim]model attempt {data['attempt']} ({esc(str(data['model']))})[/dim]")

    def model_usage(self, data: Any) -> None:
        self.say(
            2,
            f"[dim]tokens: {data.get('input_tokens')} in, {data.get('output_tokens')} out[/dim]",
        )

    def model_failed(self, data: Any) -> None:
        then = "it may be tried again" if data.get("retryable") else "not retried"
        self.say(
            2,
            f"[yellow]model attempt {data.get('attempt')} failed[/yellow] "
            f"({esc(str(data.get('code')))}): {clip(str(data.get('message')), 200)}; {then}",
        )

    def attempt_failed(self, data: Any) -> None:
        error = data.get("error") or {}
        self.say(
            3,
            f"[yellow]attempt {data.get('attempt')} of {esc(data['call_id'])} failed[/yellow]: "
            f"{esc(str(error.get('code')))} {clip(str(error.get('message')), 200)}; "
            "dispatched again",
        )

    def reconciled(self, data: Any) -> None:
        name = esc(self.calls.get(data["call_id"], data["call_id"]))
        error = data.get("error")
        outcome = f"[red]{esc(error['code'])}[/red]" if error else "[green]ok[/green]"
        self.say(
            0,
            f"[bold]reconciled[/bold] {name} {esc(data['call_id'])} attempt {data.get('attempt')}"
            f" → {outcome} (source {esc(str(data.get('source')))})",
        )
        self.say(1, f"[dim]{clip(str(data.get('content')), 200)}[/dim]")

    def reconcile_pending(self, data: Any) -> None:
        self.say(
            0,
            f"[yellow]reconcile pending[/yellow] {esc(data['call_id'])} attempt "
            f"{data.get('attempt')}: {clip(str(data.get('reason')), 120)}; ask again after "
            f"{format_time(data['retry_at'])} (`seamhost session reconcile --due`)",
        )

    def sandbox_mode(self, data: Any) -> None:
        mode, source = esc(str(data.get("mode"))), esc(str(data.get("source")))
        self.say(1, f"sandbox mode: {mode} ({source})")

    def inbox_spliced(self, data: Any) -> None:
        for context in data.get("contexts", ()):
            self.say(2, f"[dim]context: {clip(str(context), 120)}[/dim]")

    def a2a_task(self, data: Any) -> None:
        self.say(
            2,
            f"[bold]A2A task[/bold] {esc(str(data['task_id']))} "
            f"(context {esc(str(data['context_id']))}), served by `seamhost a2a serve`",
        )

    def takeover(self, data: Any) -> None:
        when = f" at {format_time(self.time)}" if self.time is not None else ""
        epoch = f", lease epoch {data['epoch']}" if data.get("epoch") is not None else ""
        where = f"turn {data.get('turn')}"
        if data.get("step") is not None:
            where += f" step {data['step']}"
        calls = ", ".join(
            f"{c['call_id']} {c['state']}" + (f" (attempt {c['attempt']})" if c["attempt"] else "")
            for c in data.get("calls", ())
        )
        accepted = data.get("accepted_changes")
        self.say(
            0,
            f"[yellow]taken over[/yellow] by {esc(str(data.get('owner')))}{when}{epoch}: "
            f"continues {where}"
            + (f"; open calls: {esc(calls)}" if calls else "")
            + (f"; accepted changes: {esc('; '.join(accepted))}" if accepted else ""),
        )

    def turn_parked(self, data: Any) -> None:
        self.parked_turn = data.get("turn")
        self.say(
            0,
            f"[yellow]turn {data.get('turn')} parked[/yellow] at step {data.get('step')}: "
            f"{clip(str(data.get('reason')), 160)}",
        )

    def repaired(self, data: Any) -> None:
        closed = ", ".join(f"{c['call_id']} {c['code']}" for c in data.get("calls", ()))
        self.say(
            0,
            f"[yellow]repaired[/yellow] turn {data.get('turn')}: calls closed: "
            f"{esc(closed) or 'none'}; {len(data.get('approvals', ()))} approval(s) closed; "
            f"torn records recovered: {data.get('torn_records', 0)}",
        )
