"""``seamhost session ls|show|verify`` on persistence-jsonl roots."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.cli import main
from seamhost.cli.exitcodes import ExitCode
from seamhost.session.live import Session
from seamhost.testing.persistence import make_header
from tests.conftest import run_cli
from tests.persistence_jsonl.conftest import flip, flush, frame_spans, tear, write_session


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def corrupt(path: Path) -> int:
    """Flip a bit in the second frame of records; returns that frame's offset."""
    frame = frame_spans(path)[2]
    flip(path, frame.payload + 4)
    return frame.offset


def test_ls_lists_sessions_oldest_first(store: JsonlStore, root: Path) -> None:
    write_session(store, "newer", created=2_000)
    write_session(store, "older", created=1_000)
    (root / "future").mkdir()
    (root / "future" / "session.v9.jsonl.zst").write_bytes(b"?")
    result = cli("session", "ls", "--root", str(root), "--json")
    assert result.exit_code == 0
    rows = json.loads(result.output)
    assert [row["session_id"] for row in rows] == ["older", "newer", "future"]
    assert rows[0]["profile"] == "contract"
    assert rows[0]["barriers"] is True
    assert rows[0]["size"] == (root / "older" / "session.v2.jsonl.zst").stat().st_size
    assert "upgrade seamhost" in rows[2]["error"]
    text = cli("session", "ls", "--root", str(root)).output
    assert "older" in text
    assert "newer" in text
    assert "upgrade seamhost" in text


def test_ls_of_an_empty_root(root: Path) -> None:
    root.mkdir()
    assert "no sessions stored" in cli("session", "ls", "--root", str(root)).output
    assert json.loads(cli("session", "ls", "--root", str(root), "--json").output) == []


def test_a_root_that_does_not_exist_is_a_usage_error_naming_it(root: Path) -> None:
    for command in (["ls"], ["show", "s-1"], ["verify", "--all"], ["rm", "s-1"]):
        result = CliRunner().invoke(main, ["session", *command, "--root", str(root)])
        assert result.exit_code == ExitCode.USAGE, (command, result.output)
        assert result.output == (
            f"seamhost: error: --root {root}: no such directory; pass the root of a session "
            "store (for persistence-jsonl, $SEAMHOST_HOME/sessions), or --profile P to use its "
            "store\n"
        )


@pytest.mark.skipif(shutil.which("zstd") is None, reason="the zstd command is not installed")
def test_show_json_prints_the_envelopes_exactly_as_stored(store: JsonlStore, root: Path) -> None:
    path, written = write_session(store)
    result = cli("session", "show", "s-1", "--root", str(root), "--json")
    assert result.exit_code == 0
    assert result.stdout_bytes == b"".join(line + b"\n" for line in written)
    decoded = subprocess.run(["zstd", "-dc", str(path)], capture_output=True, check=True).stdout
    assert result.stdout_bytes == decoded.split(b"\n", 1)[1]


def test_show_renders_a_timeline_of_an_open_turn(store: JsonlStore, root: Path) -> None:
    session = Session(store.create(make_header("s-1")))
    call = {"call_id": "c-1", "name": "run_tests", "arguments": '{"path": "tests"}'}
    events: list[tuple[str, dict[str, Any]]] = [
        ("turn/start", {"turn": 1}),
        ("step/start", {"turn": 1, "step": 1}),
        ("user/message", {"turn": 1, "step": 1, "content": "run the tests", "source": "tty"}),
        ("assistant/message", {"turn": 1, "step": 1, "content": "on it", "tool_calls": [call]}),
        ("tool/call", {"turn": 1, "step": 1, **call}),
        (
            "approval/asked",
            {
                "id": "a-1",
                "call_id": "c-1",
                "tool": "run_tests",
                "reason": "runs code",
                "args_digest": "d",
            },
        ),
        ("approval/decided", {"id": "a-1", "outcome": "allowed-once", "answerer": "tty"}),
        (
            "tool/dispatch",
            {"call_id": "c-1", "attempt": 1, "sandbox_mode": "workspace-write", "args_digest": "d"},
        ),
        (
            "tool/result",
            {
                "turn": 1,
                "step": 1,
                "call_id": "c-1",
                "is_error": True,
                "content": "timed out",
                "error": {"code": "TOOL_TIMEOUT", "message": "no answer in 30 s"},
            },
        ),
    ]
    for type_, data in events:
        session.append_data(type_, data)
    flush(session)
    session.close()
    result = cli("session", "show", "s-1", "--root", str(root))
    assert result.exit_code == 0, result.output
    out = result.output
    for expected in (
        "turn 1",
        "step 1",
        "run the tests",
        "→ run_tests",
        "approval asked: runs code",
        "approval allowed-once by tty",
        "dispatched c-1: attempt 1, sandbox workspace-write",
        "✗ TOOL_TIMEOUT run_tests",
        "no answer in 30 s",
        "turn 1 is open",
        "repair would add (not written)",
        "9 record(s)",
    ):
        assert expected in out, expected


