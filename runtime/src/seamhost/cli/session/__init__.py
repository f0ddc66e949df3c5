"""``seamhost session``: list, render, check, repair and remove stored sessions.

The store is found as :mod:`seamhost.cli.session_store` says, and every session id may be given
as a unique prefix (:mod:`seamhost.cli.lookup`). ``ls`` (:mod:`~seamhost.cli.session.listing`),
``show`` and ``verify`` only read: they never take a writer's lock, so they work on a live or
crashed session alike. ``repair``, ``rm`` and ``prune`` (:mod:`~seamhost.cli.session.retention`)
take the lock, so a session a live writer holds is refused, never repaired or removed; the
reconciliation commands (design.md §10) are :mod:`~seamhost.cli.session.reconcile`; ``export``
(:mod:`~seamhost.cli.session.export`) rebuilds sessions' traces through a plugin. Each
subcommand is imported only when it runs: listing a few headers does not load the machinery
that repairs a session.
"""

from __future__ import annotations

import click

from seamhost.cli.lazy_group import Lazy, LazyGroup

_COMMANDS = {
    "evidence": Lazy(
        "seamhost.cli.session.evidence:evidence",
        "Write the public evidence of sessions ID...: ids, digests, decisions, outcomes only.",
    ),
    "export": Lazy(
        "seamhost.cli.session.export:export",
        "Rebuild the traces of sessions ID... from their logs, with their recorded times.",
    ),
    "ls": Lazy(
        "seamhost.cli.session.listing:list_sessions",
        "List the stored sessions, oldest first (from their headers only).",
    ),
    "prune": Lazy(
        "seamhost.cli.session.retention:prune",
        "Remove the sessions not written since --older-than, except the --keep newest.",
    ),
    "reconcile": Lazy(
        "seamhost.cli.session.reconcile:reconcile",
        "Resolve an unknown outcome with evidence, or (--due) by asking the tools' status probes.",
    ),
    "repair": Lazy(
        "seamhost.cli.session.repair:repair",
        "Close the crashed tail of session ID (or of --all sessions).",
    ),
    "rm": Lazy(
        "seamhost.cli.session.retention:remove",
        "Remove sessions for good; each ID may be a unique prefix of a session id.",
    ),
    "show": Lazy(
        "seamhost.cli.session.show:show",
        "Show the timeline of session ID: turns, steps, calls, results, approvals.",
    ),
    "unknowns": Lazy(
        "seamhost.cli.session.reconcile:unknowns",
        "List every unresolved unknown outcome across the stored sessions.",
    ),
    "verify": Lazy(
        "seamhost.cli.session.verify:verify",
        "Check the integrity of session ID (or of --all sessions).",
    ),
}


@click.group(cls=LazyGroup, lazy=_COMMANDS)
def session() -> None:
    """List, show, verify, repair and remove stored sessions."""
