"""Running sessions on a host's bundle, one at a time: what the sync and async hosts share.

:class:`HostRunner` does for a host what ``seamhost run``, ``run --resume`` and ``approve`` do
for the CLI, with the same run-layer functions: a new session is created on the bundle's store
(:func:`seamhost.run.sessions.create_session`) in the host's workspace or a temporary one seeded
with the scenario's files (:mod:`seamhost.run.scripts`), a stored one is continued
(:func:`~seamhost.run.sessions.continue_session`), the turns are driven by
:func:`seamhost.run.turns.drive` with the host's approval service and chain
(:mod:`seamhost.embed.approving`), and deferred approvals are answered by
:func:`seamhost.run.deferred.decide`. Each run's report is read from the log
(:mod:`seamhost.embed.reports`). The runner knows no event loop: the hosts
(:mod:`seamhost.embed.host`) await it in theirs, and keep it to one run at a time.
"""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import TYPE_CHECKING

from seamhost.embed.approving import host_approvals
from seamhost.embed.reports import RunReport, call_reports
from seamhost.errors import ConfigError, SeamhostError
from seamhost.run.agent import Agent
from seamhost.run.deferred import decide, parked_approval, pending_approvals
from seamhost.run.identity import model_identity
from seamhost.run.scripts import discard_workspace, replay, seed, temporary_workspace
from seamhost.run.sessions import continue_session, create_session
from seamhost.run.turns import PARKED, drive, run_outcome
from seamhost.run.usage import session_usage

if TYPE_CHECKING:
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


class HostRunner:
    """A host's bundle and what it runs on it; see the module docstring."""

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


__all__ = ["SOURCE", "HostClosed", "HostRunner"]
