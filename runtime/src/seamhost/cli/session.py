"""``seamhost session ls|show|verify``: list, render and check stored sessions.

The store is the ``session/store`` provider of a profile's bundle (``--profile``, default
``default``), or a persistence-jsonl root given directly (``--root``). Sessions are only read:
these commands never take a writer's lock, so they work on a live or crashed session alike.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from seamhost.cli.output import console, emit_json
from seamhost.errors import ConfigError, PluginLoadError, PluginNotInstalled, SeamhostError
from seamhost.exitcodes import ExitCode

if TYPE_CHECKING:
    from rich.console import Console

    from seamhost.session.record import Record
    from seamhost.session.store import SessionCheck, SessionHeader, SessionStore

JSONL_PLUGIN = "persistence-jsonl"
JSONL_DISTRIBUTION = "seamhost-persistence-jsonl"
F = TypeVar("F", bound=Callable[..., Any])


# --------------------------------------------------------------------------------------------
# finding the store
# --------------------------------------------------------------------------------------------


def store_options(command: F) -> F:
    """The ``--root`` and ``--profile`` options every session command takes."""
    command = click.option(
        "--profile",
        "profile_ref",
        default="default",
        show_default=True,
        help="The profile whose session/store provider holds the sessions.",
    )(command)
    command = click.option(
        "--root",
        type=click.Path(file_okay=False, path_type=Path),
        help="A persistence-jsonl root to read directly (instead of --profile).",
    )(command)
    return command


def open_store(root: Path | None, profile_ref: str) -> SessionStore:
    """The store `--root` names, else the `session/store` provider of the profile's bundle."""
    if root is not None:
        return jsonl_store(root)
    from seamhost.bundle import build_bundle
    from seamhost.profile import resolve_profile

    bundle = build_bundle(resolve_profile(profile_ref))
    store = bundle.seams.session_store()
    if store is None:
        raise ConfigError(
            str(bundle.profile.path),
            "plugins",
            "no plugin provides session/store, so no session is stored; add one (such as "
            f"[plugins.{JSONL_PLUGIN}]) or pass --root DIR",
        )
    return store


def jsonl_store(root: Path) -> SessionStore:
    """The store of a persistence-jsonl root, made by the installed plugin through its seam."""
    from seamhost.bundle import make_plugin_manager
    from seamhost.descriptor import PluginContext
    from seamhost.discovery import discover
    from seamhost.facade import Seams
    from seamhost.jsonvalue import freeze
    from seamhost.sandbox import SandboxPolicy

    installed = discover().get(JSONL_PLUGIN)
    if installed is None:
        raise PluginNotInstalled(JSONL_PLUGIN, JSONL_DISTRIBUTION, "--root")
    descriptor = installed.load()
    config = freeze({"root": str(root.resolve())})
    context = PluginContext(JSONL_PLUGIN, config, Path.cwd() / "--root", SandboxPolicy())
    try:
        made = descriptor.factory(context)
    except Exception as exc:
        raise PluginLoadError(JSONL_PLUGIN, "factory", str(exc)) from exc
    pm = make_plugin_manager()
    for index, plugin in enumerate(made if isinstance(made, (list, tuple)) else [made]):
        pm.register(plugin, name=JSONL_PLUGIN if index == 0 else f"{JSONL_PLUGIN}#{index}")
    store = Seams(pm).session_store()
    if store is None:
        raise PluginLoadError(JSONL_PLUGIN, "factory", "the plugin provides no session/store")
    return store


# --------------------------------------------------------------------------------------------
# commands
# --------------------------------------------------------------------------------------------


@click.group()
def session() -> None:
    """List, show and verify stored sessions."""


@session.command("ls")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print the sessions as JSON.")
def list_sessions(root: Path | None, profile_ref: str, as_json: bool) -> None:
    """List the stored sessions, oldest first (from their headers only)."""
    store = open_store(root, profile_ref)
    rows: list[dict[str, Any]] = []
    for session_id in store.ids():
        try:
            stat = store.stat(session_id)
        except SeamhostError as exc:
            rows.append({"session_id": session_id, "error": str(exc)})
            continue
        rows.append({**header_json(stat.header), "size": stat.size, "location": stat.location})
    rows.sort(key=lambda row: (row.get("created", sys.maxsize), row["session_id"]))
    if as_json:
        emit_json(rows)
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table("session", "created", "size", "profile", "barriers", "cwd", box=None)
    unreadable = []
    for row in rows:
        if "error" in row:
            unreadable.append(row)
            continue
        table.add_row(
            escape(row["session_id"]),
            format_time(row["created"]),
            format_size(row["size"]),
            escape(str(row["profile"] or "-")),
            "on" if row["barriers"] else "off",
            escape(row["cwd"]),
        )
    out = console()
    if table.row_count:
        out.print(table)
    for row in unreadable:
        out.print(f"[red]? {escape(row['session_id'])}[/red]: {escape(row['error'])}")
    if not rows:
        out.print("no sessions stored")


