"""What a run leaves: its temporary workspace goes unless kept; the rest is under SEAMHOST_HOME."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from seamhost.cli.exitcodes import ExitCode
from seamhost.testing.sites import PluginSite
from tests.conftest import run_cli
from tests.run.deferral_kit import COUNTER, SCENARIO, deferring_profile

ROOT = Path(__file__).parent.parent.parent
QUICKSTART = str(ROOT / "examples" / "quickstart.toml")


def files_under(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file())


def isolated(tmp_path: Path) -> dict[str, str]:
    """An environment whose temp dir, home and SEAMHOST_HOME are fresh directories."""
    for name in ("tmp", "home", "seamhost"):
        (tmp_path / name).mkdir()
    return {
        "TMPDIR": str(tmp_path / "tmp"),
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": "",
        "XDG_DATA_HOME": "",
        "SEAMHOST_HOME": str(tmp_path / "seamhost"),
    }


def test_a_run_removes_the_workspace_it_made(tmp_path: Path) -> None:
    env = isolated(tmp_path)
    result = run_cli("run", QUICKSTART, env=env)
    assert result.returncode == ExitCode.OK, result.stderr
    assert "workspace /" in result.stdout  # the transcript said where it worked
    assert list((tmp_path / "tmp").iterdir()) == []


def test_keep_workspace_keeps_it_and_says_where(tmp_path: Path) -> None:
    env = isolated(tmp_path)
    result = run_cli("run", QUICKSTART, "--keep-workspace", env=env)
    assert result.returncode == ExitCode.OK, result.stderr
    (kept,) = (tmp_path / "tmp").iterdir()
    assert kept.name.startswith("seamhost-workspace-")
    assert f"workspace kept: {kept}\n" in result.stderr
    assert (kept / "out" / "report.md").is_file()


def test_a_given_workspace_is_never_removed(tmp_path: Path) -> None:
    env = isolated(tmp_path)
    workspace = tmp_path / "mine"
    result = run_cli("run", QUICKSTART, "--workspace", str(workspace), env=env)
    assert result.returncode == ExitCode.OK, result.stderr
    assert (workspace / "out" / "report.md").is_file()
    assert "workspace kept" not in result.stderr


def test_everything_seamhost_writes_lives_under_seamhost_home(tmp_path: Path) -> None:
    env = isolated(tmp_path)
    for command in (("run", QUICKSTART), ("profile", "check", "default"), ("doctor",)):
        result = run_cli(*command, env=env)
        assert result.returncode in (ExitCode.OK, ExitCode.FAILURE), result.stderr
    assert files_under(tmp_path / "home") == []
    assert list((tmp_path / "tmp").iterdir()) == []
    written = files_under(tmp_path / "seamhost")
    assert any(name.startswith("cache/schemas/") for name in written), written
    assert any(name.startswith("sessions/") for name in written), written


def test_seamhost_cache_still_comes_first(tmp_path: Path) -> None:
    env = {**isolated(tmp_path), "SEAMHOST_CACHE": str(tmp_path / "cache")}
    result = run_cli("profile", "check", "default", env=env)
    assert result.returncode == ExitCode.OK, result.stderr
    assert files_under(tmp_path / "cache")
    assert not (tmp_path / "seamhost" / "cache").exists()


def test_a_parked_run_keeps_its_workspace_until_the_resume_finishes(
    tmp_path: Path, plugin_site: PluginSite
) -> None:
    env = isolated(tmp_path)
    plugin_site.add("counter", COUNTER)
    profile = tmp_path / "deferring.toml"
    profile.write_text(deferring_profile(tmp_path / "counter.txt"))
    scenario = tmp_path / "deferred.toml"
    scenario.write_text(SCENARIO)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, "--profile", str(profile), site=plugin_site, env=env)

    parked = cli("run", "--session", "rel-1", str(scenario))
    assert parked.returncode == ExitCode.AWAITS_APPROVAL, parked.stderr
    (workspace,) = (tmp_path / "tmp").iterdir()
    assert f"workspace kept: {workspace}" in parked.stderr
    approval = re.search(r"awaits approval ([\w.-]+)", parked.stderr)
    assert approval is not None
    assert cli("approve", "rel", approval.group(1)).returncode == 0  # a prefix names the session
    resumed = cli("run", "--resume", "rel", str(scenario))
    assert resumed.returncode == ExitCode.OK, resumed.stderr
    assert (tmp_path / "counter.txt").read_text().count("\n") == 1
    assert list((tmp_path / "tmp").iterdir()) == []
