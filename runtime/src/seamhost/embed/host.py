"""Hosts: a profile's bundle, opened once, that runs sessions from an application's own code.

A host is what ``seamhost run``, ``run --resume`` and ``approve``/``reject`` are, without a
process per command: it resolves its profile (kept per process, :mod:`.profiles`), builds the
bundle once, and runs sessions on it, one at a time, through the same internals the CLI uses
(:func:`seamhost.run.sessions.create_session` and ``continue_session``,
:func:`seamhost.run.turns.drive`, :mod:`seamhost.run.deferred`). Each run reads its
:class:`~.reports.RunReport` from the session's log.

The workspace. A host opened with one works there, every session; one opened without gives each
new session a temporary directory (seeded with the scenario's files), removed when the run ends
unless its turn parked (resuming works there) or ``keep_workspace`` was asked for, as
``seamhost run`` does. A resume works where the session recorded it worked, unless the host has a
workspace of its own.

Errors are the runtime's (:mod:`seamhost.errors`): a bad profile raises the
:class:`~seamhost.errors.ConfigError` (or another profile error) the CLI prints, a missing
scenario a ``ConfigError`` naming the file, an unknown session
:class:`~seamhost.errors.SessionMissing`, an approval that cannot be answered
:class:`~seamhost.run.deferred.ApprovalNotOpen`, a host used after ``close()``
:class:`HostClosed`. A turn that fails is not an exception: it is the report's outcome.
"""

from __future__ import annotations

import asyncio
import getpass
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from seamhost.embed.approving import host_approvals
from seamhost.embed.profiles import host_profile
from seamhost.embed.reports import RunReport, call_reports
from seamhost.errors import ConfigError, SeamhostError
from seamhost.kernel.bundle import build_bundle
from seamhost.run.agent import Agent
from seamhost.run.deferred import decide, parked_approval, pending_approvals
from seamhost.run.identity import model_identity
from seamhost.run.scripts import discard_workspace, replay, seed, temporary_workspace
from seamhost.run.sessions import continue_session, create_session
from seamhost.run.turns import PARKED, drive, run_outcome
from seamhost.run.usage import session_usage

if TYPE_CHECKING:
    from types import TracebackType

    from seamhost.embed.approving import ApproveCallback
    from seamhost.kernel.bundle import Bundle
    from seamhost.llm.replay import Script
    from seamhost.run.deferred import PendingApproval
    from seamhost.run.turn_outcome import TurnOutcome
    from seamhost.session.continuation import ContinuationPlan
    from seamhost.session.live import Session

SOURCE = "api"  # what a host's answer to a deferred approval records as its `source`


class HostClosed(SeamhostError, RuntimeError):
    """A host was used after it was closed."""

    profile: str

    def __str__(self) -> str:
        return f"the host of profile {self.profile!r} is closed; open a new one with open_host()"


