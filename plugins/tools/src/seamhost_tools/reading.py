"""The bodies of ``read_file`` and ``list_dir``: read-only tools, safe to run concurrently.

Reads are not confined by the sandbox mode: they go wherever the operating system lets the
process read (operators restrict them with tool-policy rules). Relative paths are relative to
the workspace. Only regular files are read, so a FIFO or a device cannot hang or flood a call.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import TYPE_CHECKING, Any

import attrs

from seamhost import PathPolicy, ToolOutput
from seamhost_tools import truncation
from seamhost_tools.filework import off_loop

if TYPE_CHECKING:
    import io
    from pathlib import Path

    from seamhost import ToolContext
    from seamhost_tools.settings import ToolSettings

_LINE_CHUNK = 64 * 1024
_BINARY_PROBE = 8192

# --------------------------------------------------------------------------------------------
# read_file
# --------------------------------------------------------------------------------------------


@attrs.frozen
class Excerpt:
    """What was read from a file: whole lines from `offset`, within the byte cap."""

    size: int
    offset: int
    lines: int
    data: bytes
    more: bool  # the file goes on after the excerpt
    long_line: bool  # the only line returned was longer than the cap and was cut
    binary: bool
    skipped: int  # lines before `offset` that existed (fewer than offset - 1: past the end)


def read_excerpt(path: Path, offset: int, limit: int | None, cap: int) -> Excerpt:
    """Read whole lines of the regular file at `path`, starting at line `offset`.

    Stops after `limit` lines or before the line that would take the excerpt past `cap` bytes;
    a first line longer than `cap` is cut at `cap`, and the excerpt ends there.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "a directory; use list_dir", str(path))
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    with open(fd, "rb") as fh:
        if b"\0" in fh.read(_BINARY_PROBE):  # not text: nothing a model could read is shown
            return Excerpt(info.st_size, offset, 0, b"", False, False, True, 0)
        fh.seek(0)
        skipped = 0
        while skipped < offset - 1 and _skip_line(fh):
            skipped += 1
        data, lines, long_line = _read_lines(fh, limit, cap)
        more = bool(fh.peek(1))
    return Excerpt(info.st_size, offset, lines, data, more, long_line, False, skipped)


def _skip_line(fh: io.BufferedReader) -> bool:
    """Consume one line however long; False when none was left."""
    consumed = False
    while chunk := fh.readline(_LINE_CHUNK):
        consumed = True
        if chunk.endswith(b"\n"):
            break
    return consumed


def _read_lines(fh: io.BufferedReader, limit: int | None, cap: int) -> tuple[bytes, int, bool]:
    kept = bytearray()
    lines = 0
    while limit is None or lines < limit:
        room = cap - len(kept)
        if room <= 0:
            break
        chunk = fh.readline(room)
        if not chunk:
            break
        # A whole line, or the last one when it has no newline.
        if chunk.endswith(b"\n") or len(chunk) < room or not fh.peek(1):
            kept += chunk
            lines += 1
            continue
        if lines == 0:  # one line longer than the cap: show its start, then move past it
            kept += chunk
            _skip_line(fh)
            return bytes(kept), 1, True
        fh.seek(-len(chunk), os.SEEK_CUR)  # keep the excerpt on a line boundary
        break
    return bytes(kept), lines, False


async def read_file(ctx: ToolContext, settings: ToolSettings) -> ToolOutput:
    """The body of ``read_file``."""
    args = ctx.arguments
    path = PathPolicy.of(ctx).locate(args["path"])
    offset: int = args.get("offset", 1)
    limit: int | None = args.get("limit")
    excerpt = await off_loop(
        "read", path, lambda: read_excerpt(path, offset, limit, settings.max_read_bytes)
    )
    return _read_output(path, excerpt, settings)


def _read_output(path: Path, excerpt: Excerpt, settings: ToolSettings) -> ToolOutput:
    text = "" if excerpt.binary else truncation.decode(excerpt.data, cut=excerpt.long_line)
    next_offset = excerpt.offset + excerpt.lines if excerpt.more else None
    value = {
        "path": str(path),
        "size": excerpt.size,
        "offset": excerpt.offset,
        "lines": excerpt.lines,
        "truncated": excerpt.more,
        "next_offset": next_offset,
        "binary": excerpt.binary,
        "content": text,
    }
    if excerpt.binary:
        content = f"[binary file {path}: {truncation.size(excerpt.size)}; not shown]"
    elif excerpt.lines == 0 and excerpt.skipped < excerpt.offset - 1:
        content = f"[{path} has {excerpt.skipped} lines; there is no line {excerpt.offset}]"
    else:
        content = text
        notes = []
        if excerpt.long_line:
            cap = truncation.size(settings.max_read_bytes)
            notes.append(f"line {excerpt.offset} is longer than {cap} and was cut")
        if next_offset is not None:
            last = excerpt.offset + excerpt.lines - 1
            notes.append(
                f"showed lines {excerpt.offset}-{last} of {path} "
                f"({truncation.size(excerpt.size)}); continue with offset={next_offset}"
            )
        if notes:
            separator = "" if not content or content.endswith("\n") else "\n"
            content += separator + truncation.marker("; ".join(notes))
    return ToolOutput(content=content, value=value)


# --------------------------------------------------------------------------------------------
# list_dir
# --------------------------------------------------------------------------------------------


def list_entries(path: Path) -> list[dict[str, Any]]:
    """Every entry of the directory at `path`, sorted by name; symlinks are not followed."""
    entries = []
    with os.scandir(path) as scan:
        for entry in scan:
            item: dict[str, Any] = {"name": entry.name}
            if entry.is_symlink():
                item["kind"] = "symlink"
                item["target"] = os.readlink(entry.path)
            elif entry.is_dir(follow_symlinks=False):
                item["kind"] = "dir"
            elif entry.is_file(follow_symlinks=False):
                item["kind"] = "file"
                item["size"] = entry.stat(follow_symlinks=False).st_size
            else:
                item["kind"] = "other"
            entries.append(item)
    entries.sort(key=lambda item: item["name"])
    return entries


async def list_dir(ctx: ToolContext, settings: ToolSettings) -> ToolOutput:
    """The body of ``list_dir``."""
    path = PathPolicy.of(ctx).locate(ctx.arguments.get("path", "."))
    entries = await off_loop("list", path, lambda: list_entries(path))
    shown = entries[: settings.max_list_entries]
    lines = [_entry_line(item) for item in shown]
    if not entries:
        lines.append(f"[{path} is empty]")
    elif len(shown) < len(entries):
        lines.append(
            truncation.marker(
                f"{len(entries) - len(shown)} more entries not shown "
                f"(max_list_entries={settings.max_list_entries})"
            )
        )
    value = {
        "path": str(path),
        "entries": shown,
        "total": len(entries),
        "truncated": len(shown) < len(entries),
    }
    return ToolOutput(content="\n".join(lines), value=value)


def _entry_line(item: dict[str, Any]) -> str:
    name: str = item["name"]
    if item["kind"] == "dir":
        return name + "/"
    if item["kind"] == "symlink":
        return f"{name} -> {item['target']}"
    if item["kind"] == "file":
        return f"{name}  ({truncation.size(item['size'])})"
    return f"{name}  (special file)"
