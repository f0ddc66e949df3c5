"""The shared path policy (`seamhost.sandbox.paths`) on real files: every escape route in every
mode.

Each escape is tried in ``workspace-write`` (refused, nothing outside changes), in ``read-only``
(refused) and in ``danger-full-access`` (the same write really lands outside, which shows the
route is a real one and the refusals are the policy's doing).
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from seamhost.errors import SeamhostError
from seamhost.sandbox import paths
from seamhost.sandbox.confinement import ConfineRequest
from seamhost.sandbox.paths import HardLinkedFile, PathDenied, PathPolicy
from seamhost.sandbox.policy import SandboxMode

if TYPE_CHECKING:
    from tests.tools.conftest import Layout

RO, WW, FULL = (
    SandboxMode.READ_ONLY,
    SandboxMode.WORKSPACE_WRITE,
    SandboxMode.DANGER_FULL_ACCESS,
)

# Each escape prepares the workspace and returns the path to write, and the outside file that
# write reaches when nothing stops it.
Escape = Callable[["Layout"], tuple[str, Path]]


def _direct(layout: Layout) -> tuple[str, Path]:
    return str(layout.secret), layout.secret


def _dotdot(layout: Layout) -> tuple[str, Path]:
    return "../outside/secret.txt", layout.secret


def _dotdot_after_dirs(layout: Layout) -> tuple[str, Path]:
    (layout.workspace / "a" / "b").mkdir(parents=True)
    return "a/b/../../../outside/secret.txt", layout.secret


def _symlinked_dir(layout: Layout) -> tuple[str, Path]:
    (layout.workspace / "door").symlink_to(layout.outside)
    return "door/secret.txt", layout.secret


def _symlinked_dir_new_file(layout: Layout) -> tuple[str, Path]:
    (layout.workspace / "door").symlink_to(layout.outside)
    return "door/planted.txt", layout.outside / "planted.txt"


def _symlinked_file(layout: Layout) -> tuple[str, Path]:
    (layout.workspace / "notes.txt").symlink_to(layout.secret)
    return "notes.txt", layout.secret


def _relative_symlinked_file(layout: Layout) -> tuple[str, Path]:
    (layout.workspace / "notes.txt").symlink_to("../outside/secret.txt")
    return "notes.txt", layout.secret


def _dangling_symlink(layout: Layout) -> tuple[str, Path]:
    (layout.workspace / "new.txt").symlink_to(layout.outside / "created-through-link.txt")
    return "new.txt", layout.outside / "created-through-link.txt"


def _symlink_chain(layout: Layout) -> tuple[str, Path]:
    (layout.workspace / "first").symlink_to("second")
    (layout.workspace / "second").symlink_to(layout.secret)
    return "first", layout.secret


def _symlink_then_dotdot(layout: Layout) -> tuple[str, Path]:
    # ws/deep -> outside/inner; "deep/.." is outside/, not ws/, once the link is followed.
    (layout.outside / "inner").mkdir()
    (layout.workspace / "deep").symlink_to(layout.outside / "inner")
    return "deep/../secret.txt", layout.secret


def _hard_link(layout: Layout) -> tuple[str, Path]:
    os.link(layout.secret, layout.workspace / "hard.txt")
    return "hard.txt", layout.secret


def _proc_self_root(layout: Layout) -> tuple[str, Path]:
    return f"/proc/self/root{layout.secret}", layout.secret


def _proc_self_root_relative(layout: Layout) -> tuple[str, Path]:
    depth = len(layout.workspace.resolve().parts) - 1
    return "../" * depth + f"proc/self/root{layout.secret}", layout.secret


ESCAPES: dict[str, Escape] = {
    "absolute": _direct,
    "dotdot": _dotdot,
    "dotdot-after-dirs": _dotdot_after_dirs,
    "symlinked-dir": _symlinked_dir,
    "symlinked-dir-new-file": _symlinked_dir_new_file,
    "symlinked-file": _symlinked_file,
    "relative-symlinked-file": _relative_symlinked_file,
    "dangling-symlink": _dangling_symlink,
    "symlink-chain": _symlink_chain,
    "symlink-then-dotdot": _symlink_then_dotdot,
    "hard-link": _hard_link,
    "proc-self-root": _proc_self_root,
    "proc-self-root-relative": _proc_self_root_relative,
}


def write(policy: PathPolicy, path: str, data: bytes = b"pwned\n") -> Path:
    with policy.open_for_replace(path) as replacement:
        replacement.commit(data)
    return replacement.path


@pytest.mark.parametrize("escape", ESCAPES.values(), ids=list(ESCAPES))
@pytest.mark.parametrize("mode", [RO, WW], ids=str)
def test_escape_is_refused(layout: Layout, escape: Escape, mode: SandboxMode) -> None:
    path, _ = escape(layout)
    before = layout.outside_state()
    policy = PathPolicy(mode, layout.workspace)

    assert not policy.writable(path)
    with pytest.raises(PathDenied) as refused:
        policy.check_write(path)
    with pytest.raises(PathDenied):
        write(policy, path)

    assert layout.outside_state() == before
    assert refused.value.mode == str(mode)
    assert isinstance(refused.value, PermissionError)
    assert isinstance(refused.value, SeamhostError)


# A replacement never writes through a second name; a hard-linked file is refused in every mode.
ROUTES_OUT = {name: escape for name, escape in ESCAPES.items() if name != "hard-link"}


@pytest.mark.parametrize("escape", ROUTES_OUT.values(), ids=list(ROUTES_OUT))
def test_escape_lands_outside_under_full_access(layout: Layout, escape: Escape) -> None:
    path, reached = escape(layout)
    policy = PathPolicy(FULL, layout.workspace)

    assert policy.writable(path)
    written = write(policy, path)

    assert written.samefile(reached)
    assert reached.read_bytes() == b"pwned\n"


def test_a_hard_linked_file_is_not_split_under_full_access(layout: Layout) -> None:
    path, _ = _hard_link(layout)
    before = layout.outside_state()
    policy = PathPolicy(FULL, layout.workspace)
    for name in (path, str(layout.secret)):  # either name: replacing one would split them
        with pytest.raises(HardLinkedFile, match=r"2 hard links.*Remove the other") as refused:
            write(policy, name)
        assert isinstance(refused.value, OSError)
        assert isinstance(refused.value, SeamhostError)
    assert layout.outside_state() == before
    assert (layout.workspace / path).read_bytes() == b"secret\n"
    assert sorted(p.name for p in layout.workspace.iterdir()) == ["hard.txt"]


def test_refusal_messages_say_what_would_allow_the_write(layout: Layout) -> None:
    with pytest.raises(PathDenied, match=r"read-only.*workspace-write"):
        PathPolicy(RO, layout.workspace).check_write("inside.txt")
    with pytest.raises(PathDenied, match=r"outside the writable roots.*writable_roots"):
        PathPolicy(WW, layout.workspace).check_write("../outside/secret.txt")
    (layout.workspace / "link").symlink_to(layout.secret)
    with pytest.raises(PathDenied, match=f"symlink to {layout.secret.resolve()}"):
        PathPolicy(WW, layout.workspace).check_write("link")
    os.link(layout.secret, layout.workspace / "hard")
    with pytest.raises(PathDenied, match="2 hard links"):
        PathPolicy(WW, layout.workspace).check_write("hard")


# --------------------------------------------------------------------------------------------
# what is allowed
# --------------------------------------------------------------------------------------------


def test_writes_inside_the_workspace(layout: Layout) -> None:
    ws = layout.workspace
    (ws / "src").mkdir()
    (ws / "real.txt").write_text("old")
    (ws / "alias.txt").symlink_to("real.txt")
    (ws / "srclink").symlink_to("src")
    policy = PathPolicy(WW, ws)

    assert write(policy, "new.txt") == ws / "new.txt"
    assert write(policy, str(ws / "abs.txt")) == ws / "abs.txt"
    assert write(policy, "src/../back.txt") == ws / "back.txt"
    assert write(policy, "srclink/through.txt") == ws / "src" / "through.txt"
    # A link inside the workspace to a file inside it: the write lands on the target.
    assert write(policy, "alias.txt", b"new") == ws / "real.txt"
    assert (ws / "real.txt").read_bytes() == b"new"
    assert (ws / "alias.txt").is_symlink()


def test_tilde_is_a_file_name(layout: Layout) -> None:
    policy = PathPolicy(WW, layout.workspace)
    assert policy.check_write("~/x") == layout.workspace / "~" / "x"


def test_replace_creates_reports_and_replaces(layout: Layout) -> None:
    policy = PathPolicy(WW, layout.workspace)
    with policy.open_for_replace("f.txt") as replacement:
        assert replacement.created
        assert replacement.size == 0
        assert replacement.read() == b""
        assert not (layout.workspace / "f.txt").exists()  # nothing changes before the commit
        replacement.commit(b"long content")
    assert (layout.workspace / "f.txt").read_bytes() == b"long content"
    with policy.open_for_replace("f.txt") as replacement:
        assert not replacement.created
        assert replacement.size == len(b"long content")
        assert replacement.read() == b"long content"
        replacement.commit(b"short")
    assert (layout.workspace / "f.txt").read_bytes() == b"short"
    with pytest.raises(ValueError, match="closed"):
        replacement.commit(b"again")
    assert (layout.workspace / "f.txt").read_bytes() == b"short"


def test_replace_keeps_the_mode_of_an_existing_file(layout: Layout) -> None:
    target = layout.workspace / "run.sh"
    target.write_text("#!/bin/sh\n")
    target.chmod(0o754)
    write(PathPolicy(WW, layout.workspace), "run.sh")
    assert target.stat().st_mode & 0o7777 == 0o754


def test_missing_directories_need_create_dirs(layout: Layout) -> None:
    policy = PathPolicy(WW, layout.workspace)
    with pytest.raises(FileNotFoundError, match="create_dirs"):
        policy.open_for_replace("a/b/c.txt")
    assert not (layout.workspace / "a").exists()
    with policy.open_for_replace("a/b/c.txt", create_dirs=True) as replacement:
        replacement.commit(b"x")
    assert (layout.workspace / "a" / "b" / "c.txt").read_bytes() == b"x"


def test_create_false_refuses_a_missing_file(layout: Layout) -> None:
    with pytest.raises(FileNotFoundError):
        PathPolicy(WW, layout.workspace).open_for_replace("nope.txt", create=False)
    assert not (layout.workspace / "nope.txt").exists()


def test_directories_and_fifos_are_not_written(layout: Layout) -> None:
    policy = PathPolicy(WW, layout.workspace)
    (layout.workspace / "d").mkdir()
    os.mkfifo(layout.workspace / "pipe")
    with pytest.raises(IsADirectoryError):
        policy.open_for_replace("d")
    with pytest.raises(IsADirectoryError):
        policy.open_for_replace(".")
    # Opening a FIFO for writing without a reader would block; it is refused at once instead.
    with pytest.raises(OSError, match="not a regular file"):
        policy.open_for_replace("pipe")
    assert sorted(p.name for p in layout.workspace.iterdir()) == ["d", "pipe"]


@pytest.mark.parametrize("mode", [WW, FULL], ids=str)
def test_paths_the_os_cannot_resolve_fail_as_the_os_would(
    layout: Layout, mode: SandboxMode
) -> None:
    ws = layout.workspace
    (ws / "loop").symlink_to("loop")
    (ws / "file").write_text("keep")
    policy = PathPolicy(mode, ws)
    with pytest.raises(OSError, match=os.strerror(errno.ELOOP)):
        write(policy, "loop")
    with pytest.raises(NotADirectoryError):
        write(policy, "file/x/../y")
    with pytest.raises(FileNotFoundError):
        write(policy, "missing/../y")
    assert not policy.writable("missing/../y")
    assert sorted(p.name for p in ws.iterdir()) == ["file", "loop"]
    assert (ws / "file").read_text() == "keep"


def test_writable_roots(layout: Layout, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (layout.workspace / "build").mkdir()
    policy = PathPolicy(WW, layout.workspace, (cache, "build"))

    assert policy.writable_roots == (cache, layout.workspace / "build")
    assert write(policy, str(cache / "c.bin")) == cache / "c.bin"
    assert not policy.writable(tmp_path / "elsewhere.txt")
    # A writable root does not survive read-only.
    assert not PathPolicy(RO, layout.workspace, (cache,)).writable(cache / "c.bin")


def test_writable_roots_for_each_mode(layout: Layout, tmp_path: Path) -> None:
    policy = PathPolicy(WW, layout.workspace, (tmp_path / "cache",))
    assert policy.writable_roots_for() == (layout.workspace, tmp_path / "cache")
    assert policy.writable_roots_for(RO) == ()
    assert policy.writable_roots_for(FULL) == (Path("/"),)


def test_policy_of_a_confine_request(layout: Layout) -> None:
    request = ConfineRequest(("true",), WW, layout.workspace, (Path("out"),))
    policy = PathPolicy.for_request(request)
    assert policy.writable_roots_for() == (layout.workspace, layout.workspace / "out")


def test_workspace_reached_through_a_symlink(layout: Layout, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(layout.workspace)
    policy = PathPolicy(WW, alias)
    assert policy.workspace == layout.workspace
    assert write(policy, str(alias / "x.txt")) == layout.workspace / "x.txt"
    assert not policy.writable(alias / ".." / "outside" / "secret.txt")


# --------------------------------------------------------------------------------------------
# working directories
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [RO, WW, FULL], ids=str)
def test_workspace_dir(layout: Layout, mode: SandboxMode) -> None:
    ws = layout.workspace
    (ws / "sub").mkdir()
    (ws / "out").symlink_to(layout.outside)
    policy = PathPolicy(mode, ws)
    assert policy.workspace_dir(".") == ws
    assert policy.workspace_dir("sub") == ws / "sub"
    for escape in ("..", "out", str(layout.outside), f"/proc/self/root{layout.outside}"):
        with pytest.raises(PathDenied, match="outside the workspace"):
            policy.workspace_dir(escape)


# --------------------------------------------------------------------------------------------
# races between the check and the write
# --------------------------------------------------------------------------------------------


def _swap_after_check(monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]) -> None:
    """Run `swap` right after the policy's check, where a racing process could act."""
    checked = PathPolicy.check_write

    def check_then_swap(self: PathPolicy, path: paths.StrPath) -> Path:
        target = checked(self, path)
        swap()
        return target

    monkeypatch.setattr(PathPolicy, "check_write", check_then_swap)


