"""The bodies of ``write_file`` and ``edit_file``: tools that change files, one at a time.

Both go through :class:`seamhost.sandbox.paths.PathPolicy`, the same policy the sandbox provider
enforces for subprocesses: nothing in ``read-only``; only inside the workspace and the writable
roots in ``workspace-write`` (symlinks and hard links leading out refused); anywhere in
``danger-full-access``. A refusal ends the call ``SANDBOX_DENIED`` and touches nothing.

Neither writes in place: each replaces the file atomically and durably through
:meth:`seamhost.sandbox.replacement.Replacement.commit` (a temporary file beside it, fsynced,
renamed over it, the directory fsynced). Whatever stops the call (a crash, a kill, a full disk),
the file holds its old content or its new one, never a mix; a call that fails leaves it as it was.
The file keeps its mode, and its owner and group as far as the process may set them; a new file
gets the mode the umask gives. It does not keep its inode (a program holding the old file open
goes on seeing the old content), its extended attributes or its ACLs. A file with more than one
hard link is refused in every mode: replacing one of its names would leave the others with the
old content.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from seamhost import PathPolicy, ToolFailed, ToolOutput
from seamhost.errors import ErrorCode
from seamhost_tools import truncation
from seamhost_tools.filework import confinement, off_loop

if TYPE_CHECKING:
    from pathlib import Path

    from seamhost import Replacement, ToolContext
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

    def write() -> Replacement:
        with policy.open_for_replace(path, create_dirs=create_dirs) as replacement:
            replacement.commit(data)
        return replacement

    written = await off_loop("write", path, write)
    news = " (new file)" if written.created else ""
    return ToolOutput(
        content=f"wrote {truncation.size(len(data))} to {written.path}{news}",
        value={"path": str(written.path), "bytes_written": len(data), "created": written.created},
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

    def edit() -> tuple[Path, int, int]:
        with policy.open_for_replace(path, create=False) as replacement:
            if replacement.size > settings.max_edit_bytes:
                raise ToolFailed(
                    ErrorCode.TOOL_ERROR,
                    f"{replacement.path} is {truncation.size(replacement.size)}, more than "
                    f"edit_file loads ({truncation.size(settings.max_edit_bytes)}); "
                    "use write_file or shell",
                )
            text = _decode(replacement.read(), replacement.path)
            found = occurrences(text, old)
            if len(found) != 1:
                raise ToolFailed(ErrorCode.TOOL_ERROR, _not_unique(replacement.path, len(found)))
            start = found[0]
            data = (text[:start] + new + text[start + len(old) :]).encode("utf-8")
            replacement.commit(data)
        return replacement.path, text.count("\n", 0, start) + 1, len(data)

    edited, line, written = await off_loop("edit", path, edit)
    return ToolOutput(
        content=f"edited {edited}: replaced 1 occurrence at line {line}",
        value={"path": str(edited), "line": line, "bytes_written": written},
        meta=confinement(policy),
    )


def _not_unique(path: Path, count: int) -> str:
    if count == 0:
        return f"`old` does not occur in {path}; read the file and copy the text exactly"
    return (
        f"`old` occurs {count} times in {path}; include more surrounding text so it "
        "occurs exactly once"
    )


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolFailed(
            ErrorCode.TOOL_ERROR, f"the text is not valid Unicode ({exc.reason}); nothing written"
        ) from exc


def _decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolFailed(
            ErrorCode.TOOL_ERROR,
            f"{path} is not UTF-8 text (byte {exc.start}); edit_file edits text only",
        ) from exc
