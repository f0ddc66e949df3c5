"""Attack 1 of issue 12, through the real CLI: a symlink planted where a writable root was.

With ``[sandbox] writable_roots = [".cache"]``, one call plants ``.cache`` as a link to a
directory outside (or to ``/``), and the next writes there with the shell and ``write_file``.
The roots are pinned when the session opens (design.md §5.7), so every such write is refused, by
bubblewrap and by Landlock alike, and the outside directory stays empty. A link that is already
there when a session opens is refused before anything runs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.sandbox_local.conftest import working

BACKENDS = ("bwrap", "landlock")
PROFILE = """\
[profile]
name = "pinned-roots"
[plugins.tools]
[plugins.model-scripted]
[plugins.sandbox-local]
backends = ["{backend}"]
[sandbox]
mode = "workspace-write"
writable_roots = [".cache"]
"""
# How each attack turns .cache into a link; `existing` says whether .cache is a directory first.
PLANTS = {
    "planted-link": ("ln -s {outside} .cache", False),
    "root-replaced-by-link": ("rm -rf .cache && ln -s {outside} .cache", True),
    "link-to-filesystem-root": ("ln -s / .cache", False),
}


def call(call_id: str, tool: str, **args: Any) -> str:
    return (
        f'[[turn.step]]\n[[turn.step.call]]\nid = "{call_id}"\ntool = "{tool}"\n'
        "args = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in args.items()) + " }\n"
    )


def run(root: Path, profile: str, calls: list[str]) -> tuple[dict[str, dict[str, Any]], Path]:
    """Run the calls in a session; each call's ``tool/result`` data by call id."""
    (root / "profile.toml").write_text(profile)
    (root / "scenario.toml").write_text('[[turn]]\nuser = "go"\nfinal = "done"\n' + "".join(calls))
    workspace = root / "ws"
    ran = run_cli(
        "run",
        "--profile",
        str(root / "profile.toml"),
        "--workspace",
        str(workspace),
        "--json",
        str(root / "scenario.toml"),
        env={"SEAMHOST_HOME": str(root / "home")},
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    *records, summary = [json.loads(line) for line in ran.stdout.splitlines()]
    assert summary["outcome"] == "completed", summary
    return {
        r["data"]["call_id"]: r["data"] for r in records if r["type"] == "tool/result"
    }, workspace


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("attack", sorted(PLANTS))
def test_a_link_planted_where_a_root_was_widens_nothing(
    scratch: Path, tmp_path: Path, backend: str, attack: str
) -> None:
    working(backend)
    root = scratch / f"{tmp_path.name}-{attack}-{backend}"
    outside = root / "outside"
    outside.mkdir(parents=True)
    plant, existing = PLANTS[attack]
    (root / "ws" / ".cache" if existing else root / "ws").mkdir(parents=True)
    results, workspace = run(
        root,
        PROFILE.format(backend=backend),
        [
            call("inside", "shell", command="echo ok > inside.txt"),
            call("plant", "shell", command=plant.format(outside=outside)),
            call("shell-write", "shell", command=f"echo x > {outside}/shell.txt"),
            call("shell-via-link", "shell", command="echo x > .cache/link.txt"),
            call("write-file", "write_file", path=f"{outside}/file.txt", content="x"),
            call("write-via-link", "write_file", path=".cache/via-link.txt", content="x"),
        ],
    )
    assert (workspace / "inside.txt").read_text() == "ok\n"  # the sandbox lets writes through
    if existing and backend == "bwrap":
        # A writable root is a mount point under bubblewrap: it cannot even be replaced.
        assert "Device or resource busy" in results["plant"]["content"]
    else:
        assert not results["plant"]["is_error"], results["plant"]["content"]
        assert (workspace / ".cache").is_symlink()
    planted = (workspace / ".cache").is_symlink()
    for call_id in ("shell-write", "shell-via-link") if planted else ("shell-write",):
        assert results[call_id]["is_error"], results[call_id]
    for call_id in ("write-file", "write-via-link") if planted else ("write-file",):
        # Refused either by the tools' guard (it reads the profile's roots as they are now, so
        # a link planted over a root can mislead it) or, whatever the guard thought, by the
        # body, which holds the roots pinned when the session opened.
        code = results[call_id]["error"]["code"]
        assert code in {"DENIED_BY_GUARD", "SANDBOX_DENIED"}, results[call_id]
    assert sorted(p.name for p in outside.iterdir()) == []


def test_a_link_already_there_when_the_session_opens_is_refused(tmp_path: Path) -> None:
    """The plant of an earlier session: `.cache` is a link inside the workspace at open."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".cache").symlink_to("/")
    (tmp_path / "profile.toml").write_text(PROFILE.format(backend="bwrap"))
    (tmp_path / "scenario.toml").write_text(
        '[[turn]]\nuser = "go"\nfinal = "done"\n'
        + call("w", "write_file", path=".cache/x", content="x")
    )
    ran = run_cli(
        "run",
        "--profile",
        str(tmp_path / "profile.toml"),
        "--workspace",
        str(workspace),
        str(tmp_path / "scenario.toml"),
        env={"SEAMHOST_HOME": str(tmp_path / "home")},
    )
    assert ran.returncode == 2, ran.stdout + ran.stderr
    [line] = ran.stderr.strip().splitlines()
    assert line.startswith("seamhost: error: ")
    assert "sandbox.writable_roots: .cache leads through a symlink to /" in line
    assert "Traceback" not in ran.stderr
