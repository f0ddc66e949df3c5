"""What ``seamhost chat`` and ``seamhost exec`` share: their session, its flushes, the answer."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from seamhost.cli.timeline import Timeline
    from seamhost.kernel.bundle import Bundle
    from seamhost.session.live import Session


def require_model(bundle: Bundle) -> None:
    """Refuse, before any session exists, a profile whose bundle has no model to talk to."""
    from seamhost.errors import ConfigError

    if not bundle.seams.has("llm/adapter"):
        raise ConfigError(
            str(bundle.profile.path),
            "plugins",
            "no plugin provides llm/adapter (a model); add one, such as [plugins.model-openai]",
        )


def new_session(bundle: Bundle, workspace: Path | None) -> tuple[Session, Path]:
    """A new session working in `workspace` (default: the current directory), created there."""
    from seamhost.run.sessions import create_session

    root = (workspace or Path.cwd()).resolve()
    root.mkdir(parents=True, exist_ok=True)
    return create_session(bundle, cwd=str(root)), root


def reopen_session(
    bundle: Bundle, given: str, workspace: Path | None, transcript: Timeline
) -> tuple[Session, Path]:
    """The stored session `given` names (a unique prefix will do), repaired and shown so."""
    from seamhost.cli.lookup import resolve_session
    from seamhost.run.sessions import open_session

    session, plan = open_session(bundle, resolve_session(bundle.store, given))
    # Results of the resumed turn show their tools' names; its calls are at or after the resume
    # snapshot's window (docs/design.md, "Resume snapshots"), so no more of the log is read.
    start = session.resumed.window_start if session.resumed is not None else 0
    for record in session.records[start:]:
        if record.type == "tool/call":
            transcript.calls[str(record.data["call_id"])] = str(record.data["name"])
    if plan is not None:  # what repair closed, as the timeline shows it
        for record in session.records[len(session.records) - len(plan.events) :]:
            transcript(record)
    return session, (workspace or Path(session.header.cwd)).resolve()


def announce(out: Console, verb: str, session: Session, bundle: Bundle, root: Path) -> None:
    """The line that says which session runs, with which profile and store, and where."""
    out.print(
        f"[bold]{verb}[/bold] {session.id}  profile {bundle.profile.name}  "
        f"store {bundle.store.name}  workspace {root}",
        highlight=False,
    )


async def flush(session: Session) -> None:
    """Make what the session holds durable (a memory-only session has nothing to flush)."""
    from seamhost.errors import SeamUnavailable

    with contextlib.suppress(SeamUnavailable):
        await session.flush()


def final_answer(session: Session, turn: int) -> str:
    """The text of the last assistant message of `turn` (empty when it has none)."""
    for record in reversed(session.records):
        if record.type == "assistant/message" and record.data.get("turn") == turn:
            return str(record.data.get("content") or "")
        if record.type == "turn/start" and record.data.get("turn") == turn:
            break
    return ""


def parked_advice(session_id: str, approval: str) -> str:
    """How to answer the approval a turn parked on, and how to go on afterwards."""
    return (
        f"session {session_id} awaits approval {approval}: answer it with "
        f"`seamhost approve {session_id} {approval}` or `seamhost reject {session_id} "
        f"{approval}`, then continue with `seamhost chat --resume {session_id}`"
    )
