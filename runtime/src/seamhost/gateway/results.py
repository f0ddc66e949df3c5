"""A settled call as the client receives it: a ``CallToolResult``.

* ``content``: the result's content as one text item (what the model reads); a refusal or an
  error starts with its error code (``DENIED_BY_POLICY: ...``), so a client that shows only the
  text still shows why;
* ``structuredContent``: the canonical value, when the call succeeded (wrapped as
  :func:`seamhost.gateway.listing.structured` says);
* ``isError``: true for every refusal and error;
* ``_meta``: ``seamhost/session`` (the session id), ``seamhost/call`` (the call id in the log),
  ``seamhost/error`` (``{code, message}``) and ``seamhost/meta`` (the result's meta: sandbox
  mode, decisions, backend...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types as types

from seamhost.gateway.listing import structured
from seamhost.jsonvalue import thaw

if TYPE_CHECKING:
    from seamhost.tool.declaration import ToolSpec
    from seamhost.tool.result import ToolResult


def call_result(result: ToolResult, session_id: str, spec: ToolSpec | None) -> types.CallToolResult:
    """`result` of the call as MCP carries it; `spec` is ``None`` for a tool the bundle lacks."""
    meta: dict[str, Any] = {"seamhost/session": session_id, "seamhost/call": result.call_id}
    if result.meta:
        meta["seamhost/meta"] = thaw(result.meta)
    text = result.content
    error = result.error
    if error is not None:
        code = str(error.code)
        meta["seamhost/error"] = {"code": code, "message": error.message}
        if not text.startswith(code):
            text = f"{code}: {text}"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=True, _meta=meta
        )
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=structured(spec, thaw(result.value)) if spec is not None else None,
        is_error=False,
        _meta=meta,
    )


def refusal(code: str, message: str, session_id: str) -> types.CallToolResult:
    """An error result for a call the gateway could not hand to the pipeline at all."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"{code}: {message}")],
        is_error=True,
        _meta={
            "seamhost/session": session_id,
            "seamhost/error": {"code": code, "message": message},
        },
    )


__all__ = ["call_result", "refusal"]
