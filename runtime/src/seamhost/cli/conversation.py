"""What ``seamhost chat`` and ``seamhost exec`` share: their session, its flushes, the answer."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from seamhost.errors import ConfigError, SeamUnavailable
from seamhost.run.sessions import create_session

if TYPE_CHECKING:
    from rich.console import Console

    from seamhost.kernel.bundle import Bundle
    from seamhost.session.live import Session


def require_model(bundle: Bundle) -> None:
    """Refuse, before any session exists, a profile whose bundle has no model to talk to."""
    if not bundle.seams.has("llm/adapter"):
        raise ConfigError(
            str(bundle.profile.path),
            "plugins",
            "no plugin provides llm/adapter (a model); add one, such as [plugins.model-openai]",
        )


def new_session(bundle: Bundle, workspace: Path | None) -> tuple[Session, Path]:
    """A new session working in `workspace` (default: the current directory), created there."""
    root = (workspace or Path.cwd()).resolve()
    root.mkdir(parents=True, exist_ok=True)
    return create_session(bundle, cwd=str(root)), root


def announce(out: Console, verb: str, session: Session, bundle: Bundle, root: Path) -> None:
    """The line that says which session runs, with which profile and store, and where."""
    out.print(
        f"[bold]{verb}[/bold] {session.id}  profile {bundle.profile.name}  "
        f"store {bundle.store.name}  workspace {root}",
        highlight=False,
    )


async def flush(session: Session) -> None:
    """Make what the session holds durable (a memory-only session has nothing to flush)."""
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
