"""A readable, record-by-record rendering of a session: the live view of ``seamhost run``.

Everything shown is derived from committed records, so a transcript never claims more than the log
holds: a call is "dispatched" only once its ``tool/dispatch`` record exists, and its outcome is
the ``tool/result`` record's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape

if TYPE_CHECKING:
    from rich.console import Console

    from seamhost.session.record import Record

PREVIEW = 100


def _preview(text: str, limit: int = PREVIEW) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class Transcript:
    """Prints each record as it is committed."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._calls: dict[str, str] = {}

    def __call__(self, record: Record) -> None:
        handler = getattr(self, "_" + record.type.replace("/", "_"), None)
        if handler is not None:
            handler(record.data)

    def _print(self, indent: int, text: str) -> None:
        self.console.print("  " * indent + text)

    def _turn_start(self, data: Any) -> None:
        self._print(0, f"[bold]turn {data['turn']}[/bold]")

    def _user_message(self, data: Any) -> None:
        self._print(1, f"[cyan]user[/cyan]: {escape(_preview(data['content']))}")

    def _step_start(self, data: Any) -> None:
        self._print(1, f"[bold]step {data['step']}[/bold]")

    def _assistant_message(self, data: Any) -> None:
        if data["content"]:
            self._print(2, f"[magenta]assistant[/magenta]: {escape(_preview(data['content']))}")

    def _tool_call(self, data: Any) -> None:
        self._calls[data["call_id"]] = data["name"]
        self._print(
            2,
            f"[bold]→ {escape(data['name'])}[/bold] {escape(_preview(data['arguments'], 80))}"
            f"  [dim]{escape(data['call_id'])}[/dim]",
        )

    def _approval_asked(self, data: Any) -> None:
        wider = f" (escalation to {data['escalation']})" if data.get("escalation") else ""
        self._print(
            3,
            f"[yellow]approval asked[/yellow] for {escape(data['call_id'])}{wider}: "
            f"{escape(_preview(data['reason']))}",
        )

    def _approval_decided(self, data: Any) -> None:
        colour = "green" if data["outcome"] == "allowed-once" else "red"
        who = f" by {data['answerer']}" if data.get("answerer") else ""
        self._print(3, f"[{colour}]approval {data['outcome']}[/{colour}]{who}")

    def _tool_dispatch(self, data: Any) -> None:
        self._print(3, f"[dim]dispatched {escape(data['call_id'])} in {data['sandbox_mode']}[/dim]")

    def _tool_result(self, data: Any) -> None:
        meta = data.get("meta") or {}
        path = " · ".join(
            f"{d['stage']} {d['verdict']}" + (f" ({d['plugin']})" if d.get("plugin") else "")
            for d in meta.get("decisions", ())
        )
        where = ""
        if "backend" in meta:
            mode, enforcement = meta.get("sandbox_mode", "?"), meta.get("enforcement", "?")
            where = f" · sandbox {mode} via {meta['backend']} ({enforcement})"
        elif "sandbox_mode" in meta:
            where = f" · sandbox {meta['sandbox_mode']}"
        name = self._calls.get(data["call_id"], "?")
        if data["is_error"]:
            error = data.get("error") or {}
            head = f"[red]✗ {error.get('code', 'ERROR')}[/red]"
            body = error.get("message", data["content"])
        else:
            head, body = "[green]✓ ok[/green]", data["content"]
        self._print(
            3, f"{head} {escape(name)}{escape(' · ' + path if path else '')}{escape(where)}"
        )
        if body:
            self._print(4, f"[dim]{escape(_preview(body))}[/dim]")

    def _agent_inbox_spliced(self, data: Any) -> None:
        for context in data["contexts"]:
            self._print(2, f"[dim]context: {escape(_preview(context))}[/dim]")

    def _turn_end(self, data: Any) -> None:
        reason = data["reason"]
        colour = "green" if reason == "completed" else "red"
        note = f": {escape(data['message'])}" if data.get("message") else ""
        self._print(0, f"[{colour}]turn {data['turn']} {reason}[/{colour}]{note}")

    def _session_repaired(self, data: Any) -> None:
        closed = (
            ", ".join(f"{c['call_id']} {c['code']}" for c in data.get("calls", ())) or "no calls"
        )
        self._print(
            0,
            f"[yellow]repaired[/yellow] turn {data['turn']}: {escape(closed)}; "
            f"{len(data.get('approvals', ()))} approval(s) closed, "
            f"{data.get('torn_records', 0)} torn record(s) recovered",
        )
