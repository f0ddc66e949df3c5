"""``seamhost session rm`` and ``prune``: removed for good, never a live writer, a parked turn or
an unresolved unknown outcome unless --force names it; ``[retention]`` sets prune's defaults."""

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
from seamhost.testing.sites import PluginSite
from tests.cli.sessions_kit import DISPATCHED, FAILED, OPEN, PARKED, UNKNOWN, store_at, stored
from tests.cli.test_reconcile_cli import Unknown

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


def test_prune_needs_older_than_or_keep_days(root: Path) -> None:
    result = cli("session", "prune", "--root", str(root))
    assert result.exit_code == ExitCode.USAGE
    assert "--older-than" in result.output


def test_prune_keeps_a_real_unknown_outcome_and_says_how_to_reconcile_it(
    tmp_path: Path, plugin_site: PluginSite
) -> None:
    unknown = Unknown(tmp_path, plugin_site)
    pruned = unknown.cli("session", "prune", "--older-than", "0s")
    assert pruned.returncode == 0, pruned.stderr
    assert f"kept {unknown.session}: it holds an unresolved unknown outcome: call " in (
        pruned.stdout
    )
    assert f"`seamhost session reconcile {unknown.session} {unknown.call} --result FILE" in (
        " ".join(pruned.stdout.split())
    )
    assert unknown.records()  # still there
    done = unknown.reconcile(
        unknown.call, "--error", "TOOL_ERROR", "--message", "no", "--source", "ops"
    )
    assert done.returncode == 0, done.stderr
    again = unknown.cli("session", "prune", "--older-than", "0s", "--json")
    assert json.loads(again.stdout)["removed"] == [unknown.session]


def test_unknown_outcomes_are_kept_by_rm_and_prune_unless_forced(root: Path) -> None:
    stored(root, "unknown", UNKNOWN)
    stored(root, "dispatched", DISPATCHED)
    stored(root, "parked", PARKED)
    stored(root, "done")
    rm = cli("session", "rm", "unknown", "--root", str(root))
    assert rm.exit_code == ExitCode.FAILURE
    assert "kept unknown: it holds an unresolved unknown outcome: call c-1" in rm.stdout
    dry = cli("session", "prune", "--older-than", "0s", "--dry-run", "--root", str(root), "--json")
    out = json.loads(dry.stdout)
    assert out["would_remove"] == ["done"]
    reasons = {k["session_id"]: k["reason"] for k in out["kept"]}
    assert reasons["unknown"].startswith("it holds an unresolved unknown outcome: call c-1")
    assert "`seamhost session reconcile unknown c-1 --result FILE" in reasons["unknown"]
    assert "`seamhost session prune --force unknown` removes it anyway" in reasons["unknown"]
    assert "`seamhost session repair dispatched`" in reasons["dispatched"]
    assert reasons["parked"].startswith("it waits on approval ap-1 (pending)")
    assert len(ids(root)) == 4
    forced = cli(
        "session", "prune", "--older-than", "0s", "--force", "unk", "--force", "parked",
        "--root", str(root), "--json",
    )  # fmt: skip
    out = json.loads(forced.stdout)
    assert sorted(out["removed"]) == ["done", "parked", "unknown"]
    assert [k["session_id"] for k in out["kept"]] == ["dispatched"]
    assert cli("session", "rm", "--force", "dispatched", "--root", str(root)).exit_code == 0
    assert ids(root) == []


def profile(tmp_path: Path, retention: str) -> str:
    path = tmp_path / "kept.toml"
    path.write_text(f'[profile]\nname = "kept"\n\n[retention]\n{retention}\n')
    return str(path)


def test_prune_follows_the_profiles_retention(root: Path, tmp_path: Path) -> None:
    now = int(time.time() * 1000)
    for name, days in (("d10", 10), ("d5", 5), ("d3", 3), ("d1", 1)):
        age(stored(root, name, created=now - 20 * DAY), days)
    age(stored(root, "failed", FAILED, created=now - 20 * DAY), 20)
    kept = profile(tmp_path, 'keep_days = 4\nkeep_sessions = 1\nkeep = ["failed"]')
    result = cli("session", "prune", "--root", str(root), "--profile", kept, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["removed"] == ["d10", "d5"]
    assert out["kept"] == [
        {
            "session_id": "failed",
            "reason": "its turn 1 ended with an error, and the profile's [retention] keep lists "
            '"failed"; `seamhost session prune --force failed` removes it anyway',
        }
    ]
    newest = profile(tmp_path, "keep_sessions = 1")
    both = cli("session", "prune", "--older-than", "0s", "--root", str(root), "--profile", newest)
    assert both.stdout == "removed failed\nremoved d3\n"  # the newest (d1) stays
    assert ids(root) == ["d1"]


@pytest.mark.parametrize(
    ("retention", "key", "says"),
    [
        ("keep_days = -1", "retention.keep_days", "expected 0 or more, got -1"),
        ("keep_sessions = 1.5", "retention.keep_sessions", "expected a whole number"),
        ('keep = ["old"]', "retention.keep", 'expected a list of "unknown", "parked", "failed"'),
        ("keep_weeks = 2", "retention.keep_weeks", "unknown key; expected one of: keep_days"),
    ],
)
def test_a_bad_retention_key_exits_2_naming_it_and_the_file(
    root: Path, tmp_path: Path, retention: str, key: str, says: str
) -> None:
    path = profile(tmp_path, retention)
    result = cli("session", "prune", "--root", str(root), "--profile", path)
    assert result.exit_code == ExitCode.USAGE
    assert key in result.output
    assert says in result.output
    assert "kept.toml" in result.output
