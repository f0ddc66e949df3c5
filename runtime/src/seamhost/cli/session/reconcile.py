"""``seamhost session unknowns`` and ``reconcile``: resolve unknown outcomes (design.md §10).

``unknowns`` lists every unresolved ``TOOL_OUTCOME_UNKNOWN`` across the stored sessions (readers
never lock), and the calls dispatched with no result yet, marked unrepaired (a crash left them,
or their body is running now). ``reconcile ID CALL_ID`` records evidence from a person or a
script; ``reconcile --due`` asks the status probes of tools that declare one. Both take the
session's writer, so a live writer refuses them; evidence that cannot resolve the call is refused
with exit 2, one line, and nothing written.
"""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from seamhost.cli import fail
from seamhost.cli.display import format_time
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.next_steps import continue_session_command
from seamhost.cli.options import profile_option
from seamhost.cli.output import console, emit_json
from seamhost.errors import ConfigError, ErrorCode
from seamhost.input_limits import RESULT_BYTES, parse_json, read_capped
from seamhost.jsonvalue import LossyValue, check_lossless
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run import reconcile as reconciling
from seamhost.run.probing import probe_unknowns
from seamhost.run.reconcile import Evidence, ReconcileRefused
from seamhost.run.sessions import bind_session
from seamhost.run.unknowns import stored_unknowns

if TYPE_CHECKING:
    from seamhost.kernel.bundle import Bundle
    from seamhost.run.probing import ProbeReport
    from seamhost.session.live import Session

PROFILE = profile_option(
    "the one whose store holds the sessions and whose tools check the evidence"
)


@click.command()
@PROFILE
@click.option("--json", "as_json", is_flag=True, help="One JSON array of the unknown outcomes.")
def unknowns(profile_ref: str, as_json: bool) -> None:
    """List every unresolved unknown outcome across the stored sessions."""
    store = build_bundle(resolve_profile(profile_ref)).store
    found = list(stored_unknowns(store, in_flight=True))
    if as_json:
        emit_json([u.to_json() for u in found])
        return
    out = console()
    if not found:
        out.print("no unknown outcome is waiting")
        return
    for u in found:
        waits = f"; probe pending until {format_time(u.retry_at)}" if u.retry_at else ""
        since = (
            f"in flight since {format_time(u.time)}, unrepaired: running now, or left so by a "
            "crash until a repair or a takeover records it unknown"
            if u.unrepaired
            else f"unknown since {format_time(u.time)}{waits}"
        )
        out.print(
            f"[bold]{u.session_id}[/bold] {u.call_id}  {u.tool} attempt {u.attempt}  "
            f"{u.arguments[:60]}  ({since})",
            highlight=False,
        )
    out.print(
        f"{len(found)} unknown outcome(s): resolve with `seamhost session reconcile ID CALL_ID "
        "--result FILE|--error CODE --message TEXT --source TEXT`, or `--due` for status probes",
        highlight=False,
    )


@click.command()
@click.argument("session_id", metavar="ID", required=False)
@click.argument("call_id", metavar="CALL_ID", required=False)
@click.option(
    "--result",
    "result_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A JSON file holding the value the call really returned (checked by its output schema).",
)
@click.option(
    "--error",
    "error_code",
    callback=lambda ctx, param, value: known_code(value),
    help="The error code the call really ended with (an ErrorCode, not TOOL_OUTCOME_UNKNOWN).",
)
@click.option("--message", help="What happened, with --error.")
@click.option("--source", help="Who or what says so (a person, a script, a ticket).")
@click.option("--attempt", type=int, help="The attempt the evidence is about (default: the last).")
@click.option("--due", is_flag=True, help="Ask the status probes whose time has come.")
@PROFILE
@click.option("--json", "as_json", is_flag=True, help="Print what was recorded as JSON.")
def reconcile(  # noqa: PLR0917  (click passes every option)
    session_id: str | None,
    call_id: str | None,
    result_file: Path | None,
    error_code: str | None,
    message: str | None,
    source: str | None,
    attempt: int | None,
    due: bool,
    profile_ref: str,
    as_json: bool,
) -> None:
    """Resolve an unknown outcome with evidence, or (--due) by asking the tools' status probes."""
    if due:
        if call_id is not None or result_file or error_code or message or source or attempt:
            raise click.UsageError("--due asks the probes; it takes no evidence (at most an ID)")
        bundle = build_bundle(resolve_profile(profile_ref))
        _probe_due(bundle, session_id, as_json=as_json)
        return
    if session_id is None or call_id is None:
        raise click.UsageError("give ID and CALL_ID with evidence, or --due")
    evidence = _evidence(result_file, error_code, message, source)
    bundle = build_bundle(resolve_profile(profile_ref))
    _record(bundle, session_id, call_id, evidence, attempt=attempt, as_json=as_json)