def test_verify_an_intact_session(store: JsonlStore, root: Path) -> None:
    write_session(store)
    result = cli("session", "verify", "s-1", "--root", str(root))
    assert result.exit_code == 0
    assert "✓ s-1: 24 record(s)" in result.output


def test_verify_reports_a_torn_tail_without_failing(store: JsonlStore, root: Path) -> None:
    path, _ = write_session(store)
    last = frame_spans(path)[-1]
    tear(path, path.read_bytes()[: last.end - 5])
    result = cli("session", "verify", "s-1", "--root", str(root), "--json")
    assert result.exit_code == 0
    (check,) = json.loads(result.output)
    assert (check["intact"], check["records"]) == (True, 16)
    assert check["torn_bytes"] == last.end - 5 - last.offset
    assert "torn tail" in cli("session", "verify", "s-1", "--root", str(root)).output


def test_verify_names_the_offset_of_corruption_and_exits_3(store: JsonlStore, root: Path) -> None:
    path, _ = write_session(store)
    offset = corrupt(path)
    result = run_cli("session", "verify", "s-1", "--root", str(root))
    assert result.returncode == ExitCode.CORRUPT
    assert f"corrupted at byte {offset}" in result.stdout
    assert "8 record(s) before it are intact" in result.stdout
    assert "Traceback" not in result.stderr


def test_verify_all_checks_every_session(store: JsonlStore, root: Path) -> None:
    for name in ("a", "b", "c"):
        write_session(store, name)
    offset = corrupt(root / "b" / "session.v2.jsonl.zst")
    result = cli("session", "verify", "--all", "--root", str(root), "--json")
    assert result.exit_code == ExitCode.CORRUPT
    checks = {c["session_id"]: c for c in json.loads(result.stdout)}
    assert (checks["a"]["intact"], checks["b"]["intact"], checks["c"]["intact"]) == (
        True,
        False,
        True,
    )
    assert checks["b"]["offset"] == offset


def test_verify_needs_one_id_or_all(root: Path) -> None:
    result = CliRunner().invoke(main, ["session", "verify", "--root", str(root)])
    assert result.exit_code == ExitCode.USAGE
    assert "give one session ID or --all" in result.output


def test_a_missing_session_is_a_one_line_usage_error(store: JsonlStore, root: Path) -> None:
    write_session(store)
    result = run_cli("session", "show", "nope", "--root", str(root))
    assert result.returncode == ExitCode.USAGE
    assert result.stderr == (
        f"seamhost: error: no session 'nope' (nor one whose id starts with it) in {root} "
        "(persistence-jsonl); `seamhost session ls` lists them\n"
    )


def test_the_profile_names_the_store(store: JsonlStore, root: Path, tmp_path: Path) -> None:
    write_session(store)
    profile = tmp_path / "p.toml"
    profile.write_text(f'[profile]\nname = "p"\n[plugins.persistence-jsonl]\nroot = "{root}"\n')
    result = cli("session", "ls", "--profile", str(profile), "--json")
    assert [row["session_id"] for row in json.loads(result.output)] == ["s-1"]


def test_a_profile_without_a_store_is_a_usage_error(tmp_path: Path) -> None:
    profile = tmp_path / "bare.toml"
    profile.write_text('[profile]\nname = "bare"\n')
    result = run_cli("session", "ls", "--profile", str(profile))
    assert result.returncode == ExitCode.USAGE
    assert "no plugin provides session/store" in result.stderr


def test_verify_all_shows_progress_on_a_terminal(store: JsonlStore, root: Path) -> None:
    import pty

    for name in ("a", "b", "c"):
        write_session(store, name)
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEAMHOST_")}
    env.update(TERM="xterm", COLUMNS="100")
    with subprocess.Popen(
        [sys.executable, "-m", "seamhost", "session", "verify", "--all", "--root", str(root)],
        stdout=subprocess.PIPE,
        stderr=follower,
        env=env,
    ) as child:
        os.close(follower)
        out, _ = child.communicate(timeout=60)
        seen = b""
        with contextlib.suppress(OSError):  # EIO once the terminal's last writer is gone
            while chunk := os.read(leader, 4096):
                seen += chunk
        os.close(leader)
    assert child.returncode == 0
    assert out.decode().count("✓") == 3
    assert b"verifying" in seen
