"""Crash harness: a child runs `seamhost run` on a real store and is SIGKILLed at a chosen moment.

The child's bundle holds ``crashprobe``, a plugin that announces each phase of a governed call on a
phase file (one line per event, written before the phase proceeds) and can hold a phase forever,
so the parent kills the child at exactly that point (``dispatch``, from a ``tools/execute``
wrapper outside checkpoint-policy's, is a call dispatched but not yet flushed). Its tools leave
one marker file per call outside the store: the external effect repair must never call "not
started". ``effect_q`` declares a status query: its marker is named by the call's idempotency key
(``q-<session>:<call id>``), holds one line per body run, and its ``tools/reconcile`` answers
from the marker alone, which is what a reconciliation after a kill must agree with. Its
``llm/stream`` wrapper (outermost) reports, at the first model event, how many records the
checkpoint flush has just made durable: what a reopened session must still hold.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import orjson

from seamhost.cli.session.snapshots import snapshot_check
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.session.record import Record
from seamhost.session.shape import shape_problems
from seamhost.session.store import SessionStore

PROBE = """
import asyncio, os, random
from pathlib import Path
from seamhost import (
    ApprovalOutcome, Decision, PluginDescriptor, Resolved, ToolOutput, ToolSpec, hookimpl,
)

PHASES = os.environ.get("CRASH_PHASES", os.devnull)
MARKERS = Path(os.environ.get("CRASH_MARKERS", "."))
HOLD = set(filter(None, os.environ.get("CRASH_HOLD", "").split(",")))
HOLD_NTH = int(os.environ.get("CRASH_HOLD_NTH", "1"))  # hold at that announcement of a phase
SEEN: dict[str, int] = {}

def held(name):
    SEEN[name] = SEEN.get(name, 0) + 1
    return name in HOLD and SEEN[name] >= HOLD_NTH
JITTER = float(os.environ.get("CRASH_JITTER", "0"))
ASK = {"ask": {"type": "boolean"}}
SCHEMA = {"type": "object", "properties": ASK, "additionalProperties": False}
OUT: dict[str, object] = {}  # the bodies return text only, no value

def announce(phase, detail):
    with open(PHASES, "a") as fh:
        fh.write(f"{phase} {detail}\\n")

async def phase(name, detail):
    announce(name, detail)
    if held(name):
        await asyncio.sleep(3600)
    elif JITTER:
        await asyncio.sleep(random.random() * JITTER)

async def effect(ctx):
    await phase("body-before", ctx.call_id)
    # One line per body run: a continuation must never run a body twice.
    fd = os.open(MARKERS / ctx.call_id, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600)
    os.write(fd, f"attempt {ctx.attempt} key {ctx.idempotency_key}\\n".encode())
    os.close(fd)
    await phase("body-after", ctx.call_id)
    return ToolOutput("done " + ctx.call_id)

def q_marker(key):
    return MARKERS / ("q-" + key)

async def effect_q(ctx):
    # The effect is the marker named by the idempotency key, made by an atomic rename: a kill
    # before the rename (q-mid) leaves only the temporary file, which is no effect at all.
    # One line per body run, so a second run would show.
    await phase("q-enter", ctx.call_id)
    marker = q_marker(ctx.idempotency_key)
    lines = marker.read_text() if marker.exists() else ""
    staged = marker.with_name(marker.name + ".tmp")
    staged.write_text(lines + f"attempt {ctx.attempt}\\n")
    await phase("q-mid", ctx.call_id)
    os.replace(staged, marker)
    await phase("q-after", ctx.call_id)
    return ToolOutput("done " + ctx.call_id)

