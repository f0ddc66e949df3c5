"""``seamhost doctor``: what works on this machine (design.md §8).

Two checks, each reported even when the other fails:

* **sandbox**: each backend of the sandbox-local plugin, whether it works here (the plugin
  probes it by running a real confined command), its enforcement of each confining mode, what
  it cannot refuse, and why it does not work when it does not. The plugin's public
  ``probe_backends()`` supplies the reports; the profile's ``[plugins.sandbox-local]`` table
  supplies the order of preference and ``bwrap_path``, and so the backend the profile would use
  (``selected``); a profile without that table is reported as confining nothing.
* **store**: the profile's session store (``bundle.store``): whether its root is writable, and
  whether ``fsync`` works there (a temporary file is written, synced with its directory and
  removed). A root that does not exist yet is checked at its nearest existing ancestor, where it
  would be created. A profile that cannot be resolved is reported, not raised.

Exit status: 0 when a backend works on this machine and the store is writable with a working
``fsync``, 1 otherwise.
"""

from __future__ import annotations

import importlib
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import click
from rich.markup import escape
from rich.table import Table

from seamhost.cli.exitcodes import ExitCode
from seamhost.cli.options import profile_option
from seamhost.cli.output import console, emit_json
from seamhost.errors import SeamhostError, describe
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.plugins import discover
from seamhost.kernel.profile.resolve import resolve_profile

SANDBOX_PLUGIN = "sandbox-local"
PROBE_SIZE = 4096


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON document instead of tables.")
@profile_option("the one whose store and sandbox settings to check")
def doctor(as_json: bool, profile_ref: str) -> None:
    """Check which sandbox backends work here, with what enforcement, and the session store.

    Exit 0 when a sandbox backend works and the store is writable with a working fsync, 1
    otherwise.
    """
    profile, problem = _resolve(profile_ref)
    report: dict[str, Any] = {
        "profile": profile_ref,
        "sandbox": _sandbox(profile),
        "store": _store(profile, problem),
    }
    report["ok"] = report["sandbox"]["works"] and report["store"]["ok"]
    if as_json:
        emit_json(report)
    else:
        _print(report)
    if not report["ok"]:
        raise SystemExit(int(ExitCode.FAILURE))


def _resolve(ref: str) -> tuple[Any, str]:
    """The resolved profile, or ``None`` and why it could not be resolved."""
    try:
        return resolve_profile(ref), ""
    except SeamhostError as exc:
        return None, f"profile {ref!r} cannot be resolved: {exc}"


# -- the sandbox ------------------------------------------------------------------------------


def _sandbox(profile: Any) -> dict[str, Any]:
    section: dict[str, Any] = {
        "plugin": SANDBOX_PLUGIN,
        "problem": "",
        "backends": [],
        "works": False,
        "selected": "",
    }
    found = discover()
    installed = found.plugins.get(SANDBOX_PLUGIN)
    if SANDBOX_PLUGIN in found.blocked:
        section["problem"] = f"{SANDBOX_PLUGIN} is blocked by SEAMHOST_DISABLE_PLUGINS"
        return section
    if installed is None:
        section["problem"] = f"{SANDBOX_PLUGIN} not installed"
        return section
    entry = profile.plugin(SANDBOX_PLUGIN) if profile is not None else None
    config = dict(entry.config) if entry is not None else {}
    try:
        module = importlib.import_module(installed.value.partition(":")[0].strip())
        reports = module.probe_backends(bwrap_path=config.get("bwrap_path"))
    except Exception as exc:
        section["problem"] = f"{SANDBOX_PLUGIN} cannot probe its backends: {describe(exc)}"
        return section
    section["backends"] = [report.to_json() for report in reports]
    working = [report.name for report in reports if report.available]
    section["works"] = bool(working)
    if entry is None:
        section["problem"] = (
            f"the profile has no [plugins.{SANDBOX_PLUGIN}] table: its confined calls end "
            "SANDBOX_UNAVAILABLE"
        )
        return section
    order = list(config.get("backends", [report.name for report in reports]))
    section["order"] = order
    section["selected"] = next((name for name in order if name in working), "")
    if section["selected"]:
        passed = order[: order.index(section["selected"])]
        section["why"] = (
            f"{section['selected']}: the first of the profile's backends ({', '.join(order)}) "
            "that works here" + (f"; {', '.join(passed)} does not" if passed else "")
        )
    else:
        section["problem"] = (
            "no enabled backend works here: every confined call will end SANDBOX_UNAVAILABLE"
        )
    return section


