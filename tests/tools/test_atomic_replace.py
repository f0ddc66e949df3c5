"""Replacing a file (`seamhost.sandbox.replacement.Replacement.commit`) on real files: what it
keeps, what it leaves behind after a success and after real failures, and what it still refuses.

Tests that change owners or run a child as another user need root, and are skipped otherwise.
"""

from __future__ import annotations

import errno
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from seamhost.errors import ErrorCode
from seamhost.sandbox.paths import PathDenied, PathPolicy
from seamhost.sandbox.policy import SandboxMode
from seamhost.tool.result import ToolFailed

if TYPE_CHECKING:
    from tests.tools.conftest import Layout, ToolCaller

WW, FULL = SandboxMode.WORKSPACE_WRITE, SandboxMode.DANGER_FULL_ACCESS
MIB = 1 << 20
NOBODY = 65534
OTHER_UID, OTHER_GID = 4242, 4343  # ids no account on a test machine uses

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="giving a file to another owner, or becoming another user, needs root"
)


def leftovers(directory: Path) -> list[str]:
    """The temporary files of a replacement left in `directory`."""
    return sorted(p.name for p in directory.glob(".*.seamhost-tmp"))


def replace(policy: PathPolicy, path: str | Path, data: bytes) -> Path:
    with policy.open_for_replace(path) as replacement:
        replacement.commit(data)
    return replacement.path


def run_child(code: str, *args: str) -> str:
    """Run `code` in a fresh Python (exec'd, not forked) with `args`; its stripped stdout."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A world-writable directory another user can reach (pytest's own tmp dirs are private)."""
    top = Path(tempfile.mkdtemp(prefix="seamhost-replace-"))
    try:
        top.chmod(0o755)
        ws = top / "ws"
        ws.mkdir()
        ws.chmod(0o777)
        yield ws
    finally:
        shutil.rmtree(top)


# Imports everything first, then becomes `nobody` (with the supplementary groups given in
# argv[2]) and replaces argv[3] under the workspace argv[1] with argv[4]; prints the outcome.
AS_NOBODY = f"""
    import os, sys
    from seamhost.sandbox.paths import PathPolicy
    os.setgroups([int(g) for g in sys.argv[2].split(",") if g])
    os.setgid({NOBODY})
    os.setuid({NOBODY})
    try:
        with PathPolicy("workspace-write", sys.argv[1]).open_for_replace(sys.argv[3]) as r:
            r.commit(sys.argv[4].encode())
    except OSError as exc:
        print("error", exc.errno)
    else:
        print("replaced")
"""


# --------------------------------------------------------------------------------------------
# what a replacement keeps
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 4096, 3 * MIB + 17], ids=lambda n: f"{n}B")
def test_content_is_replaced_and_nothing_else_is_left(layout: Layout, size: int) -> None:
    ws = layout.workspace
    (ws / "f.bin").write_bytes(b"old content")
    data = os.urandom(size)
    assert replace(PathPolicy(WW, ws), "f.bin", data) == ws / "f.bin"
    assert (ws / "f.bin").read_bytes() == data
    assert sorted(p.name for p in ws.iterdir()) == ["f.bin"]


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755, 0o444, 0o4755, 0o2750], ids=oct)
def test_the_mode_is_kept(layout: Layout, mode: int) -> None:
    target = layout.workspace / "f"
    target.write_bytes(b"old")
    target.chmod(mode)
    if os.geteuid() != 0 and not mode & 0o200:
        pytest.skip("a file its owner may not write is refused (see the test below)")
    replace(PathPolicy(WW, layout.workspace), "f", b"new")
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o7777 == mode


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002, 0o027, 0o000], ids=oct)
def test_a_new_file_gets_the_mode_the_umask_gives(layout: Layout, umask: int) -> None:
    ws = layout.workspace
    previous = os.umask(umask)
    try:
        replace(PathPolicy(WW, ws), "new.txt", b"x")
        with open(ws / "plain.txt", "w"):  # what a plain open makes, for comparison
            pass
    finally:
        os.umask(previous)
    assert (ws / "new.txt").stat().st_mode & 0o777 == 0o666 & ~umask
    assert (ws / "new.txt").stat().st_mode == (ws / "plain.txt").stat().st_mode