class CrashProbe:
    def __init__(self, ctx):
        pass

    @hookimpl
    def tools_register(self, register):
        register(ToolSpec("effect", "leaves a marker", SCHEMA, OUT, "write", False, effect))
        register(ToolSpec("peek", "leaves a marker too", SCHEMA, OUT, "read-only", True, effect))
        register(ToolSpec("effect_q", "leaves a marker its probe can find", SCHEMA, OUT,
                          "write", False, effect_q, status_query=True))

    @hookimpl
    async def tools_execute(self, execution, call_next):
        # Outside checkpoint-policy's wrapper (trylast): the dispatch is appended, not yet flushed.
        announce("dispatch", execution.invocation.call_id)
        if held("dispatch"):
            await asyncio.sleep(3600)
        return await call_next(execution)

    @hookimpl
    def tools_reconcile(self, probe):
        announce("probe", probe.call_id)
        marker = q_marker(probe.idempotency_key)
        if marker.exists():
            return Resolved("done " + probe.call_id)
        return Resolved("no effect: the marker is absent", error_code="TOOL_ERROR")

    @hookimpl
    def tools_pre_execute(self, call):
        return Decision.ask("the test asks") if call.arguments.get("ask") else None

    @hookimpl
    async def approval_request(self, request):
        await phase("approval", request.call_id)
        return ApprovalOutcome.ALLOWED_ONCE

    @hookimpl
    async def session_flush(self, session):
        last = session.records[-1].type if len(session.records) else ""
        if last == "tool/dispatch":
            await phase("flush", session.next_seq)

    @hookimpl(tryfirst=True)
    def llm_stream(self, request, call_next):
        async def observed():
            await phase("model", request.step)  # before the request leaves (and its flush)
            first = True
            async for event in call_next(request):
                if first and request.session is not None:
                    announce("durable", request.session.next_seq)
                    first = False
                yield event
        return observed()

descriptor = PluginDescriptor(
    name="crashprobe", factory=CrashProbe,
    description="crash-test probe: announces phases, holds them, leaves markers",
)
"""


@attrs.frozen
class Rig:
    """A crash-test rig in a temporary directory: plugin site, profile, store, markers."""

    root: Path

    @property
    def site(self) -> Path:
        return self.root / "site"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def markers(self) -> Path:
        return self.root / "markers"

    @property
    def profile(self) -> Path:
        # Found by its name too (SEAMHOST_PROFILE_PATH): a resume without --profile uses it.
        return self.root / "profiles" / "crashrig.toml"

    @classmethod
    def make(cls, root: Path) -> Rig:
        rig = cls(root)
        rig.site.mkdir(parents=True)
        rig.markers.mkdir()
        rig.profile.parent.mkdir()
        (rig.site / "seamhost_crashprobe.py").write_text(PROBE)
        info = rig.site / "seamhost_crashprobe-0.1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: seamhost-crashprobe\nVersion: 0.1.0\n\n"
        )
        (info / "entry_points.txt").write_text(
            "[seamhost.plugins]\ncrashprobe = seamhost_crashprobe:descriptor\n"
        )
        rig.profile.write_text(
            # A resume snapshot after every flush: the reopening after a kill starts from one.
            f'[plugins.persistence-jsonl]\nroot = "{rig.home / "sessions"}"\nsnapshot_every = 1\n'
            "[plugins.checkpoint-policy]\n[plugins.crashprobe]\n"
            '[plugins.model-scripted]\n[sandbox]\nmode = "workspace-write"\n'
        )
        return rig

    def env(
        self, phases: Path, hold: Sequence[str] = (), jitter: float = 0.0, nth: int = 1
    ) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SEAMHOST_", "CRASH_"))}
        env.update(
            PYTHONPATH=os.pathsep.join(filter(None, [str(self.site), env.get("PYTHONPATH", "")])),
            SEAMHOST_HOME=str(self.home),
            SEAMHOST_PROFILE_PATH=str(self.profile.parent),
            CRASH_PHASES=str(phases),
            CRASH_MARKERS=str(self.markers),
            CRASH_HOLD=",".join(hold),
            CRASH_JITTER=str(jitter),
            CRASH_HOLD_NTH=str(nth),
        )
        return env

    def cli(
        self, *args: str, env: dict[str, str], timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "seamhost", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
            cwd=self.root,
        )

    def start(self, session: str, scenario: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
        """Start `seamhost run` in a child; its stderr goes to `child.err` in the rig."""
        with open(self.root / "child.err", "ab") as err:
            return subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "seamhost",
                    "run",
                    "--profile",
                    str(self.profile),
                    "--session",
                    session,
                    "--workspace",
                    str(self.root / "ws"),
                    str(scenario),
                ],
                env=env,
                cwd=self.root,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )

    def bundle(self) -> Bundle:
        sys.path.insert(0, str(self.site))
        try:
            environ = {**os.environ, "SEAMHOST_HOME": str(self.home)}
            return build_bundle(
                resolve_profile(str(self.profile), environ=environ), environ=environ
            )
        finally:
            sys.path.remove(str(self.site))


def scenario(
    path: Path, steps: Sequence[Sequence[tuple[str, bool]]], user: str = "go", turns: int = 1
) -> Path:
    """Write a scenario of `turns` like turns whose steps call (tool, ask) pairs."""
    turn = {
        "user": user,
        "step": [
            {
                "text": f"step {n}",
                "call": [{"tool": tool, "args": {"ask": ask}} for tool, ask in calls],
            }
            for n, calls in enumerate(steps, start=1)
        ],
    }
    doc = {"turn": [turn] * turns}
    path.write_bytes(orjson.dumps(doc))
    return path


def phases(path: Path) -> list[tuple[str, str]]:
    if not path.exists():
        return []
    return [tuple(line.split(" ", 1)) for line in path.read_text().splitlines() if " " in line]  # type: ignore[misc]


def kill_at(
    child: subprocess.Popen[bytes],
    phase_file: Path,
    want: str,
    *,
    settle: float = 0.0,
    timeout: float = 30,
) -> bool:
    """SIGKILL the child `settle` seconds after `want` (a phase name) is announced.

    Returns False if the child exited first.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(name == want for name, _ in phases(phase_file)):
            time.sleep(settle)
            child.send_signal(signal.SIGKILL)
            child.wait()
            return True
        if child.poll() is not None:
            return False
        time.sleep(0.002)
    child.kill()
    child.wait()
    raise TimeoutError(f"phase {want!r} never came")


