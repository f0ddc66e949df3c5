"""A second, independent client: the TypeScript SDK (``@modelcontextprotocol/sdk``) over stdio.

``tests/node/mcp_serve_client.mjs`` is the SDK's own ``Client`` with a ``StdioClientTransport``
that starts a real ``seamhost mcp serve``; it answers elicitations "accept". The SDK is one of
the npm packages of ``tests/node`` (:mod:`tests.node_programs` installs them on first use;
``.ci/run`` does beforehand, and there a missing Node is a failure, not a skip).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp_serve.kit import Rig, outcomes
from tests.node_programs import node_modules
from tests.served import of_type, well_formed

CLIENT = Path(__file__).parent.parent / "node" / "mcp_serve_client.mjs"


@pytest.fixture(scope="module")
def node() -> str:
    """The ``node`` executable, with the TypeScript SDK installed next to the client."""
    node_modules()
    node = shutil.which("node")
    assert node is not None  # node_modules() skipped (or failed) otherwise
    return node


def test_the_typescript_sdk_lists_and_calls_through_the_same_governance(
    tmp_path: Path, node: str
) -> None:
    rig = Rig(tmp_path)
    (rig.workspace / "ask").mkdir()
    (rig.workspace / "notes.txt").write_text("from node\n")
    calls = [
        ["read_file", {"path": "notes.txt"}],
        ["write_file", {"path": "secret/k", "content": "k"}],
        ["write_file", {"path": "ask/ts.txt", "content": "ts"}],
        ["no_such_tool", {}],
    ]
    environ = {**rig.environment(), "SEAMHOST_TS_CALLS": json.dumps(calls)}
    ran = subprocess.run(
        [node, str(CLIENT), sys.executable, *rig.serve_args()],
        capture_output=True,
        text=True,
        env={k: v for k, v in environ.items() if k != "NODE_OPTIONS"},
        timeout=120,
        check=False,
        cwd=CLIENT.parent,
    )
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout.strip().splitlines()[-1])
    tools = {tool["name"]: tool for tool in out["tools"]}
    assert tools["read_file"]["annotations"]["readOnlyHint"] is True
    assert tools["write_file"]["annotations"]["destructiveHint"] is True
    read, denied, asked, unknown = out["results"]
    # The TypeScript client validated structuredContent against the listed outputSchema.
    assert read["structuredContent"]["content"] == "from node\n"
    assert read.get("isError") is not True
    assert denied["isError"] is True
    assert denied["content"][0]["text"].startswith("DENIED_BY_POLICY")
    assert asked.get("isError") is not True, asked
    assert (rig.workspace / "ask" / "ts.txt").read_text() == "ts"
    assert len(out["questions"]) == 1
    assert "write_file" in out["questions"][0]
    assert unknown["content"][0]["text"].startswith("UNKNOWN_TOOL")
    session_id = read["_meta"]["seamhost/session"]
    assert session_id in out["instructions"]
    records = rig.records(session_id)
    well_formed(records)
    assert list(outcomes(records).values()) == ["ok", "DENIED_BY_POLICY", "ok", "UNKNOWN_TOOL"]
    assert (
        of_type(records, "user/message")[0]["content"] == "tools/call from seamhost-ts-test 1.0.0"
    )
