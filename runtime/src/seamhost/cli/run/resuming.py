"""``--resume ID`` of ``run``, ``chat`` and ``exec``: continue a stored session (design.md §6).

The session goes on under the profile it recorded: without ``--profile`` that profile is
resolved by the name its header holds; with one, it must be the same (the identity check lists
it otherwise). Opening it continues its open turn (:func:`seamhost.run.sessions.continue_session`)
instead of closing it ``interrupted``; ``--accept-changes`` continues under what is installed
now when it differs from what the session recorded, and the takeover record says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import click

from seamhost.cli.lookup import resolve_session
from seamhost.errors import ConfigError, ProfileNotFound, SeamhostError
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.run.identity import model_identity
from seamhost.run.sessions import continue_session
from seamhost.session.suspension import find_suspension

if TYPE_CHECKING:
    from seamhost.cli.timeline import Timeline
    from seamhost.kernel.bundle import Bundle
    from seamhost.kernel.profile.resolve import Profile
    from seamhost.session.continuation import ContinuationPlan
    from seamhost.session.live import Session


def profile_given() -> bool:
    """Whether ``--profile`` was given on the command line (not its default)."""
    source = click.get_current_context().get_parameter_source("profile_ref")
    return source is not None and source is not click.core.ParameterSource.DEFAULT


def conversation_profile(
    profile_ref: str, resume_id: str | None, workspace: Path | None
) -> tuple[Profile, str | None, Path]:
    """What ``chat`` and ``exec`` work under: the profile, the session's full id on a resume
    (:func:`resume_profile`), and the workspace their bundle is built for (created when new)."""
    if resume_id is not None:
        return resume_profile(profile_ref, resume_id, explicit=profile_given(), workspace=workspace)

    where = (workspace or Path.cwd()).resolve()
    where.mkdir(parents=True, exist_ok=True)  # the bundle is built for it (see run)
    return resolve_profile(profile_ref), None, where


def resume_profile(
    profile_ref: str, given: str, *, explicit: bool, workspace: Path | None = None
) -> tuple[Profile, str, Path]:
    """The profile a resume of session `given` runs under, the session's full id, and the
    workspace the resume works in (`workspace`, else the one the session recorded).

    The session is looked up in the store of `profile_ref`'s bundle (the default profile's when
    ``--profile`` was not given); without ``--profile`` the profile it recorded is resolved by
    name. A recorded profile that cannot be found by its name is a usage error saying to pass
    it with ``--profile``. The workspace is what the caller's bundle is built for
    (:attr:`seamhost.PluginContext.workspace`: mounted MCP servers are listed there).
    """
    profile = resolve_profile(profile_ref)
    # The store alone: no other plugin is started before the session's workspace is known (a
    # mounted MCP server would be listed in the current directory).
    keep = tuple(e for e in profile.plugins if "session/store" in e.descriptor.provides)
    store = build_bundle(attrs.evolve(profile, plugins=keep), workspace=workspace).store
    session_id = resolve_session(store, given)
    try:
        header = store.read(session_id).header
    except SeamhostError:
        if not explicit:
            raise
        # Opening the session to continue it reports what is wrong with it, with its exit code.
        return profile, session_id, (workspace or Path.cwd()).resolve()
    root = (workspace or Path(header.cwd)).resolve()
    if explicit:
        return profile, session_id, root
    recorded = str(header.bundle.get("profile") or profile.name)
    if recorded == profile.name:
        return profile, session_id, root
    try:
        return resolve_profile(recorded), session_id, root
    except ProfileNotFound:
        raise ConfigError(
            "--resume",
            session_id,
            f"the session was written under profile {recorded!r}, which is not found by that "
            "name; pass it with --profile PATH",
        ) from None


def reopen(
    bundle: Bundle,
    session_id: str,
    workspace: Path | None,
    transcript: Timeline,
    *,
    accept_changes: bool,
    quiet: bool = False,
) -> tuple[Session, Path, ContinuationPlan | None]:
    """Open `session_id` to continue it; show what the takeover recorded and what comes next."""

    def model_answers(session: Session, plan: ContinuationPlan) -> None:
        refuse_without_model(bundle, session, plan)

    session, plan = continue_session(
        bundle, session_id, accept_changes=accept_changes, check=model_answers
    )
    # Results of the resumed turn show their tools' names; its calls are at or after the resume
    # snapshot's window (docs/design.md, "Resume snapshots"), so no more of the log is read.
    start = session.resumed.window_start if session.resumed is not None else 0
    for record in session.records[start:]:
        if record.type == "tool/call":
            transcript.calls[str(record.data["call_id"])] = str(record.data["name"])
    root = (workspace or Path(session.header.cwd)).resolve()
    if not quiet:
        out = transcript.out
        out.print(
            f"[bold]resumed[/bold] {session.id}  profile {bundle.profile.name}  "
            f"store {bundle.store.name}  workspace {root}",
            highlight=False,
        )
        out.print(f"  {what_comes_next(session, plan)}", highlight=False)
        for record in session.records[_takeover_index(session, plan) :]:
            transcript(record)
    return session, root, plan


def what_comes_next(session: Session, plan: ContinuationPlan | None) -> str:
    """One line: what the resume found and what it continues."""
    parked = find_suspension(session.records)
    if parked is not None:
        return f"the last turn is parked on approval {parked.approval_id}"
    if plan is None:
        return "nothing to continue: the last turn ended"
    where = f"turn {plan.turn}"
    if plan.step is None:
        return f"continuing {where} after step {plan.last_step} (its last step ended)"
    counts: dict[str, int] = {}
    for call in plan.calls:
        counts[call.state] = counts.get(call.state, 0) + 1
    calls = ", ".join(f"{n} call(s) {state}" for state, n in counts.items())
    if not plan.answered:
        return f"continuing {where}: step {plan.step}'s model request is issued again"
    return f"continuing {where} at step {plan.step}" + (f": {calls}" if calls else "")


def refuse_without_model(bundle: Bundle, session: Session, plan: ContinuationPlan | None) -> None:
    """Refuse to continue a turn whose model cannot answer here (before anything is written)."""
    if plan is None or model_identity(bundle) is not None:
        return
    raise click.UsageError(
        f"session {session.id}'s turn {plan.turn} is open and continuing it needs its model, "
        "which cannot answer here (the scripted model needs its SCENARIO again: "
        f"`seamhost run --resume {session.id} SCENARIO`)"
    )


def _takeover_index(session: Session, plan: ContinuationPlan | None) -> int:
    """Where the records the takeover appended start (the end when it appended none)."""
    records = session.records
    if plan is not None:
        for index in range(len(records) - 1, -1, -1):
            if records[index].type == "session/takeover":
                return index
    return len(records)