def kill_after(child: subprocess.Popen[bytes], delay: float) -> bool:
    """SIGKILL the child after `delay` seconds; False if it had already exited."""
    try:
        child.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGKILL)
        child.wait()
        return True
    return False


@attrs.frozen
class Aftermath:
    """What a killed session looks like once reopened (before and after repair)."""

    stored: list[Record]
    repaired: list[Record]
    markers: frozenset[str]
    durable: int  # records a returned checkpoint flush covered, as the child reported
    # What `session verify` says of the resume snapshot the kill left, and after the repair.
    snapshots: tuple[str, str] = ("none", "none")

    def results(self) -> dict[str, str]:
        return {
            r.data["call_id"]: (r.data.get("error") or {}).get("code", "ok")
            for r in self.repaired
            if r.type == "tool/result"
        }

    def misclassified(self) -> list[str]:
        """Calls whose recorded outcome contradicts the external evidence."""
        wrong = []
        for call_id, code in self.results().items():
            if call_id in self.markers and code == "TOOL_NOT_STARTED":
                wrong.append(f"{call_id}: effect present but repaired as TOOL_NOT_STARTED")
        return wrong

    def problems(self) -> list[str]:
        out = self.misclassified()
        if len(self.stored) < self.durable:
            out.append(
                f"lost committed records: {len(self.stored)} stored < {self.durable} flushed"
            )
        out += shape_problems(self.repaired, closed=True)
        if "differs" in self.snapshots:
            out.append(f"a resume snapshot differs from its log: {self.snapshots}")
        return out


def aftermath(rig: Rig, session: str, phase_file: Path) -> Aftermath:
    """Read the killed session, repair it through the real CLI, read it again."""
    store = rig.bundle().store
    stored = list(store.read(session).records())
    left = snapshot_status(store, session)
    env = rig.env(rig.root / "repair-phases")
    result = rig.cli("session", "repair", "--profile", str(rig.profile), session, env=env)
    if result.returncode != 0:
        raise AssertionError(f"repair failed: {result.stdout}{result.stderr}")
    repaired = list(rig.bundle().store.read(session).records())
    durable = max((int(d) for name, d in phases(phase_file) if name == "durable"), default=0)
    markers = frozenset(p.name for p in rig.markers.iterdir())
    snapshots = (left, snapshot_status(store, session))
    return Aftermath(stored, repaired, markers, durable, snapshots)


def snapshot_status(store: SessionStore, session: str) -> str:
    found = snapshot_check(store, session)
    return "none" if found is None else str(found["status"])


def last_phase(phase_file: Path) -> str:
    seen = phases(phase_file)
    return seen[-1][0] if seen else "start"


def summary(counts: dict[str, Any]) -> str:
    return orjson.dumps(counts, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2).decode()