WITHOUT_PROC = """
    import os, sys
    os.umask(0o027)
    from seamhost.sandbox.paths import PathPolicy
    assert not os.path.exists("/proc/self/status")
    with PathPolicy("workspace-write", sys.argv[1]).open_for_replace("new") as replacement:
        replacement.commit(b"x")
    print(oct(os.stat(os.path.join(sys.argv[1], "new")).st_mode & 0o777), oct(os.umask(0)))
"""


@needs_root
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare(1)")
def test_the_umask_is_found_without_proc_and_left_as_it_was(layout: Layout) -> None:
    """Where ``/proc`` is not mounted the umask is read by setting it and putting it back."""
    child = [sys.executable, "-c", textwrap.dedent(WITHOUT_PROC), str(layout.workspace)]
    command = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
               'umount -l /proc && exec "$@"', "sh", *child]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0 and "umount" in done.stderr + done.stdout:
        pytest.skip(f"cannot unmount /proc in a new mount namespace here: {done.stderr}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0o640", "0o27"]


def test_the_inode_changes_and_an_open_reader_keeps_the_old_content(layout: Layout) -> None:
    target = layout.workspace / "f"
    target.write_bytes(b"old")
    before = target.stat().st_ino
    with open(target, "rb") as reader:
        replace(PathPolicy(WW, layout.workspace), "f", b"new")
        assert reader.read() == b"old"
    assert target.stat().st_ino != before
    assert target.read_bytes() == b"new"


@needs_root
def test_the_owner_and_group_are_kept(layout: Layout) -> None:
    target = layout.workspace / "f"
    target.write_bytes(b"old")
    os.chown(target, OTHER_UID, OTHER_GID)
    target.chmod(0o4750)  # set-user-ID survives: the mode is given after the owner
    replace(PathPolicy(WW, layout.workspace), "f", b"new")
    info = target.stat()
    assert (info.st_uid, info.st_gid) == (OTHER_UID, OTHER_GID)
    assert info.st_mode & 0o7777 == 0o4750


@needs_root
@pytest.mark.parametrize(
    ("groups", "group_kept"), [("", False), (str(OTHER_GID), True)], ids=["stranger", "member"]
)
def test_an_owner_the_process_may_not_give_is_not_an_error(
    shared_dir: Path, groups: str, group_kept: bool
) -> None:
    target = shared_dir / "f"
    target.write_bytes(b"old")
    os.chown(target, OTHER_UID, OTHER_GID)
    target.chmod(0o666)
    assert run_child(AS_NOBODY, str(shared_dir), groups, "f", "new") == "replaced"
    info = target.stat()
    assert target.read_bytes() == b"new"
    assert info.st_uid == NOBODY  # the owner could not be given back: EPERM, ignored
    assert (info.st_gid == OTHER_GID) is group_kept  # a member may still give the group
    assert info.st_mode & 0o777 == 0o666
    assert leftovers(shared_dir) == []


def test_a_file_the_process_may_not_write_is_refused(shared_dir: Path) -> None:
    """The directory would allow the rename; the file's own mode says no, as in place."""
    target = shared_dir / "f"
    target.write_bytes(b"old")
    target.chmod(0o444)
    if os.geteuid() == 0:
        outcome = run_child(AS_NOBODY, str(shared_dir), "", "f", "new")
        assert outcome == f"error {errno.EACCES}"
    else:
        with pytest.raises(PermissionError):
            replace(PathPolicy(WW, shared_dir), "f", b"new")
    assert target.read_bytes() == b"old"
    assert leftovers(shared_dir) == []


def test_a_name_of_the_longest_length_is_replaced(layout: Layout) -> None:
    name = "é" * 127 + "x"  # 255 bytes: the temporary name must not grow from it
    assert len(os.fsencode(name)) == 255
    replace(PathPolicy(WW, layout.workspace), name, b"one")
    replace(PathPolicy(WW, layout.workspace), name, b"two")
    assert (layout.workspace / name).read_bytes() == b"two"
    assert leftovers(layout.workspace) == []


# --------------------------------------------------------------------------------------------
# real failures leave the target as it was, and no temporary file
# --------------------------------------------------------------------------------------------

