"""An SDK MCP server (the low-level ``Server``) whose tool schemas refer outside themselves.

Run over stdio as ``ref_server.py URL FILE_URL``: ``URL`` is an ``http://`` address the test
listens on (counting connections) and ``FILE_URL`` a ``file:`` URL of a file the test watches.
Its tools:

* ``fine``: a plain schema, which must still mount;
* ``remote``: an ``inputSchema`` property whose ``$ref`` is ``URL``;
* ``local_file``: an ``outputSchema`` property whose ``$ref`` is ``FILE_URL``;
* ``relative``: a relative ``$ref`` under a root ``$id`` of ``URL`` (``URL/base/`` + ``x.json``);
* ``nested_id``: a ``#`` reference under a nested ``$id`` that moves the base to ``URL``;
* ``in_const``: a ``$ref`` to ``URL`` inside a ``const`` value (which fastjsonschema expands
  into its error messages when generating them).
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

URL, FILE_URL = sys.argv[1], sys.argv[2]


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


SCHEMAS: dict[str, dict[str, Any]] = {
    "fine": {"inputSchema": obj(text={"type": "string"})},
    "remote": {"inputSchema": obj(x={"$ref": URL})},
    "local_file": {
        "inputSchema": obj(),
        "outputSchema": obj(y={"$ref": FILE_URL}),
    },
    "relative": {
        "inputSchema": {"$id": f"{URL}/base/", **obj(z={"$ref": "x.json"})},
    },
    "nested_id": {
        "inputSchema": {
            **obj(n={"$id": f"{URL}/nested", **obj(m={"$ref": "#/definitions/a"})}),
            "definitions": {"a": {"type": "string"}},
        }
    },
    "in_const": {"inputSchema": obj(c={"const": {"$ref": URL}})},
}


async def list_tools(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    tools = [
        types.Tool.model_validate({"name": name, "description": f"{name} tool", **schemas})
        for name, schemas in SCHEMAS.items()
    ]
    return types.ListToolsResult(tools=tools)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    text = str((params.arguments or {}).get("text", ""))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server: Server[Any] = Server(
    "refs", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool
)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
