"""The body of ``shell``: a command in the workspace, always run through the confining runner.

The command is a string run as ``bash -c COMMAND``, or an argv run as given. It starts in the
workspace (or in `cwd`, which must resolve inside it) and runs through ``ctx.runner``, which wraps
it with the `sandbox/confine` provider unless the effective mode is ``danger-full-access``; when
there is no usable provider nothing is spawned and the call ends ``SANDBOX_UNAVAILABLE``.

How the call ends:

* a timeout kills the whole process group: ``TOOL_TIMEOUT``;
* the confinement blocked the command: ``SANDBOX_DENIED``;
* the command could not be started: ``TOOL_ERROR``;
* a non-zero exit: ``TOOL_ERROR``, the exit code in value and content;
* the turn is cancelled while it runs: the process group is killed and reaped: ``ABORTED``.

stdout and stderr are each kept up to ``output_limit_bytes``, with a marker when cut. The
backend and its enforcement are recorded in ``meta``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from seamhost import PathDenied, PathPolicy, ToolFailed, ToolOutput
from seamhost.errors import ErrorCode, SandboxUnavailable
from seamhost_tools import truncation

if TYPE_CHECKING:
    from pathlib import Path

    from seamhost import Runner, RunResult, ToolContext
    from seamhost_tools.settings import ToolSettings


async def shell(ctx: ToolContext, settings: ToolSettings) -> ToolOutput:
    """The body of ``shell``."""
    args = ctx.arguments
    command: str | None = args.get("command")
    argv = ("bash", "-c", command) if command is not None else tuple(args.get("argv", ()))
    if not argv or ("command" in args and "argv" in args):
        raise ToolFailed(ErrorCode.INVALID_ARGUMENTS, "pass exactly one of command or argv")
    try:
        cwd = PathPolicy.of(ctx).workspace_dir(args.get("cwd", "."))
    except PathDenied as exc:
        raise ToolFailed(ErrorCode.SANDBOX_DENIED, str(exc)) from exc
    if not cwd.is_dir():
        raise ToolFailed(ErrorCode.TOOL_ERROR, f"working directory {cwd} is not a directory")
    if ctx.runner is None:
        raise ToolFailed(
            ErrorCode.SANDBOX_UNAVAILABLE,
            "the call was given no subprocess runner; nothing ran",
        )
    timeout: float = args.get("timeout_seconds", settings.shell_timeout_seconds)
    try:
        result = await _run_unless_cancelled(ctx.runner, ctx.cancelled, argv, cwd, timeout)
    except SandboxUnavailable as exc:
        raise ToolFailed(ErrorCode.SANDBOX_UNAVAILABLE, str(exc)) from exc
    if result is None:
        return ToolOutput(
            content="cancelled: the command and its process group were killed",
            is_error=True,
            error_code=ErrorCode.ABORTED,
        )
    return shell_output(result, settings.output_limit_bytes, timeout)


async def _run_unless_cancelled(
    runner: Runner,
    cancelled: asyncio.Event,
    argv: tuple[str, ...],
    cwd: Path,
    timeout: float,
) -> RunResult | None:
    """Run `argv`; ``None`` when `cancelled` was set first (the process is then killed)."""
    run = asyncio.ensure_future(runner.run(argv, timeout=timeout, cwd=cwd))
    stop = asyncio.ensure_future(cancelled.wait())
    try:
        await asyncio.wait((run, stop), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
        if not run.done():
            # Never abandon a started process: cancelling the run kills its process group,
            # and waiting here lets the runner reap it before the call settles.
            run.cancel()
            await asyncio.wait((run,))
    if run.cancelled():
        return None
    return run.result()


def shell_output(result: RunResult, limit: int, timeout: float) -> ToolOutput:
    """The tool output for a finished run (see the module docstring for the error codes)."""
    stdout = _stream(result.stdout, result.stdout_truncated, limit)
    stderr = _stream(result.stderr, result.stderr_truncated, limit)
    value = {
        "exit_code": result.returncode,
        "stdout": stdout[0],
        "stderr": stderr[0],
        "stdout_truncated": stdout[2],
        "stderr_truncated": stderr[2],
        "timed_out": result.timed_out,
    }
    code: ErrorCode | None = None
    if result.timed_out:
        code = ErrorCode.TOOL_TIMEOUT
        head = f"timed out after {timeout:g} s; the command and its process group were killed"
    elif result.verdict == "denied":
        code = ErrorCode.SANDBOX_DENIED
        head = f"the sandbox ({result.backend}) denied the command ({_status(result)})"
    elif result.verdict == "runner-failure":
        code = ErrorCode.TOOL_ERROR
        head = "the command could not be run"
    else:
        head = _status(result)
        if result.returncode != 0:
            code = ErrorCode.TOOL_ERROR
    sections = [head]
    for name, (text, kept, cut) in (("stdout", stdout), ("stderr", stderr)):
        if not (text or cut):
            continue
        parts = [f"--- {name} ---"]
        if text:
            parts.append(text.removesuffix("\n"))
        if cut:
            parts.append(truncation.marker(f"{name} cut after {truncation.size(kept)}"))
        sections.append("\n".join(parts))
    if len(sections) == 1:
        sections.append("(no output)")
    return ToolOutput(
        content="\n".join(sections),
        value=value,
        meta={"backend": result.backend, "enforcement": result.enforcement},
        is_error=code is not None,
        error_code=code,
    )


def _stream(data: bytes, cut_by_runner: bool, limit: int) -> tuple[str, int, bool]:
    """The text kept of one stream, how many bytes that is, and whether any was cut."""
    kept, cut = truncation.cap(data, limit)
    cut = cut or cut_by_runner
    return truncation.decode(kept, cut=cut), len(kept), cut


def _status(result: RunResult) -> str:
    code = result.returncode
    if code is not None and code < 0:
        return f"killed by signal {-code}"
    return f"exit code {code}"
