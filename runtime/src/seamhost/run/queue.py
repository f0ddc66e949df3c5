"""What a store that keeps a run queue supplies (design.md §14): the protocols workers use.

A run queue lives with the sessions it drives (persistence-postgres keeps it in the same
schema); a store that has one exposes it as ``store.runs``. A run names its session (chosen
when it is submitted), what drives it (a scenario's bytes and file name, or a prompt) and, when
it was submitted with one, the workspace every owner of the run works in. Its
``claims`` count fences its row: a worker's updates hold only while the count is the one its
claim returned. The session's own lease fences the session's records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from seamhost.errors import ConfigError

if TYPE_CHECKING:
    import datetime

    from seamhost.session.store import SessionStore

# What a run ends as, once a worker is done with it.
FINAL_STATES = ("completed", "interrupted", "parked", "failed")


class Run(Protocol):
    """One run, as the queue holds it."""

    @property
    def id(self) -> int: ...
    @property
    def session_id(self) -> str: ...
    @property
    def state(self) -> str: ...  # queued, running, or one of FINAL_STATES
    @property
    def scenario(self) -> bytes | None: ...
    @property
    def scenario_name(self) -> str | None: ...
    @property
    def prompt(self) -> str | None: ...
    @property
    def claims(self) -> int: ...
    @property
    def worker(self) -> str | None: ...
    @property
    def progress(self) -> str: ...
    @property
    def outcome(self) -> str: ...
    @property
    def submitted(self) -> datetime.datetime | None: ...
    @property
    def started(self) -> datetime.datetime | None: ...
    @property
    def finished(self) -> datetime.datetime | None: ...
    @property
    def workspace(self) -> str | None: ...  # `submit --workspace`; None: the worker's own


class RunAttempt(Protocol):
    """One claim of a run: the worker, when it claimed it, when and how the claim ended."""

    @property
    def claim(self) -> int: ...
    @property
    def worker(self) -> str: ...
    @property
    def claimed(self) -> datetime.datetime: ...
    @property
    def ended(self) -> datetime.datetime | None: ...  # None: the worker died or stalled
    @property
    def how(self) -> str | None: ...


@runtime_checkable
class RunQueue(Protocol):
    """The queue: submit, claim (skipping rows another worker holds), heartbeat, finish."""

    @property
    def where(self) -> str: ...

    def submit(
        self,
        session_id: str,
        *,
        scenario: bytes | None = None,
        scenario_name: str | None = None,
        prompt: str | None = None,
        workspace: str | None = None,
    ) -> int: ...

    def claim(self, worker: str, claim_s: float) -> Run | None:
        """The oldest queued run, or a running one whose claim expired; None when none is."""
        ...

    def heartbeat(self, run: Run, claim_s: float, progress: str) -> bool: ...

    def finish(self, run: Run, state: str, outcome: str) -> bool: ...

    def hand_back(self, run: Run, progress: str, delay_s: float = 0.0) -> bool:
        """Queue the run again, claimable once `delay_s` has passed."""
        ...

    def note_end(self, run: Run, how: str) -> None:
        """Note how this claim ended, leaving the run to whoever holds it now."""
        ...

    def attempts(self, run: Run) -> Sequence[RunAttempt]:
        """Every claim of the run, oldest first."""
        ...

    def all(self) -> Sequence[Run]: ...

    def find(self, ref: str) -> Sequence[Run]:
        """The runs whose id is `ref`, or whose session id starts with it."""
        ...


class NoRunQueue(ConfigError):
    """The profile's session store keeps no run queue."""


def run_queue(store: SessionStore, profile: str) -> RunQueue:
    """The run queue of `store`, or a configuration error saying which store has one."""
    queue = getattr(store, "runs", None)
    if not isinstance(queue, RunQueue):
        raise NoRunQueue(
            profile,
            "plugins",
            f"the session store {store.name} keeps no run queue; use a profile whose store has "
            "one, such as persistence-postgres (`--profile postgres`)",
        )
    return queue


def store_lease(store: SessionStore) -> float:
    """How long the store's session leases run (what a run claim lasts too); 30 s if unsaid."""
    lease = getattr(store, "lease_s", None)
    return float(lease) if isinstance(lease, int | float) else 30.0
