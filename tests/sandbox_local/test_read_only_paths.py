"""Attack 4 of issue 12, through the real CLI: the shipped ``default`` and writes under release/.

``default`` sets ``[sandbox] read_only_paths = ["release"]``, so no tool writes there in a
confining mode: ``edit_file`` is refused by the path policy (``DENIED_BY_GUARD``: the tools
plugin's guard asks it before anyone could approve the write; the body asks again), and under
bubblewrap a redirection, ``tee``, ``cp`` and ``sed -i`` meet a read-only bind. Under Landlock
alone the shell cannot be held to it (Landlock cannot carve a read-only hole under a writable
root) and each shell result says ``partial``; the file tools still refuse.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.sandbox_local.conftest import working
from tests.sandbox_local.test_pinned_roots import call, run

LANDLOCK_ONLY = """\
[profile]
name = "default-on-landlock"
extends = ["default"]
[plugins.sandbox-local]
backends = ["landlock"]
"""
SHELL_WRITES = {
    "redirect": "echo 2 > release/VERSION",
    "tee": "echo 2 | tee release/VERSION",
    "cp": "cp other.txt release/VERSION",
    "sed": "sed -i s/1/2/ release/VERSION",
    "new-file": "echo new > release/NEW",
}


def attack(root: Path, profile: str) -> dict[str, dict[str, Any]]:
    release = root / "ws" / "release"
    release.mkdir(parents=True)
    (release / "VERSION").write_text("1\n")
    (root / "ws" / "other.txt").write_text("2\n")
    calls = [call("inside", "shell", command="echo ok > inside.txt")]
    calls.append(call("edit", "edit_file", path="release/VERSION", old="1", new="2"))
    calls += [call(name, "shell", command=command) for name, command in SHELL_WRITES.items()]
    results, workspace = run(root, profile, calls)
    assert (workspace / "inside.txt").read_text() == "ok\n"
    assert results["edit"]["error"]["code"] == "DENIED_BY_GUARD", results["edit"]
    assert "read-only path" in str(results["edit"]["content"])
    return results


def test_default_refuses_every_write_under_release_under_bubblewrap(
    scratch: Path, tmp_path: Path
) -> None:
    working("bwrap")
    root = scratch / f"{tmp_path.name}-default"
    results = attack(root, (Path(__file__).parents[2] / "profiles" / "default.toml").read_text())
    for name in SHELL_WRITES:
        assert results[name]["is_error"], (name, results[name])
        assert results[name]["meta"]["enforcement"] == "full"
    assert (root / "ws" / "release" / "VERSION").read_text() == "1\n"
    assert not (root / "ws" / "release" / "NEW").exists()


def test_under_landlock_alone_the_shell_is_reported_partial(scratch: Path, tmp_path: Path) -> None:
    working("landlock")
    root = scratch / f"{tmp_path.name}-landlock"
    results = attack(root, LANDLOCK_ONLY)
    for name in SHELL_WRITES:
        assert results[name]["meta"]["enforcement"] == "partial", (name, results[name])


@pytest.mark.parametrize("backend", ["bwrap", "landlock"])
def test_a_missing_read_only_path_is_refused_to_file_tools_and_reported_partial(
    scratch: Path, tmp_path: Path, backend: str
) -> None:
    """Nothing to bind when release/ does not exist: the shell's result says so."""
    working(backend)
    root = scratch / f"{tmp_path.name}-{backend}"
    (root / "ws").mkdir(parents=True)
    profile = LANDLOCK_ONLY.replace('"landlock"', f'"{backend}"')
    results, _ = run(
        root,
        profile,
        [
            # default's user-approval rule would allow release-note drafts; the sandbox refuses
            # first (the tools' guard, before anyone is asked).
            call("mk", "write_file", path="release/notes/1.md", content="2", create_dirs=True),
            call("echo", "shell", command="echo hello"),
        ],
    )
    assert results["mk"]["error"]["code"] == "DENIED_BY_GUARD", results["mk"]
    assert "the sandbox will refuse this write" in results["mk"]["content"]
    assert results["echo"]["meta"]["enforcement"] == "partial"
