"""The bodies of ``write_file`` and ``edit_file``: tools that change files, one at a time.

Both go through :class:`seamhost.paths.PathPolicy`, the same policy the sandbox provider
enforces for subprocesses: nothing in ``read-only``; only inside the workspace and the writable
roots in ``workspace-write`` (symlinks and hard links leading out refused); anywhere in
``danger-full-access``. A refusal ends the call ``SANDBOX_DENIED`` and touches nothing. The file
is written in place through the descriptor the policy opened, so its mode and owner are kept.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from seamhost.paths import PathPolicy
from seamhost.results import ErrorCode, ToolFailed
from seamhost.tools import ToolOutput
from seamhost_tools import truncation
from seamhost_tools.filework import confinement, off_loop

if TYPE_CHECKING:
    from seamhost.paths import OpenedFile
    from seamhost.tools import ToolContext
    from seamhost_tools.settings import ToolSettings

# --------------------------------------------------------------------------------------------
# write_file
# --------------------------------------------------------------------------------------------


async def write_file(ctx: ToolContext) -> ToolOutput:
    """The body of ``write_file``."""
    args = ctx.arguments
    policy = PathPolicy.of(ctx)
    path = policy.locate(args["path"])
    data = _encode(args["content"])
    create_dirs: bool = args.get("create_dirs", False)

    def write() -> OpenedFile:
        with policy.open_for_write(path, create_dirs=create_dirs) as opened:
            opened.file.write(data)
        return opened

    opened = await off_loop("write", path, write)
    news = " (new file)" if opened.created else ""
    return ToolOutput(
        content=f"wrote {truncation.size(len(data))} to {opened.path}{news}",
        value={"path": str(opened.path), "bytes_written": len(data), "created": opened.created},
        meta=confinement(policy),
    )


# --------------------------------------------------------------------------------------------
# edit_file
# --------------------------------------------------------------------------------------------


def occurrences(text: str, old: str) -> list[int]:
    """Every index where `old` starts in `text`, overlapping ones included."""
    found = []
    index = text.find(old)
    while index != -1:
        found.append(index)
        index = text.find(old, index + 1)
    return found


async def edit_file(ctx: ToolContext, settings: ToolSettings) -> ToolOutput:
    """The body of ``edit_file``."""
    args = ctx.arguments
    policy = PathPolicy.of(ctx)
    path = policy.locate(args["path"])
    old: str = args["old"]
    new: str = args["new"]
    if old == new:
        raise ToolFailed(ErrorCode.TOOL_ERROR, "old and new are the same; nothing to change")
    _encode(new)

    def edit() -> tuple[OpenedFile, int, int]:
        with policy.open_for_write(path, create=False, truncate=False) as opened:
            size = os.fstat(opened.file.fileno()).st_size
            if size > settings.max_edit_bytes:
                raise ToolFailed(
                    ErrorCode.TOOL_ERROR,
                    f"{opened.path} is {truncation.size(size)}, more than edit_file loads "
                    f"({truncation.size(settings.max_edit_bytes)}); use write_file or shell",
                )
            text = _decode(opened.file.read(), opened)
            found = occurrences(text, old)
            if len(found) != 1:
                raise ToolFailed(ErrorCode.TOOL_ERROR, _not_unique(opened, len(found)))
            start = found[0]
            data = (text[:start] + new + text[start + len(old) :]).encode("utf-8")
            opened.file.seek(0)
            opened.file.write(data)
            opened.file.truncate()
        return opened, text.count("\n", 0, start) + 1, len(data)

    opened, line, written = await off_loop("edit", path, edit)
    return ToolOutput(
        content=f"edited {opened.path}: replaced 1 occurrence at line {line}",
        value={"path": str(opened.path), "line": line, "bytes_written": written},
        meta=confinement(policy),
    )


def _not_unique(opened: OpenedFile, count: int) -> str:
    if count == 0:
        return f"`old` does not occur in {opened.path}; read the file and copy the text exactly"
    return (
        f"`old` occurs {count} times in {opened.path}; include more surrounding text so it "
        "occurs exactly once"
    )


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolFailed(
            ErrorCode.TOOL_ERROR, f"the text is not valid Unicode ({exc.reason}); nothing written"
        ) from exc


def _decode(data: bytes, opened: OpenedFile) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolFailed(
            ErrorCode.TOOL_ERROR,
            f"{opened.path} is not UTF-8 text (byte {exc.start}); edit_file edits text only",
        ) from exc
