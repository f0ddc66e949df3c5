"""``seamhost worker``: claim queued runs and drive them, until stopped (§14).

Workers on any number of hosts share one queue. SIGTERM or Ctrl-C stops claiming; the runs
being driven finish first (a second signal exits at once: their sessions' leases lapse and
another worker takes them over and continues them). One line per run event goes to stderr.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

import click

from seamhost.cli import started
from seamhost.cli.next_steps import parked_advice
from seamhost.cli.options import directory_option, keep_option
from seamhost.cli.output import emit_json
from seamhost.cli.runs.queue import queue_profile_option
from seamhost.cli.session_store import open_store
from seamhost.cli.terminal import terminal_safe
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.redaction import redact
from seamhost.run.queue import run_queue, store_lease
from seamhost.run.worker import Worker


@click.command()
@queue_profile_option
@click.option(
    "--concurrency",
    type=click.IntRange(min=1, max=256),
    default=1,
    show_default=True,
    help="Runs driven at once by this worker.",
)
@click.option(
    "--once",
    is_flag=True,
    help="Exit when nothing is left to claim, instead of waiting for new runs (a run it "
    "handed back until a session's lease lapses is waited for).",
)
@click.option("--name", help="The worker's name in `seamhost runs ls` (default: host:pid).")
@directory_option(
    "--state-dir",
    "Where the workspaces of runs submitted without --workspace live, one per run id "
    "(default: $SEAMHOST_HOME/worker, else $XDG_STATE_HOME/seamhost/worker).",
)
@keep_option(
    "--keep-workspaces",
    "Keep the workspace of a run submitted without --workspace once it ends (it is "
    "removed when the run completes or fails, kept when it parks).",
)
@click.option("--json", "as_json", is_flag=True, help="Print how many runs ended how, as JSON.")
def worker(
    *,
    profile_ref: str,
    concurrency: int,
    once: bool,
    name: str | None,
    state_dir: Path | None,
    keep_workspaces: bool,
    as_json: bool,
) -> None:
    """Claim runs from the profile's run queue and drive each one's session."""
    profile = resolve_profile(profile_ref)
    store = build_bundle(profile).seams.session_store()
    if store is None:
        store = open_store(None, profile_ref)  # raises the "no session/store" error
    queue = run_queue(store, profile_ref)
    started()

    def report(line: str) -> None:
        # A line may quote a run's error: secrets redacted, controls escaped.
        sys.stderr.write(terminal_safe(redact(line)) + "\n")
        sys.stderr.flush()

    def advise(session_id: str) -> str | None:
        return parked_advice(store, session_id, profile_ref)

    serving = Worker(
        lambda workspace: build_bundle(profile, workspace=workspace),
        queue,
        name=name or f"{socket.gethostname()}:{os.getpid()}",
        state_root=state_dir.absolute() if state_dir is not None else None,
        keep_workspaces=keep_workspaces,
        concurrency=concurrency,
        once=once,
        claim_s=store_lease(store),
        report=report,
        advise=advise,
    )
    ended = asyncio.run(_serve(serving))
    if as_json:
        emit_json(ended)


async def _serve(serving: Worker) -> dict[str, int]:
    loop = asyncio.get_running_loop()
    stops = 0

    def stop() -> None:
        nonlocal stops
        stops += 1
        if stops > 1:
            os._exit(130)  # a second signal: leave now, the leases lapse and others take over
        sys.stderr.write("stopping: finishing the runs in progress, claiming none\n")
        serving.stop()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop)
    try:
        return await serving.serve()
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
