"""File-system work for a tool body: run off the event loop, failures turned into `ToolFailed`.

A refusal by the path policy ends the call ``SANDBOX_DENIED``; any other operating-system error
ends it ``TOOL_ERROR`` with a message naming the action and the path (seamhost's own errors, such
as `seamhost.sandbox.paths.HardLinkedFile`, with their own message, which already does). A write
records in its result's ``meta`` how it was confined, as a subprocess's does (design.md §5, step 9).
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, TypeVar

from seamhost import PathDenied, PathPolicy, ToolFailed
from seamhost.errors import ErrorCode, SeamhostError

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

T = TypeVar("T")


async def off_loop(action: str, path: Path, work: Callable[[], T]) -> T:
    """Run `work` in a worker thread; its errors become `ToolFailed`.

    A thread cannot be stopped, so when the body is cancelled the work is still awaited before
    the cancellation goes on: nothing changes on disk after the call has settled.
    """
    future = asyncio.ensure_future(asyncio.to_thread(work))
    try:
        return await asyncio.shield(future)
    except PathDenied as exc:
        raise ToolFailed(ErrorCode.SANDBOX_DENIED, str(exc)) from exc
    except OSError as exc:
        if isinstance(exc, SeamhostError):  # its message names the path and what to do
            raise ToolFailed(ErrorCode.TOOL_ERROR, str(exc)) from exc
        # The error's own file name when it is a full path (a directory on the way, say);
        # a bare name or a descriptor number would not tell the reader which file.
        named = exc.filename
        where = named if isinstance(named, str) and os.path.isabs(named) else path
        reason = exc.strerror or str(exc)
        raise ToolFailed(ErrorCode.TOOL_ERROR, f"cannot {action} {where}: {reason}") from exc
    except asyncio.CancelledError:
        await asyncio.wait((future,))
        if not future.cancelled():
            future.exception()  # retrieved, so asyncio does not report it as lost
        raise


def confinement(policy: PathPolicy) -> dict[str, str]:
    """The ``meta`` of a write: the path policy enforced it fully, unless nothing was confined."""
    return {"backend": "path-policy", "enforcement": "full" if policy.mode.confining else "none"}