def test_directory_swapped_for_a_symlink_after_the_check(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = layout.workspace / "sub"
    sub.mkdir()

    def swap() -> None:
        sub.rmdir()
        sub.symlink_to(layout.outside)

    _swap_after_check(monkeypatch, swap)
    before = layout.outside_state()
    with pytest.raises(PathDenied, match="symlink the check did not see"):
        write(PathPolicy(WW, layout.workspace), "sub/secret.txt")
    assert layout.outside_state() == before


def test_file_swapped_for_a_symlink_after_the_check(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = layout.workspace / "f.txt"
    target.write_text("mine")

    def swap() -> None:
        target.unlink()
        target.symlink_to(layout.secret)

    _swap_after_check(monkeypatch, swap)
    before = layout.outside_state()
    with pytest.raises(PathDenied):
        write(PathPolicy(WW, layout.workspace), "f.txt")
    assert layout.outside_state() == before


def test_file_swapped_for_a_hard_link_after_the_check(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = layout.workspace / "f.txt"
    target.write_text("mine")

    def swap() -> None:
        target.unlink()
        os.link(layout.secret, target)

    _swap_after_check(monkeypatch, swap)
    before = layout.outside_state()
    with pytest.raises(PathDenied, match="hard links"):
        write(PathPolicy(WW, layout.workspace), "f.txt")
    # Checked on the open descriptor before truncating: the outside file is intact.
    assert layout.outside_state() == before


def _race(layout: Layout, attempt: Callable[[], None], seconds: float) -> int | None:
    """Flip ``ws/sub`` between a directory and a symlink out while `attempt` writes through it.

    Returns after how many attempts the outside changed, or ``None`` if it never did.
    """
    sub = layout.workspace / "sub"
    sub.mkdir(exist_ok=True)
    graveyard = Path(tempfile.mkdtemp(dir=layout.workspace))
    stop = threading.Event()

    def flip() -> None:
        flips = 0
        while not stop.is_set():
            flips += 1
            sub.rename(graveyard / str(flips))  # with whatever was written in it
            sub.symlink_to(layout.outside)
            sub.unlink()
            sub.mkdir()

    before = layout.outside_state()
    racer = threading.Thread(target=flip)
    racer.start()
    deadline = time.monotonic() + seconds
    attempts = 0
    try:
        while time.monotonic() < deadline:
            attempts += 1
            # A failed attempt wrote nothing: refused, or the directory was away or changed.
            with contextlib.suppress(OSError):
                attempt()
            if layout.outside_state() != before:
                return attempts
    finally:
        stop.set()
        racer.join()
    return None


def test_racing_symlink_flips_never_reach_outside(layout: Layout) -> None:
    policy = PathPolicy(WW, layout.workspace)

    def check_then_open() -> None:
        with open(policy.check_write("sub/secret.txt"), "wb") as fh:
            fh.write(b"pwned\n")

    # The race is real: a writer that checks, then opens the checked path, gets out.
    if _race(layout, check_then_open, seconds=5) is None:
        pytest.skip("the racing thread never won against a check-then-open writer here")
    layout.secret.write_text("secret\n")

    def through_the_policy() -> None:
        write(policy, "sub/secret.txt")

    assert _race(layout, through_the_policy, seconds=1) is None
