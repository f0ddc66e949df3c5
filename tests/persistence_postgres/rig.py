"""A rig for worker tests: a plugin site with a marker tool, a profile on the test's schema.

The ``marker`` plugin's tool ``mark`` leaves one file per body run, named by the call's
idempotency key and attempt (``<session>:<call id>.<attempt>``), created exclusively: a second
body run of the same (call, attempt) finds the file there and notes it in ``doubles``, the
evidence of a double dispatch. A body runs only after the checkpoint committed its
``tool/dispatch`` record, so every marker names a record the log must still hold. ``hold``
makes the body wait while the rig's hold file exists; ``ms`` makes it sleep (I/O-bound work).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import psycopg
from psycopg import sql

MARKER_PLUGIN = """
import asyncio, os, random
from pathlib import Path
from seamhost import PluginDescriptor, ToolOutput, ToolSpec, hookimpl

MARKERS = Path(os.environ["RIG_MARKERS"])
HOLD = Path(os.environ["RIG_HOLD"])
JITTER = float(os.environ.get("RIG_JITTER", "0"))
ARGS = {"hold": {"type": "boolean"}, "ms": {"type": "integer", "minimum": 0}}
SCHEMA = {"type": "object", "properties": ARGS, "additionalProperties": False}

async def mark(ctx):
    name = f"{ctx.idempotency_key}.{ctx.attempt}"
    try:
        fd = os.open(MARKERS / name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        with open(MARKERS / "doubles", "a") as fh:
            fh.write(name + "\\n")
    else:
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
    while ctx.arguments.get("hold") and HOLD.exists():
        await asyncio.sleep(0.02)
    if ctx.arguments.get("ms"):
        await asyncio.sleep(ctx.arguments["ms"] / 1000)
    if JITTER:
        await asyncio.sleep(random.random() * JITTER)
    return ToolOutput("marked " + name)

class Marker:
    def __init__(self, ctx):
        pass

    @hookimpl
    def tools_register(self, register):
        register(ToolSpec("mark", "leaves a marker per body run", SCHEMA, {}, "write", False, mark))

descriptor = PluginDescriptor(name="marker", factory=Marker, description="worker-test marker tool")
"""


@attrs.frozen
class Rig:
    """A directory holding the plugin site, the profile, the markers and the hold file."""

    root: Path
    dsn: str
    schema: str

    @property
    def site(self) -> Path:
        return self.root / "site"

    @property
    def markers(self) -> Path:
        return self.root / "markers"

    @property
    def hold(self) -> Path:
        return self.root / "hold"

    @property
    def profile(self) -> Path:
        return self.root / "profile.toml"

    @classmethod
    def make(cls, root: Path, dsn: str, schema: str, *, lease_s: float = 1.5) -> Rig:
        rig = cls(root, dsn, schema)
        rig.site.mkdir(parents=True)
        rig.markers.mkdir()
        (rig.root / "tmp").mkdir()
        (rig.site / "seamhost_marker.py").write_text(MARKER_PLUGIN)
        info = rig.site / "seamhost_marker-0.1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: seamhost-marker\nVersion: 0.1.0\n\n"
        )
        (info / "entry_points.txt").write_text(
            "[seamhost.plugins]\nmarker = seamhost_marker:descriptor\n"
        )
        rig.profile.write_text(
            '[profile]\nname = "rig"\n'
            "[plugins.persistence-postgres]\n"
            f'dsn = {{ "$env" = "RIG_DSN" }}\nschema = "{schema}"\nlease_s = {lease_s}\n'
            # A resume snapshot after every flush: takeovers and restarts open from one.
            "batch_window_ms = 20\nsnapshot_every = 1\n"
            "[plugins.checkpoint-policy]\n[plugins.marker]\n[plugins.model-scripted]\n"
            '[sandbox]\nmode = "workspace-write"\n'
        )
        return rig

    def env(self, jitter: float = 0.0, dsn: str | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SEAMHOST_", "RIG_"))}
        env.update(
            PYTHONPATH=os.pathsep.join(filter(None, [str(self.site), env.get("PYTHONPATH", "")])),
            RIG_DSN=dsn or self.dsn,
            RIG_MARKERS=str(self.markers),
            RIG_HOLD=str(self.hold),
            RIG_JITTER=str(jitter),
            SEAMHOST_HOME=str(self.root / "home"),
            # A worker killed mid-run leaves its workspace: here, not in the suite's TMPDIR.
            TMPDIR=str(self.root / "tmp"),
        )
        return env

    def scenario(self, name: str, turns: Sequence[Sequence[dict[str, Any]]]) -> Path:
        """A scenario whose turns each hold steps of one `mark` call with these arguments."""
        doc = {
            "turn": [
                {
                    "user": f"turn {t}",
                    "step": [
                        {"text": f"step {s}", "call": [{"tool": "mark", "args": args}]}
                        for s, args in enumerate(steps, start=1)
                    ],
                }
                for t, steps in enumerate(turns, start=1)
            ]
        }
        path = self.root / name
        path.write_text(json.dumps(doc))
        return path

    def cli(self, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "seamhost", *args],
            capture_output=True,
            text=True,
            env={**self.env(), **env},
            timeout=timeout,
            check=False,
            cwd=self.root,
        )

    def submit(self, scenario: Path, session: str | None = None) -> str:
        args = ["submit", "--profile", str(self.profile), "--json", str(scenario)]
        done = self.cli(*args, *(["--session", session] if session else []))
        assert done.returncode == 0, done.stderr
        return str(json.loads(done.stdout)["session_id"])

    def worker(
        self, *args: str, log: str = "worker.log", jitter: float = 0.0
    ) -> subprocess.Popen[bytes]:
        with open(self.root / log, "ab") as err:
            return subprocess.Popen(
                [sys.executable, "-m", "seamhost", "worker", "--profile", str(self.profile), *args],
                env=self.env(jitter),
                cwd=self.root,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )

    def runs(self) -> list[dict[str, Any]]:
        done = self.cli("runs", "ls", "--profile", str(self.profile), "--json")
        assert done.returncode == 0, done.stderr
        rows: list[dict[str, Any]] = json.loads(done.stdout)
        return rows

    def marker_names(self) -> set[str]:
        return {p.name for p in self.markers.iterdir() if p.name != "doubles"}

    def doubles(self) -> list[str]:
        path = self.markers / "doubles"
        return path.read_text().split() if path.exists() else []

    def rows(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            composed = sql.SQL(query).format(s=sql.Identifier(self.schema))
            return conn.execute(composed, params).fetchall()