def known_code(value: str | None) -> str | None:
    """`value` when it is an error code that can settle an outcome; else a usage error (exit 2)
    naming ``--error``, with the closest codes and every valid one. A typo is not recorded as
    evidence that no reader of the log would recognise."""
    if value is None:
        return None

    unknown = ErrorCode.TOOL_OUTCOME_UNKNOWN.value
    valid = [code.value for code in ErrorCode if code.value != unknown]
    if value in valid:
        return value
    if value == unknown:
        problem = f"{unknown} is not an error code that settles the outcome (it is the unknown)"
    else:
        close = difflib.get_close_matches(value.upper(), valid, n=3, cutoff=0.6)
        shown = value[:60] + ("..." if len(value) > 60 else "")
        problem = f"{shown!r} is not an error code" + (
            f"; did you mean {' or '.join(close)}?" if close else ""
        )
    sep = " " if problem.endswith("?") else ". "
    raise click.BadParameter(f"{problem}{sep}Valid codes: {', '.join(valid)}", param_hint="--error")


def _evidence(
    result_file: Path | None, error_code: str | None, message: str | None, source: str | None
) -> Evidence:
    if (result_file is None) == (error_code is None):
        raise click.UsageError("give exactly one of --result FILE or --error CODE")
    if source is None or not source.strip():
        raise click.UsageError("--source is required: who or what says what happened")
    if error_code is not None:
        if not message:
            raise click.UsageError("--error needs --message: what happened")
        return Evidence.failure(source, error_code, message)
    if message is not None:
        raise click.UsageError("--message goes with --error; a result's content is its value")
    assert result_file is not None
    return Evidence.result(source, _read_value(result_file))


def _read_value(path: Path) -> Any:
    value = parse_json(read_capped(path, RESULT_BYTES, "result file"), str(path))
    try:
        check_lossless(value, "result")
    except LossyValue as exc:
        raise ConfigError(str(path), "", str(exc)) from None
    return value


def _record(
    bundle: Bundle,
    session_id: str,
    call_id: str,
    evidence: Evidence,
    *,
    attempt: int | None,
    as_json: bool,
) -> None:
    try:
        writer = bundle.store.open(session_id)
    except LookupError as exc:  # no such session: a bad argument, nothing written
        fail(exc, ExitCode.USAGE)
    session = bind_session(bundle, writer)
    try:
        try:
            record = reconciling.reconcile(bundle, session, call_id, evidence, attempt=attempt)
        except ReconcileRefused as exc:
            fail(exc, ExitCode.USAGE)
        if record is not None:
            asyncio.run(session.flush())
    finally:
        session.close()

    state = "recorded" if record is not None else "already recorded (same evidence)"
    if as_json:
        emit_json({"session_id": session_id, "call_id": call_id, "state": state})
        return
    console().print(
        f"{call_id}: {evidence.outcome} {state} (source {evidence.source}); the model is told "
        f"at its next step (`{continue_session_command(session)}`)",
        highlight=False,
    )


def _probe_due(bundle: Bundle, session_id: str | None, *, as_json: bool) -> None:
    store = bundle.store
    waiting = sorted({u.session_id for u in stored_unknowns(store)})
    if session_id is not None:
        try:  # an unknown session is an error, not "nothing is due"
            store.stat(session_id)
        except LookupError as exc:
            fail(exc, ExitCode.USAGE)
        waiting = [s for s in waiting if s == session_id]
    reports: list[Any] = []
    for sid in waiting:
        session = bind_session(bundle, store.open(sid))
        try:
            workspace = Path(session.header.cwd)
            reports += asyncio.run(_probe_and_flush(bundle, session, workspace))
        finally:
            session.close()
    if as_json:
        emit_json([r.to_json() for r in reports])
        return
    out = console()
    for r in reports:
        out.print(
            f"{r.session_id} {r.call_id} {r.tool} attempt {r.attempt}: {r.outcome}: {r.detail}"
        )
    out.print(f"{len(reports)} unknown outcome(s) looked at", highlight=False)


async def _probe_and_flush(bundle: Bundle, session: Session, workspace: Path) -> list[ProbeReport]:
    reports = await probe_unknowns(bundle, session, workspace)
    await session.flush()
    return reports