FILE_SIZE_LIMITED = """
    import resource, sys
    from seamhost.sandbox.paths import PathPolicy
    limit = int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # Python ignores SIGXFSZ
    try:
        with PathPolicy("workspace-write", sys.argv[1]).open_for_replace("f") as r:
            r.commit(b"n" * (2 * limit))
    except OSError as exc:
        print("error", exc.errno)
    else:
        print("replaced")
"""


def test_a_write_that_fails_leaves_the_target_and_no_temporary(layout: Layout) -> None:
    target = layout.workspace / "f"
    target.write_bytes(b"old content")
    target.chmod(0o640)
    outcome = run_child(FILE_SIZE_LIMITED, str(layout.workspace), str(MIB))
    assert outcome == f"error {errno.EFBIG}"
    assert target.read_bytes() == b"old content"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in layout.workspace.iterdir()) == ["f"]


def test_a_rename_that_fails_leaves_the_target_and_no_temporary(layout: Layout) -> None:
    target = layout.workspace / "f"
    target.write_bytes(b"old")
    with PathPolicy(WW, layout.workspace).open_for_replace("f") as replacement:
        # Meanwhile the name became a directory that is not empty: rename(2) cannot replace it.
        target.unlink()
        target.mkdir()
        (target / "inside").write_bytes(b"keep")
        with pytest.raises(IsADirectoryError):
            replacement.commit(b"new")
    assert (target / "inside").read_bytes() == b"keep"
    assert sorted(p.name for p in layout.workspace.iterdir()) == ["f"]


def test_a_failed_write_file_call_keeps_the_old_content(
    call_tool: ToolCaller, layout: Layout
) -> None:
    target = layout.workspace / "f.txt"
    target.write_text("old\n")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    # Lowered for this process only while the call runs, and put back: a real EFBIG from write(2).
    resource.setrlimit(resource.RLIMIT_FSIZE, (MIB, hard))
    try:
        with pytest.raises(ToolFailed) as failed:
            call_tool("write_file", {"path": "f.txt", "content": "n" * (2 * MIB)})
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert failed.value.code == ErrorCode.TOOL_ERROR
    assert failed.value.message == f"cannot write {target}: File too large"
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in layout.workspace.iterdir()) == ["f.txt"]


# --------------------------------------------------------------------------------------------
# refusals and races
# --------------------------------------------------------------------------------------------


def test_a_symlink_leading_out_is_still_refused(layout: Layout) -> None:
    ws = layout.workspace
    (ws / "link.txt").symlink_to(layout.secret)
    (ws / "door").symlink_to(layout.outside)
    before = layout.outside_state()
    for path in ("link.txt", "door/secret.txt", "door/new.txt"):
        with pytest.raises(PathDenied, match="outside the writable roots"):
            replace(PathPolicy(WW, ws), path, b"pwned")
    assert layout.outside_state() == before
    assert (ws / "link.txt").is_symlink()
    assert leftovers(ws) == leftovers(layout.outside) == []


def test_the_commit_lands_in_the_directory_that_was_judged(layout: Layout) -> None:
    """A directory on the way swapped for a symlink out after the walk changes nothing."""
    ws = layout.workspace
    (ws / "sub").mkdir()
    (ws / "sub" / "f").write_bytes(b"old")
    before = layout.outside_state()
    with PathPolicy(WW, ws).open_for_replace("sub/f") as replacement:
        (ws / "sub").rename(ws / "moved")
        (ws / "sub").symlink_to(layout.outside)
        (layout.outside / "f").write_bytes(b"outside")
        replacement.commit(b"new")
    assert (ws / "moved" / "f").read_bytes() == b"new"
    assert (layout.outside / "f").read_bytes() == b"outside"
    (layout.outside / "f").unlink()
    assert layout.outside_state() == before


def test_a_name_swapped_for_a_symlink_after_the_walk_is_replaced_not_followed(
    layout: Layout,
) -> None:
    ws = layout.workspace
    (ws / "f").write_bytes(b"old")
    before = layout.outside_state()
    with PathPolicy(FULL, ws).open_for_replace("f") as replacement:
        (ws / "f").unlink()
        (ws / "f").symlink_to(layout.secret)
        replacement.commit(b"new")
    assert not (ws / "f").is_symlink()
    assert (ws / "f").read_bytes() == b"new"
    assert layout.outside_state() == before