@session.command()
@click.argument("session_id", metavar="ID")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print the records exactly as stored.")
def show(session_id: str, root: Path | None, profile_ref: str, as_json: bool) -> None:
    """Show the timeline of session ID: turns, steps, calls, results, approvals.

    With --json, print its records exactly as stored: one envelope per line.
    """
    reader = open_store(root, profile_ref).read(session_id)
    if as_json:
        out = sys.stdout.buffer
        for record in reader.records():
            out.write(record.envelope() + b"\n")
        out.flush()
        return
    Timeline(console()).render(reader.header, reader.records())


@session.command()
@click.argument("session_id", metavar="ID", required=False)
@click.option("--all", "every", is_flag=True, help="Verify every stored session.")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@click.pass_context
def verify(
    ctx: click.Context,
    *,
    session_id: str | None,
    every: bool,
    root: Path | None,
    profile_ref: str,
    as_json: bool,
) -> None:
    """Check the integrity of session ID (or of --all sessions).

    Exits 0 when every session is intact (a torn tail, the trace of a crash, is reported but
    is not damage), 3 when one is corrupted, 1 when one cannot be read by this seamhost.
    """
    if every == (session_id is not None):
        raise click.UsageError("give one session ID or --all")
    store = open_store(root, profile_ref)
    ids = list(store.ids()) if every else [session_id or ""]
    checks: list[SessionCheck] = []
    failures: list[tuple[str, str]] = []
    for sid in progress(ids, "verifying", enabled=len(ids) > 1 and not as_json):
        try:
            checks.append(store.verify(sid))
        except SeamhostError as exc:
            if not every:
                raise
            failures.append((sid, str(exc)))
    if as_json:
        emit_json(
            [{**check_json(c)} for c in checks]
            + [{"session_id": sid, "error": error} for sid, error in failures]
        )
    else:
        out = console()
        for check in checks:
            out.print(describe_check(check), highlight=False)
        for sid, error in failures:
            out.print(f"[red]? {_esc(sid)}[/red]: {_esc(error)}")
        if every and not ids:
            out.print("no sessions stored")
    if any(not c.intact for c in checks):
        ctx.exit(int(ExitCode.CORRUPT))
    if failures:
        ctx.exit(int(ExitCode.FAILURE))


# --------------------------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------------------------


def header_json(header: SessionHeader) -> dict[str, Any]:
    bundle = header.bundle
    return {
        "session_id": header.session_id,
        "created": header.created,
        "cwd": header.cwd,
        "profile": bundle.get("profile"),
        "bundle_digest": bundle.get("digest"),
        "barriers": header.barriers,
        "format": header.format,
    }


def check_json(check: SessionCheck) -> dict[str, Any]:
    import attrs

    return {**attrs.asdict(check), "intact": check.intact}


def describe_check(check: SessionCheck) -> str:
    sid = _esc(check.session_id)
    if not check.intact:
        where = f" at byte {check.offset}" if check.offset is not None else ""
        return (
            f"[red]✗ {sid}[/red]: corrupted{where} of {_esc(check.location)}: "
            f"{_esc(check.problem or '')}; {check.records} record(s) before it are intact"
        )
    text = f"[green]✓ {sid}[/green]: {check.records} record(s), {format_size(check.size)}"
    if check.torn_bytes:
        text += (
            f"; torn tail of {check.torn_bytes} byte(s) from an interrupted write "
            f"({check.torn_records} record(s) recovered from it), cut by the next writer"
        )
    return text


def format_time(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ms / 1000))


def format_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    value, unit = size / 1024, 0
    while value >= 1024 and unit < 2:
        value, unit = value / 1024, unit + 1
    return f"{value:.1f} {('KiB', 'MiB', 'GiB')[unit]}"


def progress(items: list[str], label: str, *, enabled: bool) -> Iterable[str]:
    """`items`, with a progress bar on a terminal's stderr when `enabled`."""
    err = console(stderr=True)
    if not enabled or not err.is_terminal:
        yield from items
        return
    from rich.progress import track

    yield from track(items, description=label, console=err, transient=True)