# -- the store --------------------------------------------------------------------------------


def _store(profile: Any, problem: str) -> dict[str, Any]:
    section: dict[str, Any] = {"ok": False, "problem": problem}
    if profile is None:
        return section
    try:
        store = build_bundle(profile).store
    except SeamhostError as exc:
        section["problem"] = f"the profile's bundle cannot be built: {exc}"
        return section
    section["store"] = repr(store)
    if not store.durable:
        section["problem"] = f"the {store.name} store is not durable: sessions end with the process"
        return section
    if store.location is None:  # durable elsewhere: nothing local to check
        section["ok"] = True
        section["problem"] = f"the store ({store.name}) keeps sessions outside this machine"
        return section
    section.update(check_directory(store.location))
    section["ok"] = bool(section["writable"] and section["fsync"])
    return section


def check_directory(root: Path) -> dict[str, Any]:
    """Whether files can be created and fsynced under `root` (or where it would be created)."""
    checked = root
    while not checked.exists() and checked != checked.parent:
        checked = checked.parent
    out: dict[str, Any] = {
        "root": str(root),
        "exists": root.is_dir(),
        "checked": str(checked),
        "writable": False,
        "fsync": False,
        "fsync_ms": None,
        "problem": "" if checked == root else "does not exist yet: created at the first write",
    }
    try:
        fd, name = tempfile.mkstemp(prefix=".seamhost-doctor-", dir=checked)
    except OSError as exc:
        out["problem"] = f"cannot create a file in {checked}: {exc.strerror or exc}"
        return out
    out["writable"] = True
    try:
        os.write(fd, b"\0" * PROBE_SIZE)
        started = time.perf_counter()
        os.fsync(fd)
        directory = os.open(checked, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        out["fsync_ms"] = round((time.perf_counter() - started) * 1000, 3)
        out["fsync"] = True
    except OSError as exc:
        out["problem"] = f"fsync fails in {checked}: {exc.strerror or exc}"
    finally:
        os.close(fd)
        os.unlink(name)
    return out


# -- printing ---------------------------------------------------------------------------------


def _print(report: dict[str, Any]) -> None:
    out = console()
    sandbox = report["sandbox"]
    out.print(f"[bold]sandbox[/bold] ({sandbox['plugin']})")
    if sandbox["backends"]:
        table = Table("backend", "works", "read-only", "workspace-write", "found", box=None)
        for backend in sandbox["backends"]:
            chosen = " (selected)" if backend["name"] == sandbox["selected"] else ""
            table.add_row(
                backend["name"] + chosen,
                _yes(backend["available"]),
                _enforcement(backend, "read-only"),
                _enforcement(backend, "workspace-write"),
                escape(backend["detail"]),
            )
        out.print(table)
        for backend in sandbox["backends"]:
            for line in _details(backend):
                out.print(f"  {backend['name']}: {line}")
    if sandbox.get("why"):
        out.print(f"  selected: {escape(sandbox['why'])}")
    if sandbox["problem"]:
        out.print(f"  [red]{escape(sandbox['problem'])}[/red]")
    store = report["store"]
    out.print(f"[bold]store[/bold] (profile {escape(report['profile'])})")
    if "root" in store:
        out.print(f"  {escape(store['store'])}")
        out.print(f"  writable: {_yes(store['writable'])} (checked in {escape(store['checked'])})")
        timing = f" ({store['fsync_ms']} ms for 4 KiB and its directory)" if store["fsync"] else ""
        out.print(f"  fsync: {_yes(store['fsync'])}{timing}")
    if store["problem"]:
        colour = "yellow" if store["ok"] else "red"
        out.print(f"  [{colour}]{escape(store['problem'])}[/{colour}]")


def _enforcement(backend: dict[str, Any], mode: str) -> str:
    entry = backend["modes"].get(mode)
    if not backend["available"] or entry is None:
        return "-"
    colour = "green" if entry["enforcement"] == "full" else "yellow"
    return f"[{colour}]{entry['enforcement']}[/{colour}]"


def _details(backend: dict[str, Any]) -> list[str]:
    if not backend["available"]:
        return [f"[red]why not: {escape(backend['reason'])}[/red]"]
    lines = [
        f"[yellow]{mode} does not refuse: {escape(gap)}[/yellow]"
        for mode, entry in backend["modes"].items()
        for gap in entry["missing"]
    ]
    return lines + [f"note: {escape(note)}" for note in backend["notes"]]


def _yes(value: bool) -> str:
    return "[green]yes[/green]" if value else "[red]no[/red]"
