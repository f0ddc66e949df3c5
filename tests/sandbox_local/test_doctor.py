"""``seamhost doctor`` through the real CLI: backends, store, fsync, and what it cannot check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from seamhost_sandbox_local import probe_backends

from seamhost.cli.doctor.checks import check_directory
from seamhost.cli.exitcodes import ExitCode
from tests.conftest import run_cli


def doctor(tmp_path: Path, *args: str, **env: str) -> tuple[int, dict[str, Any]]:
    result = run_cli("doctor", "--json", *args, env={"SEAMHOST_HOME": str(tmp_path), **env})
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, json.loads(result.stdout)


def test_reports_every_backend_and_the_store(tmp_path: Path) -> None:
    code, report = doctor(tmp_path)
    expected = {r.name: r for r in probe_backends()}
    sandbox = report["sandbox"]
    assert [b["name"] for b in sandbox["backends"]] == ["bwrap", "landlock"]
    for backend in sandbox["backends"]:
        probed = expected[backend["name"]]
        assert backend["available"] is probed.available
        assert backend["modes"] == probed.to_json()["modes"]
        assert bool(backend["reason"]) is not probed.available
    working = [name for name, r in expected.items() if r.available]
    assert sandbox["selected"] == (working[0] if working else "")
    store = report["store"]
    assert store["root"] == str(tmp_path / "sessions")
    assert (store["exists"], store["checked"]) == (False, str(tmp_path))
    assert store["writable"] is store["fsync"] is True
    assert store["fsync_ms"] >= 0
    assert code == (ExitCode.OK if working else ExitCode.FAILURE)
    assert not (tmp_path / "sessions").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["cache"]  # the schema cache, nothing else


def test_the_table_names_enforcement_and_gaps(tmp_path: Path) -> None:
    result = run_cli("doctor", env={"SEAMHOST_HOME": str(tmp_path)})
    for report in probe_backends():
        assert report.name in result.stdout
        for entry in report.modes:
            for gap in entry.missing:
                assert gap.split(":")[0] in result.stdout.replace("\n", " ")
    assert "fsync: yes" in result.stdout


def test_a_blocked_plugin_and_an_unresolvable_profile_are_reported(tmp_path: Path) -> None:
    code, report = doctor(tmp_path, SEAMHOST_DISABLE_PLUGINS="sandbox-local,persistence-jsonl")
    assert code == ExitCode.FAILURE
    assert report["sandbox"] == {
        "plugin": "sandbox-local",
        "problem": "sandbox-local is blocked by SEAMHOST_DISABLE_PLUGINS",
        "backends": [],
        "works": False,
        "selected": "",
    }
    store = report["store"]
    assert store["ok"] is False
    assert "cannot be resolved" in store["problem"]


def test_the_profiles_backend_order_decides_the_selection(tmp_path: Path) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text(
        '[profile]\nname = "p"\n[plugins.sandbox-local]\nbackends = ["landlock"]\n'
        f'[plugins.persistence-jsonl]\nroot = "{tmp_path / "store"}"\n'
    )
    (tmp_path / "store").mkdir()
    _, report = doctor(tmp_path, "--profile", str(profile))
    landlock = next(r for r in probe_backends() if r.name == "landlock")
    sandbox = report["sandbox"]
    assert sandbox["order"] == ["landlock"]
    assert sandbox["selected"] == ("landlock" if landlock.available else "")
    assert report["store"]["exists"] is True


def test_the_selection_says_why(tmp_path: Path) -> None:
    _, report = doctor(tmp_path)
    sandbox = report["sandbox"]
    working = [r.name for r in probe_backends() if r.available]
    if not working:
        assert "why" not in sandbox
        return
    order = sandbox["order"]
    passed = order[: order.index(working[0])]
    assert sandbox["why"].startswith(f"{working[0]}: the first of the profile's backends")
    for name in passed:  # on a host without bubblewrap: "...; bwrap does not"
        assert sandbox["why"].endswith(f"; {', '.join(passed)} does not")
        assert name in sandbox["why"]
    shown = run_cli("doctor", env={"SEAMHOST_HOME": str(tmp_path)}).stdout
    assert f"selected: {working[0]}:" in shown


def test_a_profile_without_the_plugin_or_a_store(tmp_path: Path) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text('[profile]\nname = "p"\n[plugins.tools]\n')
    code, report = doctor(tmp_path, "--profile", str(profile))
    assert code == ExitCode.FAILURE
    assert report["sandbox"]["selected"] == ""
    assert "no [plugins.sandbox-local] table" in report["sandbox"]["problem"]
    assert len(report["sandbox"]["backends"]) == 2
    assert report["store"]["ok"] is False
    problem = "the memory store is not durable: sessions end with the process"
    assert report["store"]["problem"] == problem
    assert "root" not in report["store"]


def test_a_root_that_cannot_hold_files_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    checked = check_directory(blocker / "sessions")
    assert checked["checked"] == str(blocker)
    assert (checked["writable"], checked["fsync"]) == (False, False)
    assert checked["problem"].startswith(f"cannot create a file in {blocker}")
