"""read_file, list_dir, write_file and edit_file, called as the kernel calls them, on real files."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import TYPE_CHECKING

import pytest
from seamhost_tools.filework import off_loop
from seamhost_tools.settings import ToolSettings

from seamhost.errors import ErrorCode
from seamhost.jsonvalue import thaw
from seamhost.sandbox.policy import SandboxMode
from seamhost.tool.result import ToolFailed

if TYPE_CHECKING:
    from pathlib import Path

    from tests.tools.conftest import Layout, ToolCaller

RO, WW, FULL = (
    SandboxMode.READ_ONLY,
    SandboxMode.WORKSPACE_WRITE,
    SandboxMode.DANGER_FULL_ACCESS,
)


def failure(call: ToolCaller, name: str, arguments: dict[str, object], **kw: object) -> ToolFailed:
    with pytest.raises(ToolFailed) as failed:
        call(name, arguments, **kw)
    return failed.value


# --------------------------------------------------------------------------------------------
# read_file
# --------------------------------------------------------------------------------------------


def test_read_whole_file(call_tool: ToolCaller, layout: Layout) -> None:
    (layout.workspace / "a.txt").write_text("one\ntwo\nthree\n")
    out = call_tool("read_file", {"path": "a.txt"}, mode=RO)
    assert out.content == "one\ntwo\nthree\n"
    assert out.value["size"] == 14
    assert out.value["lines"] == 3
    assert not out.value["truncated"]
    assert out.value["next_offset"] is None
    assert out.value["path"] == str(layout.workspace / "a.txt")


def test_read_lines_from_offset(call_tool: ToolCaller, layout: Layout) -> None:
    (layout.workspace / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = call_tool("read_file", {"path": "a.txt", "offset": 4, "limit": 3})
    assert out.value["content"] == "line 4\nline 5\nline 6\n"
    assert out.value["next_offset"] == 7
    assert out.value["truncated"]
    assert out.content.endswith("[... showed lines 4-6 of " + str(layout.workspace / "a.txt")
                                + " (71 bytes); continue with offset=7]")  # fmt: skip


def test_read_last_line_without_newline(call_tool: ToolCaller, layout: Layout) -> None:
    (layout.workspace / "a.txt").write_text("x\ny")
    out = call_tool("read_file", {"path": "a.txt", "offset": 2})
    assert out.content == "y"
    assert out.value["lines"] == 1
    assert out.value["next_offset"] is None


def test_read_stops_at_the_byte_cap_on_a_line_boundary(
    call_tool: ToolCaller, layout: Layout
) -> None:
    (layout.workspace / "big.txt").write_text("".join(f"{i:04}\n" for i in range(1000)))
    out = call_tool("read_file", {"path": "big.txt"}, settings=ToolSettings(max_read_bytes=23))
    assert out.value["content"] == "0000\n0001\n0002\n0003\n"  # 20 bytes; a 5th would pass 23
    assert out.value["next_offset"] == 5
    assert "continue with offset=5" in out.content
    again = call_tool(
        "read_file", {"path": "big.txt", "offset": 5}, settings=ToolSettings(max_read_bytes=23)
    )
    assert again.value["content"].startswith("0004\n")


def test_read_cuts_a_line_longer_than_the_cap(call_tool: ToolCaller, layout: Layout) -> None:
    (layout.workspace / "wide.txt").write_text("é" * 100 + "\nnext\n")
    out = call_tool("read_file", {"path": "wide.txt"}, settings=ToolSettings(max_read_bytes=11))
    # 11 bytes hold 5 two-byte characters and half of a sixth, which is dropped, not mangled.
    assert out.value["content"] == "é" * 5
    assert out.value["next_offset"] == 2
    assert "line 1 is longer than 11 bytes and was cut" in out.content


def test_read_past_the_end(call_tool: ToolCaller, layout: Layout) -> None:
    (layout.workspace / "a.txt").write_text("1\n2\n")
    out = call_tool("read_file", {"path": "a.txt", "offset": 9})
    assert out.value["lines"] == 0
    assert out.content == f"[{layout.workspace / 'a.txt'} has 2 lines; there is no line 9]"


def test_read_binary_is_not_shown(call_tool: ToolCaller, layout: Layout) -> None:
    (layout.workspace / "blob").write_bytes(b"\x7fELF\x00\x01\x02" * 10)
    out = call_tool("read_file", {"path": "blob"})
    assert out.value["binary"]
    assert out.value["content"] == ""
    assert out.value["next_offset"] is None
    assert out.content == f"[binary file {layout.workspace / 'blob'}: 70 bytes; not shown]"


def test_read_invalid_utf8_is_replaced(call_tool: ToolCaller, layout: Layout) -> None:
    (layout.workspace / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    assert call_tool("read_file", {"path": "latin1.txt"}).content == "caf\ufffd\n"


def test_reads_are_not_confined(call_tool: ToolCaller, layout: Layout) -> None:
    out = call_tool("read_file", {"path": "../outside/secret.txt"}, mode=RO)
    assert out.content == "secret\n"


def test_read_refuses_what_is_not_a_regular_file(call_tool: ToolCaller, layout: Layout) -> None:
    os.mkfifo(layout.workspace / "pipe")
    (layout.workspace / "dir").mkdir()
    # A FIFO with no writer would block a plain open forever.
    fifo = failure(call_tool, "read_file", {"path": "pipe"})
    assert fifo.code == ErrorCode.TOOL_ERROR
    assert "not a regular file" in fifo.message
    assert "use list_dir" in failure(call_tool, "read_file", {"path": "dir"}).message
    missing = failure(call_tool, "read_file", {"path": "nope.txt"})
    nope = layout.workspace / "nope.txt"
    assert missing.message == f"cannot read {nope}: No such file or directory"


# --------------------------------------------------------------------------------------------
# list_dir
# --------------------------------------------------------------------------------------------


def test_list_dir(call_tool: ToolCaller, layout: Layout) -> None:
    ws = layout.workspace
    (ws / "b.txt").write_text("12345")
    (ws / "a").mkdir()
    (ws / "c").symlink_to("b.txt")
    os.mkfifo(ws / "d")
    out = call_tool("list_dir", {}, mode=RO)
    assert thaw(out.value["entries"]) == [
        {"name": "a", "kind": "dir"},
        {"name": "b.txt", "kind": "file", "size": 5},
        {"name": "c", "kind": "symlink", "target": "b.txt"},
        {"name": "d", "kind": "other"},
    ]
    assert out.content == "a/\nb.txt  (5 bytes)\nc -> b.txt\nd  (special file)"
    assert out.value["total"] == 4
    assert not out.value["truncated"]


def test_list_dir_is_capped(call_tool: ToolCaller, layout: Layout) -> None:
    for i in range(7):
        (layout.workspace / f"f{i}").touch()
    out = call_tool("list_dir", {"path": "."}, settings=ToolSettings(max_list_entries=3))
    assert [e["name"] for e in out.value["entries"]] == ["f0", "f1", "f2"]
    assert out.value["total"] == 7
    assert out.value["truncated"]
    assert out.content.endswith("[... 4 more entries not shown (max_list_entries=3)]")


def test_list_empty_and_missing(call_tool: ToolCaller, layout: Layout) -> None:
    (layout.workspace / "empty").mkdir()
    assert call_tool("list_dir", {"path": "empty"}).content.endswith("is empty]")
    assert failure(call_tool, "list_dir", {"path": "nope"}).code == ErrorCode.TOOL_ERROR


# --------------------------------------------------------------------------------------------
# write_file
# --------------------------------------------------------------------------------------------


def test_write_creates_then_replaces(call_tool: ToolCaller, layout: Layout) -> None:
    target = layout.workspace / "out.txt"
    first = call_tool("write_file", {"path": "out.txt", "content": "héllo\n"})
    assert target.read_text() == "héllo\n"
    assert first.value == {"path": str(target), "bytes_written": 7, "created": True}
    assert first.content == f"wrote 7 bytes to {target} (new file)"
    assert first.meta == {"backend": "path-policy", "enforcement": "full"}
    target.chmod(0o640)
    second = call_tool("write_file", {"path": "out.txt", "content": "x"})
    assert target.read_text() == "x"
    assert not second.value["created"]
    assert target.stat().st_mode & 0o777 == 0o640  # replaced, not recreated with a new mode
    assert sorted(p.name for p in layout.workspace.iterdir()) == ["out.txt"]


def test_write_needs_create_dirs_for_missing_directories(
    call_tool: ToolCaller, layout: Layout
) -> None:
    refused = failure(call_tool, "write_file", {"path": "a/b/c.txt", "content": "x"})
    assert refused.code == ErrorCode.TOOL_ERROR
    assert "pass create_dirs" in refused.message
    assert not (layout.workspace / "a").exists()
    call_tool("write_file", {"path": "a/b/c.txt", "content": "x", "create_dirs": True})
    assert (layout.workspace / "a" / "b" / "c.txt").read_text() == "x"


def test_write_in_read_only_is_refused(call_tool: ToolCaller, layout: Layout) -> None:
    refused = failure(call_tool, "write_file", {"path": "new.txt", "content": "x"}, mode=RO)
    assert refused.code == ErrorCode.SANDBOX_DENIED
    assert "read-only" in refused.message
    assert list(layout.workspace.iterdir()) == []


def _escapes(layout: Layout, *, hard_link: bool = True) -> list[str]:
    """Paths that reach ``outside/secret.txt`` in every way the escape suite names."""
    ws = layout.workspace
    (ws / "door").symlink_to(layout.outside)
    (ws / "link.txt").symlink_to(layout.secret)
    if hard_link:
        os.link(layout.secret, ws / "hard.txt")
    return [
        str(layout.secret),
        "../outside/secret.txt",
        "door/secret.txt",
        "link.txt",
        *(["hard.txt"] if hard_link else []),
        f"/proc/self/root{layout.secret}",
    ]


@pytest.mark.parametrize("mode", [RO, WW], ids=str)
def test_write_and_edit_escapes_are_refused(
    call_tool: ToolCaller, layout: Layout, mode: SandboxMode
) -> None:
    paths = _escapes(layout)
    before = layout.outside_state()
    for path in paths:
        write = failure(call_tool, "write_file", {"path": path, "content": "pwned"}, mode=mode)
        edit = failure(
            call_tool, "edit_file", {"path": path, "old": "secret", "new": "x"}, mode=mode
        )
        assert write.code == ErrorCode.SANDBOX_DENIED, path
        assert edit.code == ErrorCode.SANDBOX_DENIED, path
    assert layout.outside_state() == before


def test_write_and_edit_escapes_work_under_full_access(
    call_tool: ToolCaller, layout: Layout
) -> None:
    for index, path in enumerate(_escapes(layout, hard_link=False)):
        edit = {"path": path, "old": "secret", "new": f"edit{index}"}
        assert call_tool("edit_file", edit, mode=FULL).meta["enforcement"] == "none"
        assert layout.secret.read_text() == f"edit{index}\n"
        write = call_tool("write_file", {"path": path, "content": "secret\n"}, mode=FULL)
        assert write.meta == {"backend": "path-policy", "enforcement": "none"}
        assert layout.secret.read_text() == "secret\n"
    assert sorted(p.name for p in layout.outside.iterdir()) == ["secret.txt"]  # no temporary


def test_a_hard_linked_file_is_refused_even_under_full_access(
    call_tool: ToolCaller, layout: Layout
) -> None:
    os.link(layout.secret, layout.workspace / "hard.txt")
    before = layout.outside_state()
    for path in ("hard.txt", str(layout.secret)):
        write = failure(call_tool, "write_file", {"path": path, "content": "x"}, mode=FULL)
        edit = failure(
            call_tool, "edit_file", {"path": path, "old": "secret", "new": "x"}, mode=FULL
        )
        for failed in (write, edit):
            assert failed.code == ErrorCode.TOOL_ERROR  # not a sandbox refusal: nothing confines
            assert "has 2 hard links" in failed.message
            assert "Remove the other links" in failed.message
    assert layout.outside_state() == before
    assert (layout.workspace / "hard.txt").read_text() == "secret\n"


def test_write_into_a_writable_root(call_tool: ToolCaller, layout: Layout, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    path = str(cache / "c.txt")
    denied = failure(call_tool, "write_file", {"path": path, "content": "x"})
    assert "writable_roots" in denied.message
    call_tool("write_file", {"path": path, "content": "x"}, writable_roots=(cache,))
    assert (cache / "c.txt").read_text() == "x"


# --------------------------------------------------------------------------------------------
# edit_file
# --------------------------------------------------------------------------------------------


def test_edit_replaces_the_unique_occurrence(call_tool: ToolCaller, layout: Layout) -> None:
    target = layout.workspace / "m.py"
    target.write_text("a = 1\nb = 2\nc = 3\n")
    target.chmod(0o640)
    out = call_tool("edit_file", {"path": "m.py", "old": "b = 2", "new": "b = 20"})
    assert target.read_text() == "a = 1\nb = 20\nc = 3\n"
    assert out.value == {"path": str(target), "line": 2, "bytes_written": 19}
    assert out.content == f"edited {target}: replaced 1 occurrence at line 2"
    assert target.stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize(
    ("text", "old", "count"),
    [("x = 1\nx = 1\n", "x = 1", 2), ("aaa", "aa", 2), ("abc", "zzz", 0)],
    ids=["twice", "overlapping", "absent"],
)
def test_edit_fails_unless_unique(
    call_tool: ToolCaller, layout: Layout, text: str, old: str, count: int
) -> None:
    target = layout.workspace / "f.txt"
    target.write_text(text)
    before = target.stat()
    failed = failure(call_tool, "edit_file", {"path": "f.txt", "old": old, "new": "Z"})
    assert failed.code == ErrorCode.TOOL_ERROR
    expected = "does not occur" if count == 0 else f"occurs {count} times"
    assert expected in failed.message
    assert target.read_text() == text
    # Untouched: the same file (not a replacement with the same bytes), and nothing beside it.
    assert (target.stat().st_ino, target.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert sorted(p.name for p in layout.workspace.iterdir()) == ["f.txt"]


def test_edit_refusals_leave_the_file_alone(call_tool: ToolCaller, layout: Layout) -> None:
    ws = layout.workspace
    (ws / "bin").write_bytes(b"\xff\xfeold")
    (ws / "t.txt").write_text("same")
    (ws / "big.txt").write_text("old" * 100)
    binary = failure(call_tool, "edit_file", {"path": "bin", "old": "o", "new": "n"})
    assert "not UTF-8" in binary.message
    same = failure(call_tool, "edit_file", {"path": "t.txt", "old": "same", "new": "same"})
    assert "the same" in same.message
    too_big = failure(
        call_tool,
        "edit_file",
        {"path": "big.txt", "old": "old", "new": "new"},
        settings=ToolSettings(max_edit_bytes=100),
    )
    assert "300 bytes, more than edit_file loads (100 bytes)" in too_big.message
    missing = failure(call_tool, "edit_file", {"path": "nope.txt", "old": "a", "new": "b"})
    assert missing.code == ErrorCode.TOOL_ERROR
    assert not (ws / "nope.txt").exists()
    assert (ws / "bin").read_bytes() == b"\xff\xfeold"
    assert (ws / "big.txt").read_text() == "old" * 100


def test_edit_in_read_only_is_refused(call_tool: ToolCaller, layout: Layout) -> None:
    (layout.workspace / "f.txt").write_text("abc")
    failed = failure(call_tool, "edit_file", {"path": "f.txt", "old": "b", "new": "x"}, mode=RO)
    assert failed.code == ErrorCode.SANDBOX_DENIED
    assert (layout.workspace / "f.txt").read_text() == "abc"


# --------------------------------------------------------------------------------------------
# file work and cancellation
# --------------------------------------------------------------------------------------------


def test_a_cancelled_body_waits_for_its_file_work(tmp_path: Path) -> None:
    """The worker thread cannot be stopped, so the cancelled body settles only after it ends."""
    started, release = threading.Event(), threading.Event()
    finished: list[str] = []

    def work() -> str:
        started.set()
        release.wait(10)
        finished.append("written")
        return "written"

    async def scenario() -> None:
        task = asyncio.ensure_future(off_loop("write", tmp_path / "f", work))
        await asyncio.to_thread(started.wait, 10)
        task.cancel()
        await asyncio.sleep(0.05)
        assert not task.done()  # still waiting for the thread, not abandoning it
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert finished == ["written"]

    asyncio.run(scenario())


def test_os_errors_name_the_full_path(call_tool: ToolCaller, layout: Layout) -> None:
    (layout.workspace / "file").write_text("x")
    failed = failure(call_tool, "write_file", {"path": "file/sub/new.txt", "content": "x"})
    assert failed.code == ErrorCode.TOOL_ERROR
    assert failed.message == f"cannot write {layout.workspace / 'file'}: Not a directory"
