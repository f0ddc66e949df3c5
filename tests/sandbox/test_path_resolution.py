"""Property: whatever path a call names, a write under ``workspace-write`` lands where the
operating system resolves that path, and only when that place is inside the workspace (and is not
a file with a second name); where the operating system cannot write, neither does the policy.

Paths are drawn from components that include ``..``, ``.``, symlinks to directories and files
inside and outside the workspace, dangling links both ways, a link up past the root, a link
loop and a hard link to a file outside.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from seamhost.sandbox.paths import PathDenied, PathPolicy
from seamhost.sandbox.policy import SandboxMode

COMPONENTS = [
    "a", "b", "f.txt", "new.txt", "..", ".", "ws", "out",
    "in_dir", "out_dir", "up", "in_file", "out_file", "dangling_in", "dangling_out",
    "hard", "loop",
]  # fmt: skip


def build_tree(root: Path) -> Path:
    """``root/ws`` (the workspace, with links in and out) and ``root/out`` beside it."""
    ws, out = root / "ws", root / "out"
    (ws / "a" / "b").mkdir(parents=True)
    out.mkdir()
    (ws / "a" / "f.txt").write_text("inside\n")
    (out / "o.txt").write_text("outside\n")
    links = {
        "in_dir": "a",
        "out_dir": "../out",
        "in_file": "a/f.txt",
        "out_file": "../out/o.txt",
        "dangling_in": "a/new.txt",
        "dangling_out": "../out/new.txt",
    }
    for name, target in links.items():
        (ws / name).symlink_to(target)
    (ws / "a" / "up").symlink_to("../..")  # ws/a/up is root, outside the workspace
    (ws / "loop").symlink_to("loop")
    os.link(out / "o.txt", ws / "hard")  # a second name, inside, for a file outside
    return ws


def outside_state(root: Path) -> dict[str, bytes | str]:
    state: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        if path.is_relative_to(root / "ws"):
            continue
        key = str(path.relative_to(root))
        if path.is_symlink():
            state[key] = "-> " + str(path.readlink())
        elif path.is_file():
            state[key] = path.read_bytes()
        else:
            state[key] = "dir"
    return state


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from(COMPONENTS), min_size=1, max_size=6), absolute=st.booleans())
def test_writes_land_where_the_os_resolves_and_only_inside(
    parts: list[str], absolute: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        ws = build_tree(root)
        path = "/".join(parts)
        if absolute:
            path = str(ws / path)
        lexical = ws / path
        where_os_goes = Path(os.path.realpath(lexical))
        inside = where_os_goes.is_relative_to(ws)
        before = outside_state(root)
        policy = PathPolicy(SandboxMode.WORKSPACE_WRITE, ws)
        payload = f"written via {path}\n".encode()

        writable = policy.writable(path)
        outcome = _write(policy, path, payload)

        if isinstance(outcome, PathDenied):
            assert not inside or _hard_linked(where_os_goes)
            assert not writable
        elif isinstance(outcome, OSError):
            # Nowhere to write: the operating system cannot write through this path either.
            assert outcome.errno in UNWRITABLE, outcome
            if inside and not _hard_linked(where_os_goes):
                assert _os_write_errno(lexical) in UNWRITABLE
        else:
            assert inside
            assert writable
            assert outcome == where_os_goes
            assert lexical.read_bytes() == payload  # the OS, following the same path, agrees

        assert outside_state(root) == before
        assert not list(root.rglob("*.seamhost-tmp")), "a temporary file was left behind"


UNWRITABLE = (errno.ENOENT, errno.EISDIR, errno.ENOTDIR, errno.ELOOP)


def _write(policy: PathPolicy, path: str, payload: bytes) -> Path | OSError:
    """The real path written, or the error that stopped the write."""
    try:
        with policy.open_for_replace(path) as replacement:
            replacement.commit(payload)
    except OSError as exc:
        return exc
    return replacement.path


def _os_write_errno(path: Path) -> int | None:
    """The error the operating system gives for opening `path` to append, creating it."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND))
    except OSError as exc:
        return exc.errno
    return None


def _hard_linked(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_nlink > 1
    except OSError:
        return False
