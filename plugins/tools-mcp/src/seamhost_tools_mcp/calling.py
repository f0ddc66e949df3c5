"""The body of a mounted tool: one ``tools/call`` to its server (design.md §13).

Before anything is sent, the tool must still be described as the bundle pinned it (else
``TOOL_CHANGED``). The request carries the call's ``idempotency_key``, call id and attempt in
its ``_meta`` (:mod:`.ledger`). How the call ends:

* the server answered with a result: its text blocks are the content; ``structuredContent`` is
  the value, which the kernel checks against the tool's ``outputSchema`` (``TOOL_ERROR`` naming
  the violation); with no output schema the value is ``{"content": [...blocks]}``;
* ``isError`` in the result, or a JSON-RPC error answer: ``TOOL_ERROR`` with the server's message;
* the request never left (the server could not be started or the connection was already down):
  ``TOOL_ERROR`` saying "not sent", marked retryable (nothing happened);
* it left and its answer was lost (the connection dropped, the server crashed, the timeout
  passed, the answer was not a result): ``TOOL_OUTCOME_UNKNOWN``, never a silent retry; a tool
  trusted read-only ends ``TOOL_ERROR`` (``TOOL_TIMEOUT`` for the timeout) instead;
* the turn is cancelled: ``notifications/cancelled`` is sent and the answer awaited for
  ``cancel_grace_s``; an answer that comes is used, otherwise the outcome is unknown (``ABORTED``
  for a tool trusted read-only).
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, Protocol, cast

from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    CallToolRequest,
    CallToolRequestParams,
    CallToolResult,
    CancelledNotification,
    CancelledNotificationParams,
    RequestParamsMeta,
)

from seamhost import ErrorCode, SandboxUnavailable, ToolFailed, ToolOutput
from seamhost.jsonvalue import thaw
from seamhost_tools_mcp.errors import McpServerError
from seamhost_tools_mcp.ledger import call_meta

if TYPE_CHECKING:
    from seamhost import ToolContext
    from seamhost_tools_mcp.connection import Connected
    from seamhost_tools_mcp.descriptors import Descriptor
    from seamhost_tools_mcp.pool import Pool
    from seamhost_tools_mcp.settings import ServerSettings


class CalledTool(Protocol):
    """What a call reads of the tool it calls.

    :class:`~seamhost_tools_mcp.mounted.MountedTool` is one; it imports this module to make
    :func:`call` its body, so this module names what it needs instead of importing it back.
    """

    name: str
    server: ServerSettings
    descriptor: Descriptor
    refusal: str | None

    @property
    def trusted_read_only(self) -> bool: ...

    def confinement(self, ctx: ToolContext) -> dict[str, Any]: ...


async def call(tool: CalledTool, pool: Pool, ctx: ToolContext) -> ToolOutput:
    """Call `tool` on its server for `ctx` (see the module docstring)."""
    server = tool.server
    if tool.refusal is not None:
        raise ToolFailed(ErrorCode.TOOL_CHANGED, tool.refusal)
    try:
        connected, listed = await pool.get(server, tool.confinement(ctx))
    except SandboxUnavailable:
        raise
    except McpServerError as exc:
        raise ToolFailed(ErrorCode.TOOL_ERROR, f"not sent: {exc}", retryable=True) from exc
    now = listed.get(tool.descriptor.name)
    if now is None or now.digest != tool.descriptor.digest:
        said = "no longer lists it" if now is None else f"now describes it as {now.digest}"
        raise ToolFailed(
            ErrorCode.TOOL_CHANGED,
            f"{tool.name}: the bundle pinned {tool.descriptor.digest}, but MCP server "
            f"{server.name!r} {said}; nothing was sent. Check the change and re-pin it "
            "(`seamhost mcp pins`).",
        )
    seen: list[float | None] = []  # the last progress notification: progress, total

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen[:] = [progress, total]

    request = CallToolRequest(
        params=CallToolRequestParams(
            name=tool.descriptor.name,
            arguments=thaw(ctx.arguments),
            _meta=cast(
                "RequestParamsMeta", call_meta(ctx.idempotency_key, ctx.call_id, ctx.attempt)
            ),
        )
    )
    sending = asyncio.ensure_future(
        connected.session.send_request(
            request, CallToolResult, server.timeout_s, progress_callback=on_progress
        )
    )
    await _settle(sending, connected, ctx, server.cancel_grace_s)
    meta: dict[str, Any] = {"mcp_server": server.name}
    meta.update({f"server_{key}": value for key, value in connected.confined.items()})
    if seen:
        meta["progress"] = list(seen)
    try:
        return _output(tool, sending, connected, ctx, meta)
    finally:
        connected.ledger.forget(ctx.idempotency_key, ctx.attempt)
        if connected.failure is not None or _closed(sending):
            # The connection is gone: the next call opens a fresh one.
            await pool.drop(server, tool.confinement(ctx)["workspace"])


def _closed(sending: asyncio.Future[CallToolResult]) -> bool:
    if sending.cancelled():
        return False
    exc = sending.exception()
    return isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED


async def _settle(
    sending: asyncio.Future[CallToolResult], connected: Connected, ctx: ToolContext, grace: float
) -> None:
    """Wait for the answer; on cancellation tell the server and wait `grace` more for it."""
    stop = asyncio.ensure_future(ctx.cancelled.wait())
    try:
        await asyncio.wait((sending, stop), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    if sending.done():
        return
    request_id = connected.ledger.sent(ctx.idempotency_key, ctx.attempt)
    if request_id is not None:
        notice = CancelledNotificationParams(
            request_id=request_id, reason="the seamhost turn was cancelled"
        )
        await connected.session.send_notification(CancelledNotification(params=notice))
    await asyncio.wait((sending,), timeout=grace)
    if not sending.done():
        sending.cancel()
        await asyncio.wait((sending,))


def _output(
    tool: CalledTool,
    sending: asyncio.Future[CallToolResult],
    connected: Connected,
    ctx: ToolContext,
    meta: dict[str, Any],
) -> ToolOutput:
    sent = connected.ledger.sent(ctx.idempotency_key, ctx.attempt) is not None
    server = tool.server.name
    if sending.cancelled():
        if not sent:
            raise ToolFailed(ErrorCode.TOOL_ERROR, "not sent: cancelled first", retryable=True)
        problem = "cancelled; notifications/cancelled was sent and no answer came"
        code = ErrorCode.ABORTED if tool.trusted_read_only else ErrorCode.TOOL_OUTCOME_UNKNOWN
        return _lost(tool, problem, code, meta)
    exc = sending.exception()
    if exc is None:
        return _result(tool, sending.result(), meta)
    if isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT:
        problem = f"no answer within timeout_s={tool.server.timeout_s:g}"
        code = ErrorCode.TOOL_TIMEOUT if tool.trusted_read_only else ErrorCode.TOOL_OUTCOME_UNKNOWN
        return _lost(tool, problem, code, meta)
    reason = connected.failure
    if reason is None and isinstance(exc, MCPError) and exc.code != CONNECTION_CLOSED:
        # The server answered, with a JSON-RPC error: a known failure.
        raise ToolFailed(ErrorCode.TOOL_ERROR, f'MCP server "{server}" answered: {exc}')
    if not sent:
        raise ToolFailed(
            ErrorCode.TOOL_ERROR,
            f'not sent: MCP server "{server}" {reason or exc}',
            retryable=True,
        )
    problem = f"the answer was lost: {reason or exc}"
    code = ErrorCode.TOOL_ERROR if tool.trusted_read_only else ErrorCode.TOOL_OUTCOME_UNKNOWN
    return _lost(tool, problem, code, meta)


def _lost(tool: CalledTool, problem: str, code: ErrorCode, meta: dict[str, Any]) -> ToolOutput:
    advice = (
        ""
        if code is not ErrorCode.TOOL_OUTCOME_UNKNOWN
        else " The request had left: whether it took effect is unknown; reconcile it "
        "(`seamhost session reconcile`) before calling it again."
    )
    content = f'{code}: MCP server "{tool.server.name}", {tool.name}: {problem}.{advice}'
    return ToolOutput(content=content, meta=meta, is_error=True, error_code=code)


def _result(tool: CalledTool, result: CallToolResult, meta: dict[str, Any]) -> ToolOutput:
    blocks = [
        block.model_dump(by_alias=True, mode="json", exclude_none=True) for block in result.content
    ]
    text = "\n".join(_text(block) for block in blocks)
    if result.is_error:
        message = text or "the tool reported an error"
        raise ToolFailed(ErrorCode.TOOL_ERROR, f'MCP server "{tool.server.name}": {message}')
    if "outputSchema" in tool.descriptor.body:
        value = result.structured_content
    elif result.structured_content is not None:
        value = {"content": blocks, "structured": result.structured_content}
    else:
        value = {"content": blocks}
    if not text and result.structured_content is not None:
        text = json.dumps(result.structured_content, ensure_ascii=False)
    return ToolOutput(content=text, value=value, meta=meta)


def _text(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind in ("image", "audio"):
        return f"[{kind} {block.get('mimeType', '')}]"
    if kind == "resource_link":
        return f"[resource {block.get('uri', '')}]"
    return json.dumps(block, ensure_ascii=False)
