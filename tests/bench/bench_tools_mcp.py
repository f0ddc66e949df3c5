"""One governed call to a mounted stdio MCP server (issue "MCP mount"), against the bare SDK.

Three measures, in turn round by round so that noise hits all alike, each the best of a few
rounds of many calls:

* **governed**: a call of ``loop__echo`` (the tests' own SDK server, tests/tools_mcp) through
  the whole pipeline of a bundle with tools-mcp and sandbox-local (the server confined in
  workspace-write), in-memory store: arguments, policy, guards, dispatch record, the body's
  ``tools/call`` with its ``_meta``, output-schema check, result;
* **bare SDK**: the same server started by the SDK's own ``stdio_client`` (unconfined), one
  ``ClientSession.call_tool("echo")`` per call;
* **pipeline**: a governed call of a no-op in-process tool (tests/bench/bench_pipeline.py's
  bench plugin): the pipeline's own cost per call, whatever the tool.

Target: governed ≤ 1.5 × bare SDK + pipeline, i.e. what the mount adds to the SDK call itself
(the transport, the ledger, the pin check, the result mapping) stays within half an SDK call.

Run: ``python tests/bench/bench_tools_mcp.py [--calls N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _measure import Row, report
from bench_pipeline import bench_bundle, governed_calls
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from seamhost.approval.service import ApprovalService
from seamhost.kernel.bundle import Bundle, build_bundle
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.llm.adapter import ToolCallProposal
from seamhost.run.pipeline import ToolPipeline
from seamhost.run.sessions import create_session
from seamhost.session.events import TurnStart

LOOPBACK = Path(__file__).parents[1] / "tools_mcp" / "loopback_server.py"
TARGET = 1.5
ROUNDS = 3
WARMUP = 20


def mount_bundle(root: Path) -> Bundle:
    profile = root / "mcp.toml"
    profile.write_text(
        '[profile]\nname = "bench-mcp"\n'
        f'[plugins.tools-mcp]\nlog_dir = "{root / "logs"}"\n'
        "[plugins.tools-mcp.servers.loop]\n"
        f'command = ["{sys.executable}", "{LOOPBACK}"]\n'
        f'env = {{ LOOPBACK_STATE = "{root}" }}\n'
        "[plugins.sandbox-local]\n"
        '[sandbox]\nmode = "workspace-write"\n'
    )
    return build_bundle(resolve_profile(str(profile)))


def governed_mcp(bundle: Bundle, workspace: Path, calls: int) -> float:
    """Seconds per governed call of ``loop__echo`` (the server started and warmed untimed)."""
    session = create_session(bundle)
    session.append(TurnStart(turn=1))
    pipeline = ToolPipeline(bundle, session, workspace, ApprovalService())

    async def drive() -> float:
        cancelled = asyncio.Event()
        step = 0

        async def one() -> None:
            nonlocal step
            step += 1
            proposal = ToolCallProposal(f"c{step}", "loop__echo", '{"text": "x"}')
            (result,) = await pipeline.run_step(1, step, [proposal], cancelled)
            assert result.error is None, result

        for _ in range(WARMUP):
            await one()
        start = time.perf_counter()
        for _ in range(calls):
            await one()
        return (time.perf_counter() - start) / calls

    try:
        return asyncio.run(drive())
    finally:
        session.close()


def bare_sdk(root: Path, calls: int) -> float:
    """Seconds per ``call_tool("echo")`` of the bare SDK client (server started untimed)."""
    params = StdioServerParameters(
        command=sys.executable, args=[str(LOOPBACK)], env={"LOOPBACK_STATE": str(root)}
    )

    async def drive() -> float:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                await session.list_tools()
                for _ in range(WARMUP):
                    await session.call_tool("echo", {"text": "x"})
                start = time.perf_counter()
                for _ in range(calls):
                    await session.call_tool("echo", {"text": "x"})
                return (time.perf_counter() - start) / calls

    return asyncio.run(drive())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per round")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        workspace = root / "workspace"
        workspace.mkdir()
        mcp = mount_bundle(root)
        noop = bench_bundle(root / "noop")
        governed_calls(noop, 200)  # warm up: schema compilation, first imports
        governed, bare, pipeline = [], [], []
        for _ in range(ROUNDS):
            bare.append(bare_sdk(root, args.calls))
            governed.append(governed_mcp(mcp, workspace, args.calls))
            pipeline.append(governed_calls(noop, args.calls * 10))
    g, b, p = min(governed) * 1000, min(bare) * 1000, min(pipeline) * 1000
    budget = TARGET * b + p
    rows = [
        Row("governed MCP call vs bare SDK call_tool", g, b, "ms", "(for scale)", True),
        Row(
            "governed − pipeline's own cost vs bare SDK",
            g - p,
            b,
            "ms",
            f"≤ {TARGET}×",
            g <= budget,
        ),
    ]
    print(f"pipeline's own governed-call cost (no-op tool): {p:.3f} ms; budget {budget:.3f} ms")
    return report("tools-mcp: one governed call to a mounted stdio server", rows)


if __name__ == "__main__":
    raise SystemExit(main())
