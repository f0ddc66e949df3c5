"""Ask the tools themselves: status probes for unknown outcomes (design.md §10).

:func:`probe_unknowns` asks ``tools/reconcile`` about each unresolved unknown outcome of a session
whose tool declares a status query (with the declaration the call was made with), once per
attempt and pass, with a deadline and the pass's cancellation signal:

* ``Resolved`` becomes a ``tool/reconciled`` record (source ``probe:<plugin>``), through the same
  checks as any evidence (:func:`seamhost.run.reconcile.reconcile`): a result that breaks the
  output schema is refused and nothing is written;
* ``Pending`` becomes a ``tool/reconcile/pending`` record with the time to ask again; until then a
  pass skips the call (``not-due``);
* a probe that raises, answers anything else or misses its deadline fails closed: nothing is
  written, the outcome stays unknown, and the report says why.

The records are appended, not flushed: the caller makes them durable.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal

import attrs

from seamhost.errors import SeamhostError, describe
from seamhost.jsonvalue import freeze
from seamhost.run.reconcile import Evidence, ReconcileRefused, reconcile
from seamhost.run.unknowns import Unknown, unknowns
from seamhost.session.events import ReconcilePending
from seamhost.session.live import now_ms
from seamhost.tool.reconcile import Pending, Probe, idempotency_key

if TYPE_CHECKING:
    from pathlib import Path

    from seamhost.kernel.bundle import Bundle
    from seamhost.session.live import Session

PROBE_DEADLINE = 10.0  # seconds a status probe may take before it counts as failed

ProbeOutcome = Literal["resolved", "pending", "failed", "not-due", "no-probe"]


@attrs.frozen
class ProbeReport:
    """What one probe pass did about one unknown outcome."""

    session_id: str
    call_id: str
    tool: str
    attempt: int
    outcome: ProbeOutcome
    detail: str

    def to_json(self) -> dict[str, object]:
        return attrs.asdict(self)


async def probe_unknowns(
    bundle: Bundle,
    session: Session,
    workspace: Path,
    *,
    deadline: float = PROBE_DEADLINE,
    cancelled: asyncio.Event | None = None,
) -> list[ProbeReport]:
    """Probe every unresolved unknown outcome of `session` that a status query can answer."""
    stop = cancelled or asyncio.Event()
    reports = []
    for unknown in unknowns(session.id, session.records):
        if stop.is_set():  # the caller stopped the pass: the rest stay as they are
            break
        reports.append(
            await _probe_one(
                bundle, session, unknown, workspace=workspace, deadline=deadline, cancelled=stop
            )
        )
    return reports


async def _probe_one(
    bundle: Bundle,
    session: Session,
    unknown: Unknown,
    *,
    workspace: Path,
    deadline: float,
    cancelled: asyncio.Event,
) -> ProbeReport:
    def report(outcome: ProbeOutcome, detail: str) -> ProbeReport:
        return ProbeReport(
            session.id, unknown.call_id, unknown.tool, unknown.attempt, outcome, detail
        )

    tool = bundle.tools.get(unknown.tool)
    if tool is None or not tool.spec.status_query:
        return report("no-probe", "the tool declares no status query: reconcile it by hand")
    if tool.digest != unknown.descriptor_digest:
        return report("no-probe", "the tool changed since the call; its probe is not asked")
    now = now_ms()
    if unknown.retry_at is not None and unknown.retry_at > now:
        return report(
            "not-due", f"the probe asked to be asked again in {unknown.retry_at - now} ms"
        )
    import orjson

    probe = Probe(
        session_id=session.id,
        call_id=unknown.call_id,
        attempt=unknown.attempt,
        tool=unknown.tool,
        arguments=freeze(orjson.loads(unknown.arguments)),
        args_digest=unknown.args_digest,
        idempotency_key=idempotency_key(session.id, unknown.call_id),
        workspace=workspace,
        deadline=deadline,
        cancelled=asyncio.Event(),
        result_meta=_result_meta(session, unknown),
    )
    # Each probe has its own stop signal: set when the caller stops the pass or the probe's
    # deadline passes, never the caller's own (a slow probe must not stop the next ones).
    relay = asyncio.ensure_future(_relay(cancelled, probe.cancelled))
    try:
        answer = await asyncio.wait_for(bundle.seams.tools_reconcile(tool, probe), deadline)
    except TimeoutError:
        return report("failed", f"the probe did not answer within {deadline:g}s; nothing written")
    except SeamhostError as exc:
        return report("failed", f"{exc}; nothing written")
    finally:
        probe.cancelled.set()
        relay.cancel()
    if isinstance(answer, Pending):
        retry_at = now_ms() + max(0, int(answer.retry_after * 1000))
        session.append(
            ReconcilePending(
                call_id=unknown.call_id,
                attempt=unknown.attempt,
                retry_at=retry_at,
                reason=answer.reason,
            )
        )
        return report("pending", answer.reason)
    source = f"probe:{tool.plugin}"
    if answer.error_code is not None:
        evidence = Evidence.failure(source, answer.error_code, answer.content)
    else:
        evidence = Evidence.result(source, answer.value, answer.content)
    try:
        reconcile(bundle, session, unknown.call_id, evidence, attempt=unknown.attempt)
    except ReconcileRefused as exc:
        return report("failed", f"{describe(exc)}; nothing written")
    return report("resolved", evidence.content)


def _result_meta(session: Session, unknown: Unknown) -> object:
    """The ``meta`` of the unknown result of `unknown`'s call (empty when it has none)."""
    meta: object = {}
    for record in session.records:
        if record.type == "tool/result" and record.data.get("call_id") == unknown.call_id:
            meta = record.data.get("meta") or {}
    return meta


async def _relay(outer: asyncio.Event, inner: asyncio.Event) -> None:
    await outer.wait()
    inner.set()


__all__ = ["PROBE_DEADLINE", "ProbeReport", "probe_unknowns"]
