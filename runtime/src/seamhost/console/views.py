"""What each page of the console shows, read from the profile's store (readers never lock).

The rows are plain values: the templates escape them (Jinja's autoescape) and show control
characters as escapes (:func:`seamhost.cli.terminal.terminal_safe`, the filter ``shown``), so
what a session holds is shown as written and never acts on the page. A session's timeline is
the very text ``seamhost session show`` prints (:class:`seamhost.cli.timeline.Timeline` on a
console without colour), followed by its token and cost totals.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from seamhost.cli.console import SafeConsole
from seamhost.cli.display import format_time
from seamhost.cli.next_steps import continue_command, model_of
from seamhost.cli.timeline import Timeline
from seamhost.errors import SeamhostError
from seamhost.run.deferred import pending_approvals
from seamhost.run.unknowns import stored_unknowns
from seamhost.run.usage import format_cost, session_usage
from seamhost.session.repair import open_turn, plan_repair
from seamhost.session.suspension import find_suspension

if TYPE_CHECKING:
    from seamhost.kernel.profile.pricing import Pricing
    from seamhost.session.record import Record
    from seamhost.session.store import SessionStore

TIMELINE_WIDTH = 160


def fingerprint(store: SessionStore) -> tuple[tuple[str, int, int | None], ...]:
    """What changes whenever a session is created, written or removed: cheap to take (each
    session's stat, no log read), so the event stream can poll it."""
    marks: list[tuple[str, int, int | None]] = []
    for session_id in sorted(store.ids()):
        try:
            stat = store.stat(session_id)
        except SeamhostError:
            marks.append((session_id, -1, None))
            continue
        marks.append((session_id, stat.size, stat.modified))
    return tuple(marks)


def session_rows(store: SessionStore, pricing: Pricing) -> list[dict[str, Any]]:
    """One row per stored session, newest first: id, created, state, model, tokens, cost."""
    rows: list[dict[str, Any]] = []
    for session_id in store.ids():
        try:
            reader = store.read(session_id)
            header, records = reader.header, list(reader.records())
        except SeamhostError as exc:
            rows.append({"id": session_id, "state": "unreadable", "problem": str(exc)})
            continue
        usage = session_usage(records, pricing)
        model = model_of(header) or {}
        rows.append(
            {
                "id": session_id,
                "created_ms": header.created,
                "created": format_time(header.created),
                "state": state_of(records),
                "profile": str(header.bundle.get("profile") or "-"),
                "model": model_name(model),
                "input_tokens": usage.session.input_tokens,
                "output_tokens": usage.session.output_tokens,
                "cached_tokens": usage.session.cached_input_tokens,
                "cost": format_cost(usage.session.cost, usage.currency),
            }
        )
    rows.sort(key=lambda row: (-row.get("created_ms", 0), row["id"]))
    return rows


def model_name(model: Mapping[str, Any]) -> str:
    """A recorded model identity as the table shows it: ``gpt-4o (model-openai)``."""
    name, plugin = model.get("model"), model.get("plugin")
    if name and plugin:
        return f"{name} ({plugin})"
    return str(name or plugin or "-")


def state_of(records: list[Record]) -> str:
    """The state ``session ls --state`` names: awaits-approval, open or closed."""
    if find_suspension(records) is not None:
        return "awaits-approval"
    return "open" if open_turn(records) is not None else "closed"


def timeline_text(store: SessionStore, session_id: str, pricing: Pricing) -> str:
    """What ``seamhost session show ID`` prints, as plain text (control characters escaped)."""
    reader = store.read(session_id)
    records = list(reader.records())
    buffer = io.StringIO()
    out = SafeConsole(
        file=buffer,
        width=TIMELINE_WIDTH,
        color_system=None,
        force_terminal=False,
        highlight=False,
        soft_wrap=True,
        emoji=False,
    )
    Timeline(out).render(reader.header, records, repair=plan_repair(reader.header, records))
    for line in session_usage(records, pricing).lines():
        out.print(line, markup=False, highlight=False)
    return buffer.getvalue()


def approval_rows(store: SessionStore) -> Iterator[dict[str, Any]]:
    """The questions parked sessions wait on, with what the page needs to answer each."""
    now = time.time() * 1000
    for p in pending_approvals(store):
        expired = p.decision is None and p.expires is not None and p.expires <= now
        header = store.read(p.session_id).header
        yield {
            **p.to_json(),
            "expiry": format_time(p.expires) if p.expires is not None else "never",
            "waiting_since": format_time(p.deferred_at),
            "state": (
                f"answered ({p.decision}); continue with "
                f"`{continue_command(p.session_id, model_of(header))}`"
                if p.decision
                else "expired: it can no longer be answered"
                if expired
                else "pending"
            ),
            "answerable": p.decision is None and not expired,
        }


def unknown_rows(store: SessionStore) -> Iterator[dict[str, Any]]:
    """The unresolved unknown outcomes, the unrepaired ones marked (they cannot be reconciled)."""
    for u in stored_unknowns(store, in_flight=True):
        yield {**u.to_json(), "since": format_time(u.time)}


def queue_view(store: SessionStore, profile: str) -> dict[str, Any]:
    """The runs of the store's queue and the workers holding them, or why there is no queue."""
    from seamhost.run.queue import NoRunQueue, run_queue

    try:
        queue = run_queue(store, profile)
    except NoRunQueue as exc:
        return {"queue": None, "problem": exc.problem}
    runs = []
    workers: dict[str, dict[str, Any]] = {}
    for run in queue.all():
        runs.append(
            {
                "id": run.id,
                "session_id": run.session_id,
                "state": run.state,
                "claims": run.claims,
                "worker": run.worker or "-",
                "progress": run.progress or "-",
                "outcome": run.outcome or "-",
                "submitted": _when(run.submitted),
            }
        )
        if run.worker:
            seen = workers.setdefault(run.worker, {"name": run.worker, "running": [], "runs": 0})
            seen["runs"] += 1
            if run.state == "running":
                seen["running"].append(run.id)
    # The store by its plugin's name, not `queue.where`: that names the database by its DSN,
    # which a profile takes from a secret (`{"$env" = ...}`) and may hold a password.
    return {"queue": store.name, "runs": runs, "workers": sorted(workers.values(), key=_name)}


def _when(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value is not None else "-"


def _name(worker: dict[str, Any]) -> str:
    return str(worker["name"])
