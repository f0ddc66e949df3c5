"""The MCP gateway: ``seamhost mcp serve`` puts the governed pipeline behind an MCP server.

Any MCP client (Claude Code, Codex, Cursor, an Agents SDK application) lists the bundle's tools
and calls them; every ``tools/call`` is a call the model proposed, governed, dispatched and
recorded exactly as in ``seamhost run`` (docs/design.md, "The MCP gateway"). The package sits
above ``run`` and below ``cli``, and only ``mcp serve`` imports it: the ``mcp`` SDK it loads
(pydantic, anyio, starlette) costs the other commands nothing.

* :mod:`.listing`: ``tools/list``, the bundle's declarations as MCP tools;
* :mod:`.results`: a :class:`~seamhost.tool.result.ToolResult` as a ``CallToolResult``;
* :mod:`.conductor`: one connection's calls as turns of a durable session;
* :mod:`.elicitation`: approvals asked of the client's user;
* :mod:`.server`: the SDK server and the stdio transport; :mod:`.malformed`: JSON-RPC error
  replies to stdio lines that are not messages;
* :mod:`.http`: streamable HTTP and its door (loopback by default, ``Origin``, the bearer
  token); :mod:`.limits` and :mod:`.connections`: what bounds its sessions, connections,
  headers and bodies;
* :mod:`.logs`: one line on standard error per logged event, never a traceback.
"""
