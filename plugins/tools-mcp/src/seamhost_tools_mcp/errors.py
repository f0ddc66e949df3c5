"""What can go wrong with an upstream MCP server, always naming the server."""

from __future__ import annotations

from seamhost.errors import SeamhostError


class McpServerError(SeamhostError, RuntimeError):
    """An upstream MCP server could not be started, reached, or understood."""

    server: str
    problem: str

    def __str__(self) -> str:
        return f'MCP server "{self.server}": {self.problem}'


class RequestNotSent(McpServerError):
    """A request provably never reached an MCP server (the connection was down before it left)."""


class ResponseLost(McpServerError):
    """A request reached an MCP server but its answer never came back (crash, drop, timeout)."""
