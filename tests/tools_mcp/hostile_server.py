"""A hand-written stdio "MCP server" that breaks the protocol in the way ``argv[1]`` names.

Not an SDK server on purpose: the SDK would refuse to send what this one sends.

* ``garbage``: answers ``initialize`` with a line that is not JSON-RPC;
* ``huge``: lists a tool whose description is 2 MiB (larger than the client's limit);
* ``bad-schema``: lists a tool whose ``inputSchema`` is not a JSON Schema;
* ``collide``: lists ``a.b`` and ``a_b``, which mount under one name;
* ``twice``: lists the same tool twice;
* ``bad-output``: a well-formed server whose tool breaks its own ``outputSchema``;
* ``garbage-call`` and ``huge-call``: well-formed until a ``tools/call``, which they answer with
  a line that is not JSON-RPC, or with a 2 MiB message.
"""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1]
SCHEMA = {"type": "object", "properties": {}}


def tool(name: str, **extra: object) -> dict[str, object]:
    return {"name": name, "description": "t", "inputSchema": SCHEMA, **extra}


TOOLS = {
    "huge": [tool("big", description="x" * (2 * 1024 * 1024))],
    "bad-schema": [tool("bad", inputSchema={"type": "object", "properties": {"x": {"type": 7}}})],
    "collide": [tool("a.b"), tool("a_b")],
    "twice": [tool("same"), tool("same")],
    "garbage-call": [tool("answer")],
    "huge-call": [tool("answer")],
    "bad-output": [
        tool(
            "answer",
            outputSchema={
                "type": "object",
                "properties": {"n": {"type": "integer"}},
                "required": ["n"],
            },
        )
    ],
}


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        continue  # a notification
    if method == "initialize":
        if MODE == "garbage":
            sys.stdout.write("this is not JSON-RPC\n")
            sys.stdout.flush()
            continue
        result: dict[str, object] = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": MODE},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS.get(MODE, [])}
    elif method == "tools/call" and MODE == "garbage-call":
        sys.stdout.write("{not json\n")
        sys.stdout.flush()
        continue
    elif method == "tools/call" and MODE == "huge-call":
        result = {"content": [{"type": "text", "text": "x" * (2 * 1024 * 1024)}]}
    elif method == "tools/call":
        result = {
            "content": [{"type": "text", "text": "n is a string"}],
            "structuredContent": {"n": "x"},
        }
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": method}})
        continue
    send({"jsonrpc": "2.0", "id": ident, "result": result})
