"""What the tests of seamhost's own servers share: a server child process that prints where it
listens, and a rig's store read back through the CLI.

``mcp serve --http`` and ``a2a serve`` each print ``listening on URL`` on standard error once
their socket is bound; :func:`listening` starts such a child, waits for that line and stops it
with SIGTERM, keeping everything it said for the test to read. (The console prints its one-time
login URL on standard output instead: its kits read that.)
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from seamhost.session.record import Record
from seamhost.session.shape import shape_problems
from tests.conftest import run_cli


class Served:
    """A running server child: the URL it printed, and its standard error once stopped."""

    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process = process
        self.url = url
        self.stderr = ""


@contextlib.contextmanager
def listening(
    argv: list[str], env: Mapping[str, str], *, stop_timeout: float = 30
) -> Iterator[Served]:
    """Start `argv`, wait for ``listening on URL`` on its stderr, SIGTERM it on exit."""
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(env),
        text=True,
    )
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        if "listening on " in line:
            url = line.split("listening on ")[1].strip()
            break
    else:
        process.wait(timeout=10)
        raise AssertionError(f"the server did not start: {''.join(seen)}")
    server = Served(process, url)
    try:
        yield server
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=stop_timeout)
        finally:
            server.stderr = "".join(seen) + process.stderr.read()
            process.stderr.close()


class StoreRig:
    """A profile and a store home for a test's servers, and the CLI to read the store back."""

    profile: Path
    home: Path
    env: dict[str, str]

    def environment(self, more: Mapping[str, str] | None = None) -> dict[str, str]:
        """This process's environment without any ``SEAMHOST_*``, with the rig's and `more`."""
        environ = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
        return {**environ, **self.env, **(more or {})}

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        result: subprocess.CompletedProcess[str] = run_cli(
            *args, "--profile", str(self.profile), env=self.env
        )
        return result

    def records(self, session_id: str) -> list[dict[str, Any]]:
        shown = self.cli("session", "show", session_id, "--json")
        assert shown.returncode == 0, shown.stderr
        return [json.loads(line) for line in shown.stdout.splitlines()]

    def session_ids(self) -> list[str]:
        stored = self.home / "sessions"
        return sorted(p.name for p in stored.iterdir() if p.is_dir()) if stored.exists() else []


def well_formed(records: list[dict[str, Any]], *, closed: bool = True) -> None:
    """The log keeps its shape: contiguous seq, every call with a result, nothing left open."""
    parsed = [Record(r["seq"], r["type"], r["time"], plain=r["data"]) for r in records]
    assert shape_problems(parsed, closed=closed) == []


def of_type(records: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The data of the records of type `kind`, in order."""
    return [r["data"] for r in records if r["type"] == kind]
