"""``seamhost session rm`` and ``prune``: removed for good, never a live writer or a parked turn."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from seamhost.cli import main
from seamhost.cli.exitcodes import ExitCode
from tests.cli.sessions_kit import OPEN, PARKED, store_at, stored

DAY = 86_400_000


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "sessions"
    path.mkdir()
    return path


def ids(root: Path) -> list[str]:
    return sorted(store_at(root).ids())


def age(log: Path, days: float) -> None:
    """Make the session's last write `days` old."""
    then = time.time() - days * 86400
    os.utime(log, (then, then))


def test_rm_removes_sessions_by_id_or_prefix(root: Path) -> None:
    stored(root, "alpha-1")
    stored(root, "beta-1")
    stored(root, "gamma-1")
    result = cli("session", "rm", "alpha-1", "bet", "--root", str(root))
    assert result.exit_code == 0, result.output
    assert result.stdout == "removed alpha-1\nremoved beta-1\n"
    assert ids(root) == ["gamma-1"]
    assert not (root / "alpha-1").exists()
    again = cli("session", "rm", "alpha-1", "--root", str(root))
    assert again.exit_code == ExitCode.USAGE
    assert "no session 'alpha-1'" in again.output


def test_rm_resolves_every_id_before_removing_any(root: Path) -> None:
    stored(root, "alpha-1")
    result = cli("session", "rm", "alpha-1", "nope", "--root", str(root))
    assert result.exit_code == ExitCode.USAGE
    assert ids(root) == ["alpha-1"]


def test_rm_keeps_a_session_a_writer_holds_in_this_process(root: Path) -> None:
    stored(root, "held")
    writer = store_at(root).open("held")
    try:
        result = cli("session", "rm", "held", "--root", str(root), "--json")
    finally:
        writer.close()
    assert result.exit_code == ExitCode.FAILURE
    out = json.loads(result.stdout)
    assert out["removed"] == []
    assert out["kept"][0]["session_id"] == "held"
    assert "already open for writing" in out["kept"][0]["reason"]
    assert ids(root) == ["held"]


def test_rm_and_prune_keep_a_session_another_process_is_writing(root: Path) -> None:
    stored(root, "live")
    stored(root, "idle")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from seamhost_persistence_jsonl.store import JsonlStore\n"
            "writer = JsonlStore(sys.argv[1]).open('live')\n"
            "print('holding', flush=True)\n"
            "time.sleep(600)\n",
            str(root),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "holding\n"
        rm = cli("session", "rm", "live", "--root", str(root))
        assert rm.exit_code == ExitCode.FAILURE
        assert f"kept live: session 'live' is already open for writing by process {holder.pid}" in (
            rm.stdout
        )
        prune = cli("session", "prune", "--older-than", "0s", "--root", str(root), "--json")
        assert prune.exit_code == 0, prune.output
        out = json.loads(prune.stdout)
        assert out["removed"] == ["idle"]
        assert [k["session_id"] for k in out["kept"]] == ["live"]
    finally:
        holder.kill()
        holder.communicate()
    assert ids(root) == ["live"]


def test_a_parked_session_is_kept_with_its_approval_named(root: Path) -> None:
    stored(root, "parked", PARKED)
    stored(root, "crashed", OPEN)
    result = cli("session", "rm", "parked", "crashed", "--root", str(root))
    assert result.exit_code == ExitCode.FAILURE
    assert "removed crashed\n" in result.stdout
    assert "kept parked: it waits on approval ap-1 (pending)" in result.stdout
    assert ids(root) == ["parked"]
    prune = cli("session", "prune", "--older-than", "0s", "--root", str(root), "--json")
    assert json.loads(prune.stdout)["kept"][0]["session_id"] == "parked"
    assert ids(root) == ["parked"]


def test_an_unreadable_session_is_kept_unless_forced(root: Path) -> None:
    log = stored(root, "damaged")
    data = log.read_bytes()
    log.write_bytes(data[:40] + b"\xff" * 8 + data[48:])
    result = cli("session", "rm", "damaged", "--root", str(root))
    assert result.exit_code == ExitCode.FAILURE
    assert "whether it waits on an approval cannot be told" in result.stdout
    assert ids(root) == ["damaged"]
    forced = cli("session", "rm", "--force", "damaged", "--root", str(root))
    assert forced.exit_code == 0, forced.output
    assert ids(root) == []


def test_prune_goes_by_last_write_keeps_the_newest_and_dry_runs(root: Path) -> None:
    now = int(time.time() * 1000)
    for name, days in (("d10", 10), ("d5", 5), ("d3", 3), ("d1", 1)):
        age(stored(root, name, created=now - 20 * DAY), days)  # all created 20 days ago
    dry = cli(
        "session",
        "prune",
        "--older-than",
        "2d",
        "--keep",
        "3",
        "--dry-run",
        "--root",
        str(root),
        "--json",
    )
    assert json.loads(dry.stdout) == {"dry_run": True, "would_remove": ["d10"], "kept": []}
    assert len(ids(root)) == 4
    text = cli("session", "prune", "--older-than", "2d", "--dry-run", "--root", str(root))
    assert text.stdout == "would remove d10\nwould remove d5\nwould remove d3\n"
    result = cli("session", "prune", "--older-than", "4d", "--root", str(root))
    assert result.exit_code == 0
    assert result.stdout == "removed d10\nremoved d5\n"
    assert ids(root) == ["d1", "d3"]
    nothing = cli("session", "prune", "--older-than", "30d", "--root", str(root))
    assert nothing.stdout == "nothing to prune\n"


def test_prune_needs_older_than(root: Path) -> None:
    result = cli("session", "prune", "--root", str(root))
    assert result.exit_code == ExitCode.USAGE
    assert "--older-than" in result.output
