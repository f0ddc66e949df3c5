"""``seamhost session ls`` and ``plugins``: whole ids at any width, filters, --json; id prefixes."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from seamhost.cli import main
from seamhost.cli.exitcodes import ExitCode
from tests.cli.sessions_kit import OPEN, PARKED, store_at, stored

LONG = "20261201-081511-a1b2c3d4e5f6"


def cli(*args: str, width: int = 80) -> Result:
    return CliRunner(env={"COLUMNS": str(width)}).invoke(main, list(args))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "sessions"
    path.mkdir()
    return path


def ls(root: Path, *args: str) -> list[str]:
    result = cli("session", "ls", "--root", str(root), "--json", *args)
    assert result.exit_code == 0, result.output
    return [row["session_id"] for row in json.loads(result.stdout)]


@pytest.mark.parametrize("width", [40, 80, 200])
def test_ls_shows_whole_ids_at_any_width(root: Path, width: int) -> None:
    deep = "/home/someone/projects/nested/deeper/still"
    stored(root, LONG, cwd=deep)
    stored(root, LONG + "-" + "x" * 60, cwd=deep, created=1_700_000_000_001)
    result = cli("session", "ls", "--root", str(root), width=width)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1].split()[0] == LONG
    assert lines[2].split()[0] == LONG + "-" + "x" * 60  # wider than 40 columns, still whole
    assert "…" not in result.stdout
    if width == 200:
        assert deep in result.stdout
        assert "not shown" not in result.stderr
    else:
        assert "cwd not shown to fit" in result.stderr


def test_plugins_at_80_columns_cut_no_name_and_break_no_seam() -> None:
    result = cli("plugins")
    assert result.exit_code == 0
    entries = json.loads(cli("plugins", "--json").stdout)
    assert "…" not in result.stdout
    words = result.stdout.replace(",", " ").split()
    for entry in entries:
        assert entry["name"] in words
        assert entry["distribution"] in words
        for seam in entry["provides"]:
            assert seam in words, seam
    assert all(len(line) <= 80 for line in result.stdout.splitlines())


def test_the_filters_since_created_with_and_limit(root: Path) -> None:
    now = int(time.time() * 1000)
    stored(root, "old", created=now - 3 * 86_400_000, profile="ci")
    stored(root, "recent", created=now - 3_600_000, profile="ci")
    stored(root, "newest", created=now - 60_000, profile="default")
    assert ls(root) == ["old", "recent", "newest"]
    assert ls(root, "--since", "2h") == ["recent", "newest"]
    assert ls(root, "--since", "1d12h") == ["recent", "newest"]
    assert ls(root, "--since", "5m") == ["newest"]
    day = time.strftime("%Y-%m-%d", time.localtime((now - 3 * 86_400_000) / 1000))
    assert ls(root, "--since", day) == ["old", "recent", "newest"]
    assert ls(root, "--created-with", "ci") == ["old", "recent"]
    assert ls(root, "--created-with", "nope") == []
    assert ls(root, "--limit", "2") == ["recent", "newest"]
    assert ls(root, "--created-with", "ci", "--limit", "1") == ["recent"]
    text = cli("session", "ls", "--root", str(root), "--created-with", "nope")
    assert text.stdout == "no session matches\n"


def test_a_bad_since_is_a_usage_error_saying_what_is_accepted(root: Path) -> None:
    result = cli("session", "ls", "--root", str(root), "--since", "yesterday")
    assert result.exit_code == ExitCode.USAGE
    assert "neither an age (such as 30m, 2h, 3d" in result.output


def test_the_state_filter_reads_each_session(root: Path) -> None:
    stored(root, "closed")
    stored(root, "open", OPEN)
    stored(root, "parked", PARKED)
    log = stored(root, "damaged")
    log.write_bytes(log.read_bytes()[:40] + b"\xff" * 8 + log.read_bytes()[48:])
    result = cli(
        "session",
        "ls",
        "--root",
        str(root),
        "--json",
        "--state",
        "open",
        "--state",
        "closed",
        "--state",
        "awaits-approval",
        "--state",
        "unreadable",
    )
    states = {row["session_id"]: row["state"] for row in json.loads(result.stdout)}
    assert states == {
        "closed": "closed",
        "open": "open",
        "parked": "awaits-approval",
        "damaged": "unreadable",
    }
    assert ls(root, "--state", "awaits-approval") == ["parked"]
    assert ls(root, "--state", "open") == ["open"]
    text = cli("session", "ls", "--root", str(root), "--state", "open", width=120).stdout
    assert text.splitlines()[0].split()[:3] == ["session", "created", "state"]
    assert "state" not in json.loads(cli("session", "ls", "--root", str(root), "--json").stdout)[0]


def test_every_listing_has_json(root: Path, tmp_path: Path) -> None:
    stored(root, "s-1")
    profile = tmp_path / "p.toml"
    profile.write_text(f'[profile]\nname = "p"\n[plugins.persistence-jsonl]\nroot = "{root}"\n')
    for command in (
        ["plugins"],
        ["session", "ls", "--root", str(root)],
        ["approvals", "--profile", str(profile)],
        ["session", "verify", "--all", "--root", str(root)],
        ["session", "prune", "--older-than", "1d", "--dry-run", "--root", str(root)],
    ):
        result = cli(*command, "--json")
        assert result.exit_code == 0, (command, result.output)
        json.loads(result.stdout)


# --------------------------------------------------------------------------------------------
# id prefixes
# --------------------------------------------------------------------------------------------


def test_every_session_command_takes_a_unique_prefix(root: Path) -> None:
    stored(root, LONG)
    stored(root, "20261202-000000-ffffffffffff")
    prefix = LONG[:15]
    show = cli("session", "show", prefix, "--root", str(root))
    assert show.exit_code == 0, show.output
    assert f"session {LONG}" in show.stdout
    verify = cli("session", "verify", prefix, "--root", str(root), "--json")
    assert json.loads(verify.stdout)[0]["session_id"] == LONG
    repair = cli("session", "repair", prefix, "--root", str(root), "--json")
    assert json.loads(repair.stdout)[0]["session_id"] == LONG


def test_an_ambiguous_prefix_lists_the_candidates_and_exits_2(root: Path) -> None:
    stored(root, "20261201-081511-aaaa")
    stored(root, "20261201-081511-bbbb")
    for command in (["show"], ["verify"], ["repair"], ["rm"]):
        result = CliRunner().invoke(
            main, ["session", *command, "20261201-081511", "--root", str(root)]
        )
        assert result.exit_code == ExitCode.USAGE, (command, result.output)
        assert result.output == (
            "seamhost: error: session id prefix '20261201-081511' matches 2 sessions: "
            "20261201-081511-aaaa, 20261201-081511-bbbb; give more of the id\n"
        )
    assert len(list(store_at(root).ids())) == 2  # rm removed nothing


def test_an_exact_id_wins_over_the_longer_ids_it_prefixes(root: Path) -> None:
    stored(root, "s-1")
    stored(root, "s-10")
    result = cli("session", "verify", "s-1", "--root", str(root), "--json")
    assert [c["session_id"] for c in json.loads(result.stdout)] == ["s-1"]


def test_no_match_is_a_usage_error_pointing_at_ls(root: Path) -> None:
    stored(root, "s-1")
    result = CliRunner().invoke(main, ["session", "show", "zz", "--root", str(root)])
    assert result.exit_code == ExitCode.USAGE
    assert result.output.startswith("seamhost: error: no session 'zz'")
    assert result.output.endswith("`seamhost session ls` lists them\n")


def test_approvals_show_whole_ids_when_narrow(tmp_path: Path, root: Path) -> None:
    stored(root, LONG + "-parked", PARKED)
    profile = tmp_path / "p.toml"
    profile.write_text(f'[profile]\nname = "p"\n[plugins.persistence-jsonl]\nroot = "{root}"\n')
    result = cli("approvals", "--profile", str(profile), width=30)
    assert result.exit_code == 0, result.output
    assert f"{LONG}-parked ap-1" in result.stdout
    assert os.linesep.join(result.stdout.splitlines()).count("…") == 0
