"""Replies to stdio lines that are not JSON-RPC messages, as JSON-RPC 2.0 asks (§5.1).

The SDK's stdio transport hands the server an exception for a line it cannot read as a
message, and the server drops it: a client that wrote a broken line waits for an answer that
never comes. :class:`AnsweringMalformed` stands between the transport and the server and
answers such a line itself, on the transport's write stream:

* a line that is not JSON: ``-32700`` (Parse error), ``id`` null;
* JSON that is not a JSON-RPC message (an array, a ``method`` that is not a string, ...):
  ``-32600`` (Invalid Request), with the line's ``id`` when it has a usable one, else null.

Everything else passes through unchanged, with the sender's context
(``last_context``) for the server's tracing. Nothing of the line is echoed back: the message
says what was wrong, not what was sent.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from anyio.abc import ObjectReceiveStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def reply_to(problem: Exception) -> types.JSONRPCError:
    """The error a client gets for a line the transport could not read (`problem` says why)."""
    if isinstance(problem, ValidationError):
        errors = problem.errors(include_url=False, include_input=True)
        if any(error["type"] == "json_invalid" for error in errors):
            return _error(None, PARSE_ERROR, "Parse error: the line is not JSON")
        return _error(
            _request_id(errors),
            INVALID_REQUEST,
            "Invalid Request: the line is JSON but not a JSON-RPC 2.0 message",
        )
    return _error(None, PARSE_ERROR, f"Parse error: {type(problem).__name__}")


def _error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )


def _request_id(errors: list[Any]) -> str | int | None:
    """The ``id`` of the object that failed validation, when it is one JSON-RPC allows."""
    for error in errors:
        value = error.get("input")
        if isinstance(value, dict):
            request_id = value.get("id")
            if isinstance(request_id, str) or (
                isinstance(request_id, int) and not isinstance(request_id, bool)
            ):
                return request_id
    return None


class AnsweringMalformed(ObjectReceiveStream[SessionMessage | Exception]):
    """The transport's read stream, answering the lines it could not read (module docstring).

    anyio's stream base adds what the SDK expects of a stream: iterating it, and closing it as
    an async context manager.
    """

    def __init__(self, read: Any, write: Any) -> None:
        self._read = read
        self._write = write

    @property
    def last_context(self) -> Any:
        return getattr(self._read, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item: SessionMessage | Exception = await self._read.receive()
            if not isinstance(item, Exception):
                return item
            await self._write.send(SessionMessage(reply_to(item)))

    async def aclose(self) -> None:
        await self._read.aclose()


__all__ = ["AnsweringMalformed", "reply_to"]
