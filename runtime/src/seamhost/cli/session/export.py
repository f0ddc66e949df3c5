"""``seamhost session export ID... --otlp|--json``: stored sessions as OpenTelemetry traces.

The runtime imports no plugin, so the spans come through the plugin system: the command builds
the bundle of ``--profile`` and asks the plugin object whose descriptor provides
``session/export`` (observe-otel) to rebuild a stored log's spans, then send them over OTLP/HTTP
or (``--json``) return them as OTLP/JSON. A profile without such a plugin is a usage error
naming the profile and the fix (``--profile observed``, the shipped profile that enables it).

Of the two ways to reach the exporter this is the capability one, rather than replaying the
records through ``session/event`` to observe-otel alone: an observer is fire-and-forget (a
bounded queue that drops, a bounded wait at exit, a warning instead of an error), which is right
for a run and wrong for an export, whose one job is the sending and which must fail (exit 1,
naming the collector's URL) when it did not happen. Replaying also means choosing one observer
of a seam by hand, around the façade that drives every implementation; a capability the
descriptor declares is asked for by name, and the ``session/event`` observers of the bundle
(with their side effects) never hear of the export. The spans are the live ones all the same:
both paths feed the same records to the plugin's one span builder, which takes every time and
id from the records.

Every session id is resolved before anything is sent, so an unknown one (exit 2) sends nothing.
Progress (one line per session sent) goes to stderr; ``--json`` writes one
``ExportTraceServiceRequest`` per session, one per line, to stdout and sends nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import click

from seamhost.cli.lookup import resolve_sessions
from seamhost.cli.session_store import open_store, store_options
from seamhost.errors import SeamContractError
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile

if TYPE_CHECKING:
    from seamhost.session.record import Record
    from seamhost.session.store import SessionHeader

EXPORT_CAPABILITY = "session/export"
OBSERVED_PROFILE = "observed"  # the shipped profile that enables observe-otel


@runtime_checkable
class SessionExporter(Protocol):
    """What a plugin providing ``session/export`` offers: a stored log as OTLP spans."""

    def export_session(
        self, header: SessionHeader, records: Iterable[Record], *, endpoint: str | None = None
    ) -> int:
        """Send the log's spans (to `endpoint`, else the configured collector); how many.

        Raises a `SeamhostError` naming the collector when it does not take them.
        """

    def export_json(self, header: SessionHeader, records: Iterable[Record]) -> str:
        """The log's spans as one OTLP/JSON ``ExportTraceServiceRequest``, on one line."""


@click.command()
@click.argument("session_ids", nargs=-1, required=True, metavar="ID...")
@click.option("--otlp", is_flag=True, help="Send the spans to a collector over OTLP/HTTP.")
@click.option(
    "--endpoint",
    metavar="URL",
    help="The collector's base URL (overrides OTEL_EXPORTER_OTLP_ENDPOINT).",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Write OTLP JSON to stdout instead of sending."
)
@store_options
def export(  # noqa: PLR0917  (click passes every option)
    session_ids: tuple[str, ...],
    otlp: bool,
    endpoint: str | None,
    as_json: bool,
    root: Path | None,
    profile_ref: str,
) -> None:
    """Rebuild the traces of sessions ID... from their logs, with their recorded times.

    --otlp sends them where the profile's observe-otel would (OTEL_* variables, or --endpoint);
    --json writes them as OTLP JSON, one request per session and line, instead. The profile
    must enable observe-otel: --profile observed does.
    """
    if not (otlp or as_json):
        raise click.UsageError("say where the traces go: --otlp (send them) or --json (print)")
    bundle = build_bundle(resolve_profile(profile_ref))
    exporter = session_exporter(bundle)
    store = open_store(root, profile_ref, bundle)
    ids = resolve_sessions(store, list(session_ids))
    for number, session_id in enumerate(ids, start=1):
        reader = store.read(session_id)
        if as_json:
            sys.stdout.write(exporter.export_json(reader.header, reader.records()) + "\n")
            continue
        sent = exporter.export_session(reader.header, reader.records(), endpoint=endpoint)
        click.echo(f"[{number}/{len(ids)}] session {session_id}: {sent} span(s) sent", err=True)
    sys.stdout.flush()


def session_exporter(bundle: Bundle) -> SessionExporter:
    """The plugin object of `bundle` that provides ``session/export``."""
    names = [e.name for e in bundle.profile.plugins if EXPORT_CAPABILITY in e.descriptor.provides]
    if not names:
        raise click.UsageError(
            f"profile {bundle.profile.name!r} has no plugin providing {EXPORT_CAPABILITY}; "
            f"use --profile {OBSERVED_PROFILE}, or a profile with [plugins.observe-otel]"
        )
    plugin = bundle.pm.get_plugin(names[0])
    if not isinstance(plugin, SessionExporter):
        raise SeamContractError(
            EXPORT_CAPABILITY, names[0], "its plugin object has no export_session and export_json"
        )
    return plugin
