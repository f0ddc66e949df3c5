"""``seamhost session evidence``: the public evidence projection of sessions, and its check.

``evidence ID... [--json] [--out FILE]`` projects (:mod:`seamhost.session.evidence`),
``evidence --schema`` prints the shipped schema, and ``evidence verify FILE --against ID``
recomputes the projection from the log and names each difference
(:mod:`seamhost.session.evidence_check`). It only reads: no writer's lock is taken.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from seamhost.cli.display import esc
from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.failures import report
from seamhost.cli.lookup import resolve_sessions
from seamhost.cli.output import console, emit_json
from seamhost.cli.session_store import open_store, store_options
from seamhost.session.evidence import SCHEMA_ID, project, schema_text
from seamhost.session.evidence_check import differences, malformation
from seamhost.session.store import SessionStore

VERIFY = "verify"  # the first argument that makes the command check a file instead


@click.command()
@click.argument("args", metavar="ID... | verify FILE", nargs=-1)
@click.option("--against", "against", multiple=True, metavar="ID", help="verify: the session(s).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write it to FILE.")
@click.option("--schema", "print_schema", is_flag=True, help=f"Print the {SCHEMA_ID} schema.")
@store_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a summary.")
@click.pass_context
def evidence(
    ctx: click.Context,
    *,
    args: tuple[str, ...],
    against: tuple[str, ...],
    out: Path | None,
    print_schema: bool,
    root: Path | None,
    profile_ref: str,
    as_json: bool,
) -> None:
    """Write the public evidence of sessions ID...: ids, digests, decisions, outcomes only.

    The projection (schema seamhost.evidence.v1, printed by --schema) holds each session's
    digest and its bundle's, and per call its tool, argument digest, decisions and the rule
    they came from, approval outcome with the kind of answerer and the time, dispatch
    attempts, outcome code, result digest and reconciliation; never a prompt, an argument
    value, an output or a secret. --json prints it; --out FILE writes it to FILE.

    `evidence verify FILE --against ID` recomputes the projection from the log of ID and
    compares: exit 0 when it matches, 1 naming each difference, 2 when FILE is no projection
    or is of other sessions.
    """
    if print_schema:
        sys.stdout.write(schema_text())
        return
    if args[:1] == (VERIFY,):
        if len(args) != 2 or not against:
            raise click.UsageError("give `evidence verify FILE --against ID`")
        _verify(ctx, Path(args[1]), open_store(root, profile_ref), against, as_json=as_json)
        return
    if not args or against:
        raise click.UsageError("give the session ID(s) to project (or `verify FILE --against ID`)")
    store = open_store(root, profile_ref)
    document = _project(store, resolve_sessions(store, list(args)))
    if out is not None:
        _write(out, document)
    if as_json:
        emit_json(document)
    elif out is not None:
        console().print(f"evidence of {_sessions(document)} written to {esc(str(out))}")
    else:
        _summarise(document)


def _project(store: SessionStore, ids: list[str]) -> dict[str, Any]:
    readers = [store.read(sid) for sid in ids]
    return project((reader.header, reader.records()) for reader in readers)


def _write(path: Path, document: dict[str, Any]) -> None:
    """Write `document` whole or not at all: a reader never sees half a projection."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, path)


def _sessions(document: dict[str, Any]) -> str:
    return ", ".join(s["session_id"] for s in document["sessions"])


def _summarise(document: dict[str, Any]) -> None:
    out = console()
    for session in document["sessions"]:
        out.print(f"session {esc(session['session_id'])} {session['session_digest']}")
        out.print(f"  bundle {session['bundle_digest']}, {session['records']} record(s)")
        for turn in session["turns"]:
            out.print(f"  turn {turn['turn']}: {turn['end'] or 'open'}")
            for call in turn["calls"]:
                out.print("    " + esc(_call_line(call)), highlight=False)


def _call_line(call: dict[str, Any]) -> str:
    verdicts = " ".join(f"{d['stage']} {d['verdict']}" for d in call["decisions"])
    approval = call["approval"]
    asked = f", approval {approval['outcome']} ({approval['answerer_kind']})" if approval else ""
    outcome = call["outcome"]["code"] if call["outcome"] else "no result"
    settled = call["reconciliation"]
    reconciled = f", reconciled {settled['code']} by {settled['source_kind']}" if settled else ""
    attempts = len(call["attempts"])
    return (
        f"{call['call_id']} {call['tool']} {call['args_digest']}: {verdicts or 'not governed'}"
        f"{asked}, {attempts} attempt(s), {outcome}{reconciled}"
    )


def _verify(
    ctx: click.Context,
    path: Path,
    store: SessionStore,
    against: tuple[str, ...],
    *,
    as_json: bool,
) -> None:
    try:
        shared = json.loads(path.read_bytes())
    except OSError as exc:
        raise click.UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise click.UsageError(f"{path} is not JSON: {exc}") from exc
    problem = malformation(shared)
    if problem is not None:
        raise click.UsageError(f"{path} is no evidence projection: {problem}")
    ids = resolve_sessions(store, list(against))
    claimed = [s["session_id"] for s in shared["sessions"]]
    if claimed != ids:
        raise click.UsageError(
            f"{path} is the evidence of session(s) {', '.join(claimed) or 'none'}, "
            f"not of {', '.join(ids)}"
        )
    found = differences(_project(store, ids), shared)
    if as_json:
        emit_json({"file": str(path), "sessions": ids, "matches": not found, "differences": found})
    else:
        out = console()
        for line in found:
            out.print(esc(line), highlight=False)
        if not found:
            out.print(f"{esc(str(path))} matches the log of {esc(', '.join(ids))}")
    if found:
        # The differences above say what (as JSON too); stderr says that it failed.
        message = f"{path} does not match the log: {len(found)} difference(s)"
        report(ExitCode.FAILURE, message, as_json=False)
        ctx.exit(int(ExitCode.FAILURE))