class _Core:
    """What the sync and async hosts share: the bundle and one run at a time on it."""

    def __init__(
        self,
        bundle: Bundle,
        *,
        workspace: Path | None,
        approve: ApproveCallback | None,
        keep_workspace: bool,
    ) -> None:
        self.bundle = bundle
        self.workspace = workspace
        self.keep_workspace = keep_workspace
        self.approvals, self.answerers = host_approvals(bundle, approve)
        self.closed = False
        self.used_store = False  # a host that never ran leaves its store unmade

    def check_open(self) -> None:
        if self.closed:
            raise HostClosed(self.bundle.profile.name)

    async def run(
        self, prompt: str | None, scenario: Path | str | None, session_id: str | None
    ) -> RunReport:
        self.check_open()
        if (prompt is None) == (scenario is None):
            raise ConfigError("Host.run", "prompt", "give a prompt or a scenario (one of them)")
        if prompt is not None and not prompt.strip():
            raise ConfigError("Host.run", "prompt", "the prompt is empty: give the user's message")
        # Armed before the session is created: its header records the model that answers.
        script = replay(self.bundle, Path(scenario)) if scenario is not None else None
        root = self.workspace or temporary_workspace()
        try:
            self.used_store = True
            session = create_session(self.bundle, session_id=session_id, cwd=str(root))
        except BaseException:
            if self.workspace is None:
                discard_workspace(root)
            raise
        seed(root, script)
        return await self._drive(session, root, script, prompt, resume=False, plan=None)

    async def resume(
        self,
        session_id: str,
        scenario: Path | str | None,
        prompt: str | None,
        accept_changes: bool,
    ) -> RunReport:
        self.check_open()
        script = replay(self.bundle, Path(scenario)) if scenario is not None else None
        self.used_store = True
        session, plan = continue_session(
            self.bundle, session_id, accept_changes=accept_changes, check=self._model_answers
        )
        root = self.workspace or Path(session.header.cwd).resolve()
        return await self._drive(session, root, script, prompt, resume=True, plan=plan)

    def _model_answers(self, session: Session, plan: ContinuationPlan) -> None:
        """Refuse to continue an open turn whose model cannot answer (nothing is written)."""
        if model_identity(self.bundle) is None:
            raise ConfigError(
                "Host.resume",
                "scenario",
                f"session {session.id}'s turn {plan.turn} is open and continuing it needs its "
                "model, which cannot answer here; the scripted model needs its scenario again: "
                f"host.resume({session.id!r}, scenario=PATH)",
            )

    async def _drive(
        self,
        session: Session,
        root: Path,
        script: Script | None,
        prompt: str | None,
        *,
        resume: bool,
        plan: ContinuationPlan | None,
    ) -> RunReport:
        outcomes: list[TurnOutcome] = []
        interrupted = False
        try:
            agent = Agent(
                self.bundle,
                session,
                workspace=root,
                approvals=self.approvals,
                answerers=self.answerers,
            )
            # Session turn k is scripted turn k: only the scenario's turns after the last are new.
            messages = list(script.user_messages)[agent.turn :] if script is not None else []
            if prompt is not None:
                messages.append(prompt)
            try:
                outcomes = await drive(agent, messages, resume=resume, plan=plan)
            finally:
                agent.release()  # a host runs many sessions: nothing waits for the collector
            interrupted = agent.cancelled.is_set()
        finally:
            session.close()
            parked = bool(outcomes) and outcomes[-1].reason in PARKED
            if self.workspace is None and not parked and not self.keep_workspace:
                discard_workspace(root)
        return self._report(session, outcomes, root, interrupted=interrupted)

    def _report(
        self, session: Session, outcomes: list[TurnOutcome], root: Path, *, interrupted: bool
    ) -> RunReport:
        records = session.records
        usage = session_usage(records, self.bundle.profile.pricing)
        waiting = parked_approval(session.id, records)
        return RunReport(
            session_id=session.id,
            outcome=run_outcome(outcomes, interrupted=interrupted),
            turns=tuple(outcomes),
            calls=call_reports(records, {o.turn for o in outcomes}),
            parked=(waiting,) if waiting is not None else (),
            usage=usage if usage.reported else None,
            workspace=root,
        )

    def decide(
        self,
        session_id: str,
        approval_id: str,
        *,
        allow: bool,
        decider: str | None,
        reason: str | None,
    ) -> None:
        self.check_open()
        self.used_store = True
        who = decider or getpass.getuser()
        decide(
            self.bundle,
            session_id,
            approval_id,
            allow=allow,
            decider=who,
            reason=reason,
            source=SOURCE,
        )

    def pending(self) -> list[PendingApproval]:
        self.check_open()
        self.used_store = True
        return list(pending_approvals(self.bundle.store))

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.used_store:
            close = getattr(self.bundle.store, "close", None)  # a store holding connections
            if callable(close):
                close()


