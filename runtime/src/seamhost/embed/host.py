"""Hosts: a profile's bundle, opened once, that runs sessions from an application's own code.

A host is what ``seamhost run``, ``run --resume`` and ``approve``/``reject`` are, without a
process per command: it resolves its profile (kept per process,
:mod:`seamhost.embed.profiles`), builds the bundle once, and runs sessions on it, one at a
time, through the same internals the CLI uses (:mod:`seamhost.embed.runner`). Each run's
:class:`~seamhost.embed.reports.RunReport` is read from the session's log.

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
:class:`~seamhost.embed.runner.HostClosed`. A turn that fails is not an exception: it is the
report's outcome.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from seamhost.embed.profiles import host_profile
from seamhost.embed.runner import HostRunner
from seamhost.kernel.bundle import build_bundle

if TYPE_CHECKING:
    from types import TracebackType

    from seamhost.embed.approving import ApproveCallback
    from seamhost.embed.reports import RunReport
    from seamhost.kernel.bundle import Bundle
    from seamhost.kernel.profile.resolve import Profile
    from seamhost.run.deferred import PendingApproval


class Host:
    """A host for synchronous code; each call runs its sessions in an event loop of its own.

    Use :func:`open_host` to make one, and close it (or use it as a context manager) to release
    its store. A host runs one session at a time; calls from several threads wait their turn.
    In code that already runs an event loop, use :class:`AsyncHost` (:func:`open_host_async`).
    """

    def __init__(self, runner: HostRunner) -> None:
        self._runner = runner
        self._lock = threading.Lock()

    @property
    def bundle(self) -> Bundle:
        """The bundle the host's sessions run on."""
        return self._runner.bundle

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
            return asyncio.run(self._runner.run(prompt, scenario, session_id))

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
            return asyncio.run(self._runner.resume(session_id, scenario, prompt, accept_changes))

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
            self._runner.decide(session_id, approval_id, allow=True, decider=decider, reason=reason)

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
            self._runner.decide(
                session_id, approval_id, allow=False, decider=decider, reason=reason
            )

    def pending(self) -> list[PendingApproval]:
        """The deferred approvals the store's sessions wait on, as ``seamhost approvals`` lists."""
        with self._lock:
            return self._runner.pending()

    def close(self) -> None:
        """Release the store (its connections); the host can no longer run anything."""
        with self._lock:
            self._runner.close()

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

    def __init__(self, runner: HostRunner) -> None:
        self._runner = runner
        self._lock: asyncio.Lock | None = None  # made in the loop that first uses it

    @property
    def bundle(self) -> Bundle:
        """The bundle the host's sessions run on."""
        return self._runner.bundle

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
            return await self._runner.run(prompt, scenario, session_id)

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
            return await self._runner.resume(session_id, scenario, prompt, accept_changes)

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
                self._runner.decide,
                session_id,
                approval_id,
                allow=allow,
                decider=decider,
                reason=why,
            )

    async def pending(self) -> list[PendingApproval]:
        """The deferred approvals the store's sessions wait on; see :meth:`Host.pending`."""
        async with self._turn():
            return await asyncio.to_thread(self._runner.pending)

    async def aclose(self) -> None:
        """Release the store; see :meth:`Host.close`."""
        async with self._turn():
            self._runner.close()

    def close(self) -> None:
        """Release the store now, whatever is running (prefer :meth:`aclose`)."""
        self._runner.close()

    async def __aenter__(self) -> AsyncHost:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()


def _runner(
    profile: str | Path | Profile | None,
    *,
    profile_text: str | None,
    workspace: Path | None,
    store: Path | None,
    approve: ApproveCallback | None,
    keep_workspace: bool,
) -> HostRunner:
    resolved = host_profile(profile, profile_text, Path(store) if store is not None else None)
    root = Path(workspace).expanduser().resolve() if workspace is not None else None
    if root is not None:
        root.mkdir(parents=True, exist_ok=True)  # the bundle is built for it
    bundle = build_bundle(resolved, workspace=root)
    return HostRunner(bundle, workspace=root, approve=approve, keep_workspace=keep_workspace)


def open_host(
    profile: str | Path | Profile | None = "default",
    *,
    profile_text: str | None = None,
    workspace: Path | None = None,
    store: Path | None = None,
    approve: ApproveCallback | None = None,
    keep_workspace: bool = False,
) -> Host:
    """Open a host on `profile` (a shipped name, a path, ``None`` for ``default``, or a
    :class:`~seamhost.Profile` already resolved).

    `profile_text` is the profile's TOML itself (then `profile` is ignored; its relative paths
    are taken from the current directory). `workspace` is where every session's tools work
    (default: a temporary directory per new session). `store` roots a persistence-jsonl store
    for the host's sessions (default: the profile's own store). `approve` answers the
    approvals the profile's rules leave to a person (:mod:`.approving`; default: nobody at the
    terminal is asked). `keep_workspace` keeps the temporary workspaces.
    """
    return Host(
        _runner(
            profile,
            profile_text=profile_text,
            workspace=workspace,
            store=store,
            approve=approve,
            keep_workspace=keep_workspace,
        )
    )


async def open_host_async(
    profile: str | Path | Profile | None = "default",
    *,
    profile_text: str | None = None,
    workspace: Path | None = None,
    store: Path | None = None,
    approve: ApproveCallback | None = None,
    keep_workspace: bool = False,
) -> AsyncHost:
    """Open an :class:`AsyncHost`; the arguments are :func:`open_host`'s."""
    return AsyncHost(
        _runner(
            profile,
            profile_text=profile_text,
            workspace=workspace,
            store=store,
            approve=approve,
            keep_workspace=keep_workspace,
        )
    )


__all__ = ["AsyncHost", "Host", "open_host", "open_host_async"]
