"""Format generations (issue 38 point 3): a generation-1 store opens, resumes and migrates.

The store is the checked-in fixture ``fixtures/generation-1`` (real sessions re-framed as layout
1: ``fixtures/make_generation1.py`` says how), copied before each use: a completed session, one
parked on a deferred approval, one holding an unresolved unknown outcome. Everything runs the
real CLI in child processes.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from seamhost_persistence_jsonl.format import LogEncoder

from seamhost import parse_envelope
from tests.conftest import run_cli

FIXTURES = Path(__file__).parent / "fixtures"
SCENARIOS = FIXTURES / "generation1_scenarios"
SESSIONS = ("g1-closed", "g1-parked", "g1-unknown")


class Home:
    """A SEAMHOST_HOME whose store is a copy of the generation-1 fixture."""

    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.root = self.home / "sessions"
        shutil.copytree(FIXTURES / "generation-1", self.root)
        self.workspace = tmp_path / "ws"
        self.workspace.mkdir()
        self.env = {"SEAMHOST_HOME": str(self.home)}

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, env=self.env)

    def logs(self, session: str) -> list[str]:
        return sorted(p.name for p in (self.root / session).glob("session.v*.jsonl*"))

    def records(self, session: str) -> list[dict[str, Any]]:
        shown = self.cli("session", "show", "--json", session)
        assert shown.returncode == 0, shown.stderr
        return [json.loads(line) for line in shown.stdout.splitlines()]

    def files(self) -> dict[str, bytes]:
        """Every file of the store but the lock files (a lock's holder writes its pid there)."""
        return {
            str(p.relative_to(self.root)): p.read_bytes()
            for p in sorted(self.root.rglob("*"))
            if p.is_file() and p.name != "session.lock"
        }

    def migrate(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.cli("store", "migrate", "--root", str(self.root), *args)

    def approve_and_resume(self) -> subprocess.CompletedProcess[str]:
        profile = str(SCENARIOS / "parked.profile.toml")
        [pending] = json.loads(self.cli("approvals", "--json").stdout)
        approved = self.cli("approve", "--profile", profile, "g1-parked", pending["approval_id"])
        assert approved.returncode == 0, approved.stderr
        return self.cli(
            "run", "--profile", profile, "--resume", "g1-parked",
            "--workspace", str(self.workspace), str(SCENARIOS / "parked.scenario.toml"),
        )  # fmt: skip


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


def test_a_generation_1_store_opens_with_its_parked_approval_and_unknown_outcome(
    home: Home,
) -> None:
    verified = home.cli("session", "verify", "--all")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    for session in SESSIONS:
        assert f"✓ {session}: " in verified.stdout
    assert verified.stdout.count("unbound (layout 1, written before the binding)") == 3
    [pending] = json.loads(home.cli("approvals", "--json").stdout)
    assert (pending["session_id"], pending["tool"]) == ("g1-parked", "write_file")
    [unknown] = json.loads(home.cli("session", "unknowns", "--json").stdout)
    assert (unknown["session_id"], unknown["tool"]) == ("g1-unknown", "shell")


def test_a_generation_1_session_resumes_and_stays_in_layout_1(home: Home) -> None:
    """What a writer appends to a layout-1 log is layout 1 (the format module says why): the
    session is continued where it is, and only `store migrate` publishes it in layout 2."""
    before = (home.root / "g1-parked" / "session.v1.jsonl.zst").read_bytes()
    done = home.approve_and_resume()
    assert done.returncode == 0, done.stdout + done.stderr
    assert (home.workspace / "release" / "notes.txt").read_text() == "1.0\n"
    assert home.logs("g1-parked") == ["session.v1.jsonl.zst"]
    after = (home.root / "g1-parked" / "session.v1.jsonl.zst").read_bytes()
    assert after.startswith(before), "appended to, never rewritten"
    ends = [r["data"]["reason"] for r in home.records("g1-parked") if r["type"] == "turn/end"]
    assert ends == ["completed"]
    verified = home.cli("session", "verify", "g1-parked")
    assert verified.returncode == 0, verified.stdout
    assert "unbound (layout 1" in verified.stdout


def test_migrate_publishes_layout_2_beside_layout_1_and_the_store_verifies(home: Home) -> None:
    shown = {session: home.records(session) for session in SESSIONS}
    old = home.files()
    dry = home.migrate("--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "g1-closed: would migrate from layout 1: 14 record(s)" in dry.stdout
    assert home.files() == old, "a dry run changes nothing"

    done = home.migrate()
    assert done.returncode == 0, done.stdout + done.stderr
    for session in SESSIONS:
        assert f"{session}: migrated from layout 1: " in done.stdout
        assert home.logs(session) == ["session.v1.jsonl.zst", "session.v2.jsonl.zst"]
        # the old generation is kept, byte for byte
        name = f"{session}/session.v1.jsonl.zst"
        assert (home.root / name).read_bytes() == old[name]
        assert home.records(session) == shown[session]
    assert "[3/3] g1-unknown: 14 record(s) copied, checking the source" in done.stderr
    assert "3 session(s): 3 migrated" in done.stdout

    verified = home.cli("session", "verify", "--all", "--json")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    checks = json.loads(verified.stdout)
    assert [(c["session_id"], c["intact"], c["binding"]) for c in checks] == [
        (session, True, "bound") for session in SESSIONS
    ]
    assert len(json.loads(home.cli("approvals", "--json").stdout)) == 1
    assert len(json.loads(home.cli("session", "unknowns", "--json").stdout)) == 1

    # Again: idempotent, nothing written; then --remove-old removes the old generation only.
    migrated = home.files()
    again = home.migrate("--json")
    assert again.returncode == 0, again.stderr
    outcomes = [s["outcome"] for s in json.loads(again.stdout)["sessions"]]
    assert outcomes == ["migrated-before"] * 3
    assert home.files() == migrated
    removed = home.migrate("--remove-old", "--json")
    assert removed.returncode == 0, removed.stderr
    assert all(s["removed_old"] for s in json.loads(removed.stdout)["sessions"])
    for session in SESSIONS:
        assert home.logs(session) == ["session.v2.jsonl.zst"]
        assert home.records(session) == shown[session]
    last = json.loads(home.migrate("--json").stdout)["sessions"]
    assert [s["outcome"] for s in last] == ["current"] * 3


def test_a_migrated_session_resumes_in_layout_2(home: Home) -> None:
    assert home.migrate("g1-parked", "--quiet").returncode == 0
    old = (home.root / "g1-parked" / "session.v1.jsonl.zst").read_bytes()
    done = home.approve_and_resume()
    assert done.returncode == 0, done.stdout + done.stderr
    assert (home.root / "g1-parked" / "session.v1.jsonl.zst").read_bytes() == old
    verified = home.cli("session", "verify", "g1-parked")
    assert verified.returncode == 0, verified.stdout
    assert "17 record(s)" in verified.stdout
    assert ", bound" in verified.stdout


def test_a_plain_generation_1_log_migrates_too(tmp_path: Path) -> None:
    root = tmp_path / "none"
    shutil.copytree(FIXTURES / "layout-v1" / "none", root)
    before = run_cli("session", "show", "--json", "old-plain", "--root", str(root)).stdout
    done = run_cli("store", "migrate", "--root", str(root), "--remove-old")
    assert done.returncode == 0, done.stderr
    assert [p.name for p in (root / "old-plain").glob("session.v*")] == ["session.v2.jsonl"]
    after = run_cli("session", "show", "--json", "old-plain", "--root", str(root)).stdout
    assert after == before


def test_a_session_being_written_is_refused_and_left_as_it_is(home: Home) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys\nfrom seamhost_persistence_jsonl.store import JsonlStore\n"
         f"writer = JsonlStore({str(home.root)!r}).open('g1-parked')\n"
         "print('holding', flush=True)\nsys.stdin.read()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "holding\n"
        old = home.files()
        done = home.migrate()
        assert done.returncode == 1, done.stdout + done.stderr
        assert "g1-parked: refused (session 'g1-parked' is already open for writing by " in (
            done.stdout
        )
        assert f"by process {holder.pid}" in done.stdout
        assert home.logs("g1-parked") == ["session.v1.jsonl.zst"]
        assert {k: v for k, v in home.files().items() if k.startswith("g1-parked/")} == {
            k: v for k, v in old.items() if k.startswith("g1-parked/")
        }
        assert "g1-closed: migrated" in done.stdout
    finally:
        holder.communicate("", timeout=30)
    done = home.migrate()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "g1-parked: migrated from layout 1" in done.stdout
    assert "g1-closed: migrated before" in done.stdout


WRITE = {"x86_64": 1, "aarch64": 64}  # the write(2) system call's number


def blocked_writing_stderr(pid: int) -> bool:
    """Whether process `pid` sleeps in write(2) on its standard error (/proc/PID/syscall)."""
    try:
        fields = Path(f"/proc/{pid}/syscall").read_text().split()
    except OSError:
        return False
    return len(fields) > 1 and fields[0] == str(WRITE[platform.machine()]) and fields[1] == "0x2"


@pytest.mark.skipif(platform.machine() not in WRITE, reason="the write syscall number is unknown")
def test_a_source_appended_to_during_the_copy_is_refused_and_nothing_published(
    home: Home,
) -> None:
    """A writer that ignores the lock (another host's, over a network file system) appends
    while the copy is checked. Made deterministic without any hook: the migration's stderr is a
    pipe the test filled, so the progress line it writes between the copy and the second look
    at the source blocks it there; the test appends a real layout-1 frame, then drains."""
    if not Path(f"/proc/{os.getpid()}/syscall").exists():
        pytest.skip("no /proc/PID/syscall to see where the migration waits")
    log = home.root / "g1-closed" / "session.v1.jsonl.zst"
    original = log.read_bytes()
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    filled = 0
    try:
        while True:  # until the pipe is full: the child's next write to stderr waits
            filled += os.write(write_end, b"\0" * 4096)
    except BlockingIOError:
        assert filled > 0
    os.set_blocking(write_end, True)
    child = subprocess.Popen(
        [sys.executable, "-m", "seamhost", "store", "migrate", "--root", str(home.root),
         "g1-closed"],
        env={k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")} | home.env,
        stdout=subprocess.PIPE, stderr=write_end, text=True,
    )  # fmt: skip
    os.close(write_end)
    drained = bytearray()
    try:
        deadline = time.monotonic() + 60
        while not blocked_writing_stderr(child.pid):
            assert child.poll() is None, "the migration ended without reporting its copy"
            assert time.monotonic() < deadline, "the migration never reported its copy"
            time.sleep(0.02)
        temp = list((home.root / "g1-closed").glob(".session.v2.jsonl.zst.*.tmp"))
        assert len(temp) == 1, "the copy is written and synced, not yet published"
        record = parse_envelope(
            b'{"seq":14,"type":"turn/start","time":1796414300000,"data":{"turn":2}}'
        )
        with open(log, "ab") as appender:
            appender.write(LogEncoder("zstd", layout=1).batch([record.envelope()], 14))

        def drain() -> None:
            while piece := os.read(read_end, 65536):
                drained.extend(piece)

        reader = threading.Thread(target=drain)
        reader.start()
        out, _ = child.communicate(timeout=60)
        reader.join(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(read_end)
    assert child.returncode == 1, out
    assert "g1-closed: refused (session.v1.jsonl.zst changed during the copy" in out
    assert "nothing was published" in out
    assert b"[1/1] g1-closed: 14 record(s) copied, checking the source" in drained
    assert home.logs("g1-closed") == ["session.v1.jsonl.zst"]
    assert not list((home.root / "g1-closed").glob(".*.tmp")), "the copy was removed"
    assert log.read_bytes().startswith(original)
    # The appended frame is a real one: the session reads on, and migrates once it is quiet.
    assert len(home.records("g1-closed")) == 15
    assert home.migrate("--quiet").returncode == 0
    assert home.logs("g1-closed") == ["session.v1.jsonl.zst", "session.v2.jsonl.zst"]
    assert len(home.records("g1-closed")) == 15


def test_a_damaged_old_log_is_refused_and_the_others_migrate(home: Home) -> None:
    log = home.root / "g1-unknown" / "session.v1.jsonl.zst"
    data = bytearray(log.read_bytes())
    data[len(data) // 2] ^= 0x40  # inside a frame's payload: its CRC no longer matches
    log.write_bytes(bytes(data))
    done = home.migrate("--json")
    assert done.returncode == 1, done.stdout + done.stderr
    outcomes = {s["session_id"]: s for s in json.loads(done.stdout)["sessions"]}
    assert outcomes["g1-unknown"]["outcome"] == "refused"
    assert "corrupted" in outcomes["g1-unknown"]["reason"]
    assert outcomes["g1-unknown"]["reason"].endswith("nothing was overwritten")
    assert home.logs("g1-unknown") == ["session.v1.jsonl.zst"]
    assert log.read_bytes() == bytes(data)
    assert [outcomes[s]["outcome"] for s in ("g1-closed", "g1-parked")] == ["migrated"] * 2