class Host:
    """A host for synchronous code; each call runs its sessions in an event loop of its own.

    Use :func:`open_host` to make one, and close it (or use it as a context manager) to release
    its store. A host runs one session at a time; calls from several threads wait their turn.
    In code that already runs an event loop, use :class:`AsyncHost` (:func:`open_host_async`).
    """

    def __init__(self, core: _Core) -> None:
        self._core = core
        self._lock = threading.Lock()

    @property
    def bundle(self) -> Bundle:
        """The bundle the host's sessions run on."""
        return self._core.bundle

    def run(
        self,
        prompt: str | None = None,
        *,
        scenario: Path | str | None = None,
        session_id: str | None = None,
    ) -> RunReport:
        """Run a new session: one turn for `prompt`, or every turn of `scenario`.

        `scenario` is a scripted conversation (TOML or JSON, docs/reference/scenario.md) the
        profile's replaying model answers from; `session_id` names the new session (default: a
        new unique id). Returns when the run ended: completed, parked on a deferred approval or
        a reconciliation, failed, or interrupted.
        """
        with self._lock:
            return asyncio.run(self._core.run(prompt, scenario, session_id))

    def resume(
        self,
        session_id: str,
        *,
        scenario: Path | str | None = None,
        prompt: str | None = None,
        accept_changes: bool = False,
    ) -> RunReport:
        """Continue the stored session `session_id` (design.md §6, §11).

        Its open turn goes on where a crash left it (calls never started are governed and
        dispatched once, calls in flight are reported unknown) or where it parked (an answered
        deferred approval's call is dispatched once, a rejected one refused); then `scenario`'s
        later turns, or `prompt` as a new turn. A scripted session needs its `scenario` again
        to continue an open turn. `accept_changes` continues under this host's bundle when it
        differs from the one the session recorded (``BundleChanged`` otherwise).
        """
        with self._lock:
            return asyncio.run(self._core.resume(session_id, scenario, prompt, accept_changes))

    def approve(
        self,
        session_id: str,
        approval_id: str,
        *,
        decider: str | None = None,
        reason: str | None = None,
    ) -> None:
        """Allow a deferred call once, durably, as ``seamhost approve`` does; then resume it.

        `decider` is who decided (default: the current user), recorded with `reason` and the
        source ``api``. Raises :class:`~seamhost.run.deferred.ApprovalNotOpen` for a question
        that is unknown, already answered or expired.
        """
        with self._lock:
            self._core.decide(session_id, approval_id, allow=True, decider=decider, reason=reason)

    def reject(
        self,
        session_id: str,
        approval_id: str,
        *,
        decider: str | None = None,
        reason: str | None = None,
    ) -> None:
        """Reject a deferred call, as ``seamhost reject`` does: it ends ``APPROVAL_REJECTED``
        when the session resumes."""
        with self._lock:
            self._core.decide(session_id, approval_id, allow=False, decider=decider, reason=reason)

    def pending(self) -> list[PendingApproval]:
        """The deferred approvals the store's sessions wait on, as ``seamhost approvals`` lists."""
        with self._lock:
            return self._core.pending()

    def close(self) -> None:
        """Release the store (its connections); the host can no longer run anything."""
        with self._lock:
            self._core.close()

    def __enter__(self) -> Host:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AsyncHost:
    """A host for asyncio code: the same as :class:`Host`, its runs awaited in the caller's loop.

    Use :func:`open_host_async` to make one. Runs on one host wait for each other.
    """

    def __init__(self, core: _Core) -> None:
        self._core = core
        self._lock: asyncio.Lock | None = None  # made in the loop that first uses it

    @property
    def bundle(self) -> Bundle:
        """The bundle the host's sessions run on."""
        return self._core.bundle

    def _turn(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def run(
        self,
        prompt: str | None = None,
        *,
        scenario: Path | str | None = None,
        session_id: str | None = None,
    ) -> RunReport:
        """Run a new session; see :meth:`Host.run`."""
        async with self._turn():
            return await self._core.run(prompt, scenario, session_id)

    async def resume(
        self,
        session_id: str,
        *,
        scenario: Path | str | None = None,
        prompt: str | None = None,
        accept_changes: bool = False,
    ) -> RunReport:
        """Continue a stored session; see :meth:`Host.resume`."""
        async with self._turn():
            return await self._core.resume(session_id, scenario, prompt, accept_changes)

    async def approve(
        self,
        session_id: str,
        approval_id: str,
        *,
        decider: str | None = None,
        reason: str | None = None,
    ) -> None:
        """Allow a deferred call once; see :meth:`Host.approve`."""
        await self._decide(session_id, approval_id, True, decider, reason)

    async def reject(
        self,
        session_id: str,
        approval_id: str,
        *,
        decider: str | None = None,
        reason: str | None = None,
    ) -> None:
        """Reject a deferred call; see :meth:`Host.reject`."""
        await self._decide(session_id, approval_id, False, decider, reason)

    async def _decide(
        self, session_id: str, approval_id: str, allow: bool, decider: str | None, why: str | None
    ) -> None:
        # `decide` makes its answer durable in an event loop of its own: not this one.
        async with self._turn():
            await asyncio.to_thread(
                self._core.decide,
                session_id,
                approval_id,
                allow=allow,
                decider=decider,
                reason=why,
            )

    async def pending(self) -> list[PendingApproval]:
        """The deferred approvals the store's sessions wait on; see :meth:`Host.pending`."""
        async with self._turn():
            return await asyncio.to_thread(self._core.pending)

    async def aclose(self) -> None:
        """Release the store; see :meth:`Host.close`."""
        async with self._turn():
            self._core.close()

    def close(self) -> None:
        """Release the store now, whatever is running (prefer :meth:`aclose`)."""
        self._core.close()

    async def __aenter__(self) -> AsyncHost:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()


def _core(
    profile: str | Path | None,
    *,
    profile_text: str | None,
    workspace: Path | None,
    store: Path | None,
    approve: ApproveCallback | None,
    keep_workspace: bool,
) -> _Core:
    resolved = host_profile(profile, profile_text, Path(store) if store is not None else None)
    root = Path(workspace).expanduser().resolve() if workspace is not None else None
    if root is not None:
        root.mkdir(parents=True, exist_ok=True)  # the bundle is built for it
    bundle = build_bundle(resolved, workspace=root)
    return _Core(bundle, workspace=root, approve=approve, keep_workspace=keep_workspace)


def open_host(
    profile: str | Path | None = "default",
    *,
    profile_text: str | None = None,
    workspace: Path | None = None,
    store: Path | None = None,
    approve: ApproveCallback | None = None,
    keep_workspace: bool = False,
) -> Host:
    """Open a host on `profile` (a shipped name, a path, or ``None`` for ``default``).

    `profile_text` is the profile's TOML itself (then `profile` is ignored; its relative paths
    are taken from the current directory). `workspace` is where every session's tools work
    (default: a temporary directory per new session). `store` roots a persistence-jsonl store
    for the host's sessions (default: the profile's own store). `approve` answers the
    approvals the profile's rules leave to a person (:mod:`.approving`; default: nobody at the
    terminal is asked). `keep_workspace` keeps the temporary workspaces.
    """
    return Host(
        _core(
            profile,
            profile_text=profile_text,
            workspace=workspace,
            store=store,
            approve=approve,
            keep_workspace=keep_workspace,
        )
    )


async def open_host_async(
    profile: str | Path | None = "default",
    *,
    profile_text: str | None = None,
    workspace: Path | None = None,
    store: Path | None = None,
    approve: ApproveCallback | None = None,
    keep_workspace: bool = False,
) -> AsyncHost:
    """Open an :class:`AsyncHost`; the arguments are :func:`open_host`'s."""
    return AsyncHost(
        _core(
            profile,
            profile_text=profile_text,
            workspace=workspace,
            store=store,
            approve=approve,
            keep_workspace=keep_workspace,
        )
    )


__all__ = ["AsyncHost", "Host", "HostClosed", "open_host", "open_host_async"]