def _esc(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _clip(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return _esc(flat if len(flat) <= limit else flat[: limit - 1] + "…")


class Timeline:
    """Renders records as a readable timeline, one line per event, indented by turn and step.

    Tool results are named by the call they answer; an event type it has no rendering for is
    shown by type and data, so nothing stored is hidden.
    """

    def __init__(self, out: Console) -> None:
        self.out = out
        self.calls: dict[str, str] = {}  # call_id -> tool name
        self.open_turn: int | None = None
        self.count = 0
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
        }

    def render(self, header: SessionHeader, records: Iterable[Record]) -> None:
        info = header_json(header)
        barriers = "on" if header.barriers else "off (unfinished calls count as outcome-unknown)"
        self.say(0, f"[bold]session[/bold] {_esc(header.session_id)}")
        self.say(1, f"created {format_time(header.created)}  cwd {_esc(header.cwd)}")
        self.say(
            1,
            f"profile {_esc(str(info['profile'] or '-'))}  "
            f"bundle {_esc(str(info['bundle_digest'] or '-'))}  barriers {barriers}",
        )
        for record in records:
            self.count += 1
            renderer = self.renderers.get(record.type)
            if renderer is None:
                self.say(2, f"[dim]{_esc(record.type)}[/dim] {_clip(str(dict(record.data)), 100)}")
            else:
                renderer(record.data)
        if self.open_turn is not None:
            self.say(
                0,
                f"[yellow]turn {self.open_turn} is open (no turn/end): the session is running, "
                "or it crashed and awaits `seamhost session repair`[/yellow]",
            )
        self.say(0, f"{self.count} record(s)")

    def say(self, depth: int, text: str) -> None:
        self.out.print("  " * depth + text, highlight=False)

    def turn_start(self, data: Any) -> None:
        self.open_turn = data.get("turn")
        self.say(0, f"[bold]turn {data.get('turn')}[/bold]")

    def turn_end(self, data: Any) -> None:
        self.open_turn = None
        message = f": {_clip(data['message'])}" if data.get("message") else ""
        self.say(0, f"[bold]turn {data.get('turn')} ended[/bold] ({data.get('reason')}){message}")

    def step_start(self, data: Any) -> None:
        self.say(1, f"[bold]step {data.get('step')}[/bold]")

    def user_message(self, data: Any) -> None:
        source = _esc(str(data.get("source")))
        self.say(2, f"[cyan]user[/cyan] ({source}): {_clip(str(data.get('content')))}")

    def assistant_message(self, data: Any) -> None:
        if data.get("content"):
            self.say(2, f"[magenta]assistant[/magenta]: {_clip(str(data['content']))}")
        for call in data.get("tool_calls", ()):
            self.say(
                2,
                f"[magenta]assistant proposes[/magenta] {_esc(call['name'])} "
                f"[dim]{_esc(call['call_id'])}[/dim]",
            )

    def tool_call(self, data: Any) -> None:
        self.calls[data["call_id"]] = data["name"]
        self.say(
            2,
            f"→ [bold]{_esc(data['name'])}[/bold] {_clip(str(data.get('arguments')), 100)}  "
            f"[dim]{_esc(data['call_id'])}[/dim]",
        )

    def approval_asked(self, data: Any) -> None:
        self.say(3, f"approval asked: {_clip(str(data.get('reason')))}")

    def approval_decided(self, data: Any) -> None:
        by = f" by {_esc(str(data['answerer']))}" if data.get("answerer") else ""
        note = " (interrupted)" if data.get("interrupted") else ""
        self.say(3, f"approval {_esc(str(data.get('outcome')))}{by}{note}")

    def approval_policy(self, data: Any) -> None:
        policy, source = _esc(str(data.get("policy"))), _esc(str(data.get("source")))
        self.say(1, f"approval policy: {policy} ({source})")

    def tool_dispatch(self, data: Any) -> None:
        mode = _esc(str(data.get("sandbox_mode")))
        self.say(3, f"dispatched: attempt {data.get('attempt')}, sandbox {mode}")

    def tool_result(self, data: Any) -> None:
        name = _esc(self.calls.get(data["call_id"], data["call_id"]))
        error = data.get("error")
        if not data.get("is_error"):
            self.say(3, f"[green]✓ {name}[/green]: {_clip(str(data.get('content')))}")
        elif error:
            self.say(3, f"[red]✗ {name} {_esc(error['code'])}[/red]: {_clip(error['message'])}")
        else:
            self.say(3, f"[red]✗ {name}[/red]: {_clip(str(data.get('content')))}")

    def sandbox_mode(self, data: Any) -> None:
        mode, source = _esc(str(data.get("mode"))), _esc(str(data.get("source")))
        self.say(1, f"sandbox mode: {mode} ({source})")

    def inbox_spliced(self, data: Any) -> None:
        self.say(2, f"context added: {len(data.get('contexts', ()))} item(s)")

    def repaired(self, data: Any) -> None:
        closed = ", ".join(f"{c['call_id']} {c['code']}" for c in data.get("calls", ()))
        self.say(
            0,
            f"[yellow]repaired[/yellow] turn {data.get('turn')}: calls closed: "
            f"{_esc(closed) or 'none'}; torn records recovered: {data.get('torn_records', 0)}",
        )
